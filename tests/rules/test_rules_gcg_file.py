"""GCG files read game by game with bounded memory (``kiosk.rules.gcg.iter_gcg``): a whole event's games in one file
replayed in a few MB, the file's own line numbers in every message, the limits stated and named."""

from __future__ import annotations

import io
import random
import re
import tracemalloc
from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.rules import gcg_file
from kiosk.rules.gcg import GcgError, iter_gcg, parse_gcg, read_gcg
from kiosk.rules.gcg_file import lines_of
from shared_data import SHARED, needs_shared

GAME = "#player1 A Ann\n#player2 B Bob\n>A: QI 8H QI +22 22\n>B: - +0 0\n"   # 4 lines
REAL = SHARED / "corpus" / "gcg" / "real"
BAD = "#player1 A Ann\n#player2 B Bob\n>A: QI 8H QI +20 20\n>B: - +0 0\n"    # Ann's score miscounted


def _event_file(path: Path, games: int, every_bad: int = 0) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for i in range(games):
            f.write(BAD if every_bad and i % every_bad == every_bad - 1 else GAME)
    return path


def _peak(argv: list[str]) -> tuple[int, int]:
    """(exit code, peak bytes allocated) of ``kiosk`` ``argv``."""
    tracemalloc.start()
    try:
        rc = main(argv)
        return rc, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_replay_reads_a_whole_events_file_game_by_game_in_bounded_memory(tmp_path, capsys):
    """Found by the review: a 10.8 MB file of 200,000 games was read whole (647 MB). Now a file's games are
    replayed one at a time: memory does not grow with the file (1,000 games or 12,000), every game is counted
    and every problem named at the file's own line."""
    main(["replay", str(_event_file(tmp_path / "one.gcg", 1))])             # the modules, imported once
    small = _event_file(tmp_path / "small.gcg", 1_000)
    big = _event_file(tmp_path / "event.gcg", 12_000, every_bad=3_000)
    _, peak_small = _peak(["replay", "--quiet", str(small)])
    capsys.readouterr()
    rc, peak = _peak(["replay", str(big)])
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "12000 games, 12000 moves, 4 mismatches" and rc == 1
    lines = [f"{big}:{4 * (g - 1) + 3}:" for g in (3_000, 6_000, 9_000, 12_000)]
    assert [ln.split(" ")[0] for ln in out.splitlines()[:-1]] == lines, out
    size = big.stat().st_size
    # (read whole, a file's games took about 60 times its size: 44 MB here)
    assert peak < 2 * peak_small + 512 * 1024, f"peak {peak:,} bytes for a {size:,}-byte " \
        f"file ({peak_small:,} for 1,000 games)"


def test_games_split_where_the_next_one_begins_and_keep_their_notes_racks_and_titles(tmp_path):
    text = ("#character-encoding UTF-8\n#title first\n#player1 A Ann\n#player2 B Bob\n>A: QI 8H QI +22 22\n"
            "#note a good start\nstill the note\n\n>B: - +0 0\n#rack1 AB\n"
            "\n#title second\n#id x 2\n#player1 C Cid\n#player2 D Dee\n>C: QI 8H QI +22 22\n"
            "#character-encoding UTF-8\n#player1 E Eve\n#player2 F Fay\n>F: ZA 8H ZA +22 22\n")
    p = tmp_path / "three.gcg"
    p.write_text(text, encoding="utf-8")
    games = list(iter_gcg(p))
    assert [(g.first_line, [x.nick for x in g.players], g.title) for g in games] == [
        (1, ["A", "B"], "first"), (11, ["C", "D"], "second"), (17, ["E", "F"], None)]
    assert games[0].events[0].notes == ["a good start\nstill the note"] and games[0].racks == {0: "AB"}
    assert [e.line for g in games for e in g.events] == [5, 9, 16, 20]
    assert [str(e) for e in games[2].errors] == []
    assert games[2].warnings == []          # its #character-encoding is its own first line
    one = parse_gcg(text.split("\n\n#title second")[0] + "\n", str(p))   # a one-game file reads as before
    assert (one.players, one.events, one.racks) == (games[0].players, games[0].events, games[0].racks)


def test_a_command_taking_one_game_names_the_line_where_a_second_begins(tmp_path):
    p = _event_file(tmp_path / "two.gcg", 2)
    game = read_gcg(p)
    assert [str(e) for e in game.errors] == [f"{p}:5: a second game begins here: give one game per file "
                                             "(kiosk replay reads every game of a file)"]
    assert len(game.events) == 2


def test_a_game_record_over_the_limit_is_named_with_the_limit_and_the_rest_is_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(gcg_file, "MAX_RECORD_BYTES", 1024 * 1024)
    p = tmp_path / "huge.gcg"
    notes = "".join(f"#note {'x' * 200}\n" for _ in range(6000))       # 1.2 MB of notes in game 2
    p.write_text(GAME + GAME.replace(">B: - +0 0\n", ">B: - +0 0\n" + notes) + GAME, encoding="utf-8")
    rc = main(["replay", str(p)])
    cap = capsys.readouterr()
    assert cap.err.strip() == (f"kiosk replay: {p}:5: the game record starting here is over 1 MB "
                               f"({len(GAME) + len(notes):,} bytes); a game record is a few KB, so this one was "
                               "not read")
    assert cap.out.splitlines()[-1] == "2 games, 2 moves, 0 mismatches; 1 game not read (see above)" and rc == 2
    only = tmp_path / "only.gcg"
    only.write_text(GAME + notes, encoding="utf-8")
    with pytest.raises(GcgError, match=r"only.gcg:1: the game record starting here is over 1 MB"):
        read_gcg(only)


def test_lines_are_split_as_the_parser_splits_them_whatever_the_read_size(monkeypatch):
    rng = random.Random(7)
    for chunk in (1, 2, 3, 7, 64):
        monkeypatch.setattr(gcg_file, "CHUNK", chunk)
        for _ in range(200):
            raw = "".join(rng.choice(["a", "bc", "\r", "\n", "\r\n", "#", " "]) for _ in range(rng.randrange(30)))
            got = list(lines_of(io.BytesIO(raw.encode())))
            assert got == [x.encode() for x in re.split(r"\r\n|\r|\n", raw)], (chunk, raw)


def test_a_line_too_long_is_cut_and_reported_not_held(tmp_path, monkeypatch):
    monkeypatch.setattr(gcg_file, "CHUNK", 1000)
    p = tmp_path / "long.gcg"
    p.write_text(GAME.replace("#player2 B Bob", "#player2 B " + "b" * 500_000), encoding="utf-8")
    (game,) = list(iter_gcg(p))
    assert len(game.players[1].name) == gcg_file.MAX_LINE_BYTES - len("#player2 B ")
    # said as it is: cut at 64 KiB (a tester's 5,000,000-character line was reported as "length 65536 ...; kept")
    assert [str(w) for w in game.warnings] == [f"{p}:2: a line of 65,536 bytes or more (GCG readers accept 512 "
                                               "characters): only its first 65,536 bytes were read"]
    q = tmp_path / "notes.gcg"
    q.write_text(GAME.replace("#player2 B Bob", "#player2 B " + "b" * 600), encoding="utf-8")
    (game,) = list(iter_gcg(q))
    assert [str(w) for w in game.warnings] == [f"{q}:2: a line of 611 characters (GCG readers accept 512); kept"]
    assert len(game.events) == 2


def test_each_game_is_decoded_in_the_files_declared_encoding(tmp_path):
    p = tmp_path / "latin.gcg"
    body = (GAME.replace("Ann", "Jörg") * 2).encode("latin-1")
    p.write_bytes(b"#character-encoding ISO-8859-1\n" + body)
    games = list(iter_gcg(p))
    assert [g.players[0].name for g in games] == ["Jörg", "Jörg"] and games[1].encoding == "ISO-8859-1"
    p.write_bytes(b"#character-encoding UTF-8\n" + GAME.encode() + body)    # game 2: not UTF-8 as declared
    games = list(iter_gcg(p))
    assert not games[0].skipped and games[1].skipped
    assert str(games[1].errors[0]) == f"{p}:6: invalid UTF-8 byte 0xf6"


@needs_shared
def test_the_real_corpus_in_one_file_replays_as_its_files_do(tmp_path, capsys):
    """The 193 real records (UTF-8 and ISO-8859-1, CRLF and LF, with titles, notes and #rack lines) written one
    after another into one file: the same games, moves, mismatches and rule errors as file by file."""
    files = sorted(REAL.glob("*.gcg"))
    whole = tmp_path / "event.gcg"
    with open(whole, "wb") as out:
        for f in files:
            raw = f.read_bytes()
            out.write(raw if raw.endswith((b"\n", b"\r")) else raw + b"\n")
    main(["replay", "--quiet", *map(str, files)])
    apart = capsys.readouterr().out.splitlines()[-2:]
    main(["replay", "--quiet", str(whole)])
    assert capsys.readouterr().out.splitlines()[-2:] == apart
    assert apart[-1].startswith(f"{len(files)} games, ")
