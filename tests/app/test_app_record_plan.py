"""Records prepared for the table: the preset follows the record's rules; recordings parse precisely."""

import pytest

from kiosk.app.record_players import RecordError, _out_style, plan_record
from kiosk.app.recording import RecordingError, read_recording, record_errors, standard_coordinate
from kiosk.rules.gcg import parse_gcg
from shared_data import SHARED, needs_shared

GAME_2X = """#player1 Ann Ann
#player2 Bob Bob
>Ann: AEINRST 8D NASTIER +66 66
>Bob: EQU I7 Q.E +22 22
>Bob: EQU (challenge) +5 27
"""


def test_preset_follows_the_record():
    plan = plan_record(parse_gcg(GAME_2X, "t.gcg"))
    assert plan.nicks == ("Ann", "Bob")
    assert plan.preset.challenge.wrong_bonus == 5 and not plan.preset.challenge.wrong_bonus_per_word
    assert plan.preset.end.out_adjustment == "double"
    assert [ev.kind.value for ev in plan.events] == ["play", "play", "challenge"]


def test_varying_challenge_bonuses_are_per_word():
    text = GAME_2X + ">Ann: DEF 9C DEF +10 76\n>Ann: DEF (challenge) +10 86\n"
    plan = plan_record(parse_gcg(text, "t.gcg"))
    assert plan.preset.challenge.wrong_bonus == 5 and plan.preset.challenge.wrong_bonus_per_word


def test_bad_records_are_refused_with_a_reason():
    with pytest.raises(RecordError, match="2 to 4 players, the record has 1"):
        plan_record(parse_gcg("#player1 A A\n", "t.gcg"))
    with pytest.raises(RecordError, match="t.gcg"):
        plan_record(parse_gcg("#player1 A A\n#player2 B B\n>A: QQ 8H QQ +99 99\n", "t.gcg"))


def test_three_and_four_player_records_are_planned_with_their_end_style():
    """Seed 003 (home, 2-4 players): after an out-play each other player loses his own rack, the player who went
    out adds nothing; the record has only their own-rack lines. Seed 004 (team): 1x lines."""
    head = "#player1 A A\n#player2 B B\n#player3 C C\n>A: AB 8H AB +8 8\n"
    own = parse_gcg(head + ">B: QQ (QQ) -20 -20\n>C: ZZ (ZZ) -20 -20\n", "t.gcg")
    assert _out_style(own, "out", None) == "own_only"
    assert _out_style(own, "out", "1x") == "standard" and _out_style(own, "out", "2x") == "double"
    four = parse_gcg("#player1 A A\n#player2 B B\n#player3 C C\n#player4 D D\n>A: AB 8H AB +8 8\n", "t.gcg")
    plan = plan_record(four)
    assert plan.nicks == ("A", "B", "C", "D") and plan.preset.max_players >= 4


@pytest.mark.parametrize("coord, std", [("H4", "8D"), ("5G", "E7"), ("15L", "O12"), ("A7", "1G"), ("o15", "15O")])
def test_recording_coordinates(coord, std):
    assert standard_coordinate(coord) == std


@pytest.mark.parametrize("coord", ["", "Z1", "16A", "H0", "H16", "88"])
def test_bad_recording_coordinates(coord):
    with pytest.raises(ValueError):
        standard_coordinate(coord)


def test_bad_recording_folders(tmp_path):
    with pytest.raises(RecordingError, match="game.ini: missing"):
        read_recording(tmp_path)
    (tmp_path / "game.ini").write_text("[default]\nname1 = A\nname2 = B\nwarp-coord = [[0, 0], [1, 1]]\n")
    (tmp_path / "game.csv").write_text("Move, Button\n")
    with pytest.raises(RecordingError, match="warp-coord"):
        read_recording(tmp_path)
    (tmp_path / "game.ini").write_text("[default]\nname1 = A\nname2 = B\nwarp-coord = [[0,0],[900,0],[900,900],[0,900]]\n")
    (tmp_path / "game.csv").write_text("Move, Button, State, Coord, Word, Points, Score1, Score2\n"
                                       '1, "blue", "S1", "H4", "AB", 5, 5, 0\n')
    with pytest.raises(RecordingError, match=r"game.csv:2: unknown button 'blue'"):
        read_recording(tmp_path)
    (tmp_path / "game.csv").write_text("Move, Button, State, Coord, Word, Points, Score1, Score2\n"
                                       '1, "green", "S1", "H4", "AB", x, 5, 0\n')
    with pytest.raises(RecordingError, match="game.csv:2: the Points column holds 'x', not a whole number"):
        read_recording(tmp_path)


GOOD_INI = b"[default]\nname1 = A\nname2 = B\n"
GOOD_CSV = b'Move, Button, State, Coord, Word, Points, Score1, Score2\n1, "green", "S1", "H4", "AB", 5, 5, 0\n'


@pytest.mark.parametrize("ini, csv_bytes, says", [
    (b"", GOOD_CSV, "game.ini: empty file, not a game.ini"),
    (b"\n", GOOD_CSV, "game.ini: empty file, not a game.ini"),
    (b"# no section\n", GOOD_CSV, "game.ini: has no [default] section"),
    (b"name1 = A\n", GOOD_CSV, "game.ini: line 1: the file must start with the [default] section header"),
    (b"[default]\nname1 = A\nname1 = B\n", GOOD_CSV, "game.ini: line 3: name1 is given twice in [default]"),
    (b"[default]\nname1 = J\xfcrgen\n", GOOD_CSV, "game.ini:2: not UTF-8 text (byte 0xfc): save it as UTF-8"),
    (GOOD_INI, "\ufeffMove\n".encode("utf-16"), "game.csv: UTF-16 text (what a Windows editor saves as 'Unicode'), "
                                                  "not UTF-8: save it as UTF-8 to read it as a recording's game.csv"),
    (GOOD_INI, GOOD_CSV + b"2, " + b"x" * 200_000 + b"\n",
     "game.csv:3: not a line of the recording's table (a field longer than 131,072 characters)"),
    ("folder", GOOD_CSV, "game.ini: is a folder, not a file of the recording"),
    (GOOD_INI, "fifo", "game.csv: not a regular file"),
])
def test_a_recording_s_files_that_cannot_be_read_are_named_with_their_line(tmp_path, ini, csv_bytes, says):
    """A tester's game.csv with a 5 MB line ended in a csv traceback; a FIFO or a folder was "missing"; latin-1,
    a missing header or a key given twice came as configparser's or the codec's own text, without the line."""
    import os

    if ini == "folder":
        (tmp_path / "game.ini").mkdir()
    else:
        (tmp_path / "game.ini").write_bytes(ini)
    if csv_bytes == "fifo":
        os.mkfifo(tmp_path / "game.csv")
    else:
        (tmp_path / "game.csv").write_bytes(csv_bytes)
    with pytest.raises(RecordingError) as exc:
        read_recording(tmp_path)
    assert says in str(exc.value)


@needs_shared
def test_recording_parses_with_blank_letters_from_the_gcg():
    rec = read_recording(SHARED / "photos" / "scrabscrap" / "game01")
    assert rec.names == ("Stefan", "Hanns")
    assert rec.presses[-1].scores == (377, 374)
    zag = next(p for p in rec.presses if p.word == "ZAG_NDE")
    assert rec.blanks[zag.line] == "E"


@needs_shared
def test_a_recordings_wrong_game_gcg_is_named_line_by_line():
    folder = SHARED / "photos" / "scrabscrap"
    errs = record_errors(read_recording(folder / "game03"))
    assert any("game03/game.gcg:20: mismatch: Johannes's total: computed 309, recorded 308" in e for e in errs)
    assert any("game.gcg:26: mismatch: Johannes's total: computed 256, recorded 257" in e for e in errs)
    assert all(e.startswith("record is wrong: ") and "followed game.csv" in e for e in errs)
    # game01's game.gcg scores 13A .ÄLE 32 where its tiles (and game.csv) make 22
    assert any("game01/game.gcg:28: mismatch: 13A .ÄLE scores: computed 22, recorded 32" in e
               for e in record_errors(read_recording(folder / "game01")))
    assert record_errors(read_recording(folder / "game02")) == []
