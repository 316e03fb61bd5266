"""Counts read right at 1 (kiosk.rules.counts.counted) where a tester found '1 words', 'tile(s)' and 'has only 1
tiles': the lexicon compiler, the record replay's rack check, the referee's exchange refusal, the tile set check."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from kiosk.cli import main


def test_compiling_a_list_of_one_word_says_one_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "w1.txt", tmp_path / "w1.marisa"
    src.write_text("QI\n", encoding="utf-8")
    assert main(["lexicon", "compile", str(src), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"W1: 1 word -> {out}\n"                      # was "1 words"
    assert f"read 1 word from {src} in " in captured.err                  # was "read 1 words"
    assert f"compiled 1 distinct word into {out} (" in captured.err       # was "compiled 1 distinct words"
    src.write_text("QI\nZA\n", encoding="utf-8")
    assert main(["lexicon", "compile", str(src), "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"W1: 2 words -> {out}\n"


def test_a_record_s_play_of_one_tile_not_in_the_rack_says_tile() -> None:
    from kiosk.rules.gcg import parse_gcg
    from kiosk.rules.replay import replay_game

    def errors(play: str) -> list[str]:
        return [str(e) for e in replay_game(parse_gcg(f"#player1 a Ann\n#player2 b Bob\n>a: AEINRST 8H {play} +24 24\n",
                                                      "x.gcg")).errors]

    assert errors("QAT") == ["x.gcg:3: error: played tile Q not in rack 'AEINRST'"]       # was "played tile(s) Q"
    assert errors("QZT") == ["x.gcg:3: error: played tiles QZ not in rack 'AEINRST'"]


def test_an_exchange_of_more_tiles_than_a_rack_of_one_says_one_tile(monkeypatch: pytest.MonkeyPatch) -> None:
    from kiosk.referee import turns
    from kiosk.referee.events import Exchange
    from kiosk.referee.model import Refused

    monkeypatch.setattr(turns, "need_on_move", lambda *args: None)
    monkeypatch.setattr(turns, "turn_time", lambda g, ev: 0)
    for rack, says in ((1, "exchange: Ann has only 1 tile"), (3, "exchange: Ann has only 3 tiles")):
        g = SimpleNamespace(clock=SimpleNamespace(at=0), close_window=lambda: None, racks={0: rack},
                            name=lambda p: "Ann", preset=SimpleNamespace(name="nsf", exchange=SimpleNamespace(allowed=True)))
        with pytest.raises(Refused) as exc:
            turns._on_exchange(g, Exchange(t=0, player=0, count=7))   # type: ignore[arg-type]
        assert str(exc.value).startswith(says) and not str(exc.value).startswith(says + "s")


def test_a_tile_set_of_one_tile_says_one_tile(tmp_path: Path) -> None:
    from kiosk.rules.tiles import TileSetError, load_tile_set

    path = tmp_path / "one.toml"
    path.write_text('name = "one"\nrack_size = 1\nblanks = 0\n[tiles]\nA = [1, 1]\n')
    with pytest.raises(TileSetError) as exc:
        load_tile_set(str(path))
    assert str(exc.value) == f"{path}: tiles: 1 tile in all, too few for two racks of 1 (rack_size)"


def test_the_replay_summary_keeps_the_form_the_shared_measure_parses(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """'1 games, 1 moves' stays: ../shared/checks/measure.py reads the last line with
    re.fullmatch(r'(\\d+) games, (\\d+) moves, (\\d+) mismatches'), which '1 game' or '1 mismatch' would break (the
    README documents the form)."""
    one = tmp_path / "one.gcg"
    one.write_text("#player1 a Ann\n#player2 b Bob\n>a: AEINRST 8D RETAINS +64 64\n", encoding="utf-8")
    main(["replay", str(one)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert re.fullmatch(r"(\d+) games, (\d+) moves, (\d+) mismatches", last), last


def test_a_judge_snapshot_of_a_game_of_one_event_says_one_event() -> None:
    """The desk's and the subscriber's refusal of a snapshot whose events do not fit its seq ('the game's 1 events')."""
    from kiosk.desk.message import _snapshot
    from kiosk.stream.subscriber import _snapshot_events

    body = {"seq": 1, "events": [{}, {}]}
    assert _snapshot_events(body) == "events: expected a list of the game's 1 event"
    assert _snapshot("board 3", 3, body).detail.endswith("events must list the game's 1 event")   # type: ignore[union-attr]
    assert _snapshot_events({"seq": 2, "events": [{}]}) == "events: expected a list of the game's 2 events"
