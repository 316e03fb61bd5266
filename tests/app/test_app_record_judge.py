"""The recording demo's judge sees the table as game.csv built it (never a truth file)."""

from __future__ import annotations

import re

import pytest

from kiosk.app.record_judge import table_boards
from kiosk.app.recording import read_recording
from shared_data import SHARED, needs_shared


@needs_shared
def test_the_judge_sees_every_frame_as_its_truth_file_says():
    """game.csv alone gives the board of every recorded frame (plays, blanks, a play taken back)."""
    checked = 0
    for d in sorted((SHARED / "photos" / "scrabscrap").glob("game0*")):
        rec = read_recording(d)
        boards = table_boards(rec.presses)
        by_move = {p.move: boards[p.line] for p in rec.presses}
        for t in (d / "truth").glob("image-*.txt"):
            move = int(re.search(r"(\d+)\.txt$", t.name).group(1))
            assert by_move[move] == "".join(t.read_text(encoding="utf-8").split()), f"{d.name} {t.name}"
            checked += 1
    assert checked > 100


def test_a_withdrawn_play_leaves_the_table():
    class Row:
        def __init__(self, line, button, coord, word):
            self.line, self.button, self.coord, self.word = line, button, coord, word

    rows = [Row(2, "green", "H4", "FIRNS"), Row(3, "red", "5G", "V.TeN"), Row(4, "doubt0", "--", "V.TeN")]
    b = table_boards(rows)
    assert b[2][7 * 15 + 3:7 * 15 + 8] == "FIRNS"
    assert b[3][6 * 15 + 4] == "V" and b[3][9 * 15 + 4] == "?"  # 5G: down from G5
    assert b[4] == b[2]


@pytest.mark.slow
@needs_shared
def test_a_recording_without_warp_coord_is_refereed_to_its_final(tmp_path):
    """game.ini without warp-coord (the recording system found the board itself): the kiosk finds the board,
    keeps it from frame to frame, and the game ends with the recorded final; the judge line comes before it."""
    from common_fixtures import TEMPLATES_PROFILE

    from kiosk.app.recording import run_recording

    src = SHARED / "photos" / "scrabscrap" / "game01"
    folder = tmp_path / "game01"
    folder.mkdir()
    for p in src.iterdir():
        if p.suffix in (".jpg", ".csv", ".gcg"):
            (folder / p.name).symlink_to(p)
    ini = [ln for ln in (src / "game.ini").read_text(encoding="utf-8").splitlines() if "warp-coord" not in ln]
    (folder / "game.ini").write_text("\n".join(ini) + "\n", encoding="utf-8")
    lines: list[str] = []
    code = run_recording(folder, journal=tmp_path / "j.sqlite", out=lines.append, calibration=TEMPLATES_PROFILE)
    assert lines[-1] == "final: Stefan 377, Hanns 374", "\n".join(lines)
    m = re.fullmatch(r"judge: (\d+) interventions? \(\d+ squares? corrected\); (\d+) moves? taken back "
                     r"\(phonies withdrawn after a challenge, as recorded\)", lines[-2])
    assert m and int(m.group(1)) <= 1 and m.group(2) == "0", "\n".join(lines)
    assert code == 0, "\n".join(lines)


@pytest.mark.slow
@needs_shared
def test_real_frames_without_a_usable_reading_are_entered_by_the_judge(tmp_path):
    """game01 with image-5 black and image-9 turned 90 degrees: images, but no usable reading. Each is named,
    the judge enters that move from the record (one intervention each), and the game ends with the recorded
    totals; no later move reports the bad frame's problem (before: 29-32 interventions, ending 43:58)."""
    import cv2
    import numpy as np
    from common_fixtures import TEMPLATES_PROFILE

    from kiosk.app.recording import run_recording

    src = SHARED / "photos" / "scrabscrap" / "game01"
    folder = tmp_path / "game01"
    folder.mkdir()
    for p in src.iterdir():
        if p.suffix in (".jpg", ".csv", ".gcg", ".ini") and p.name not in ("image-5.jpg", "image-9.jpg"):
            (folder / p.name).symlink_to(p)
    frame5 = cv2.imread(str(src / "image-5.jpg"))
    cv2.imwrite(str(folder / "image-5.jpg"), np.zeros_like(frame5))
    cv2.imwrite(str(folder / "image-9.jpg"), cv2.rotate(cv2.imread(str(src / "image-9.jpg")), cv2.ROTATE_90_CLOCKWISE))
    lines: list[str] = []
    code = run_recording(folder, journal=tmp_path / "j.sqlite", out=lines.append, calibration=TEMPLATES_PROFILE)
    text = "\n".join(lines)
    assert lines[-1] == "final: Stefan 377, Hanns 374", text
    assert re.search(r"move 5: image-5\.jpg: no usable reading \(blank frame [^\n]*: the judge enters the move "
                     r"from the record \(N1 WANK, 4 tiles\)", text), text
    assert re.search(r"move 9: image-9\.jpg: no usable reading \([^\n]*: the judge enters the move from the record",
                     text), text
    assert "asks the judge" not in text and "MISMATCH" not in text, text
    assert lines[-2].startswith("judge: 2 interventions "), text
    assert code == 0, text


def test_one_parser_gives_the_squares_of_a_recorded_word():
    """The recording's coordinates (letter first = across from that row, number first = down), as the judge's
    table and the judge's entries both use them; off the board is an error naming the coordinate."""
    from kiosk.app.recorded_moves import record_tiles, word_squares

    assert word_squares("H4", 3) == [7 * 15 + 3, 7 * 15 + 4, 7 * 15 + 5]          # standard 8D, across
    assert word_squares("5G", 2) == [6 * 15 + 4, 7 * 15 + 4]                      # standard E7, down
    with pytest.raises(ValueError, match="O14: a word of 3 letters runs off the board"):
        word_squares("O14", 3)
    board = [""] * 225
    board[7 * 15 + 4] = "A"
    assert record_tiles("H4", "c.T", board) == [(7 * 15 + 3, "?"), (7 * 15 + 5, "T")]
