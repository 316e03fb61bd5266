"""``kiosk demo --speed N``: the simulated players act at the same game times at every speed. At ``--speed 100`` Bo's
scripted challenge came 100 x the reader's wall-clock time after Ada's play, past the 20 s window ("no play to hold
or challenge now"), and the run ended "run the same command again to resume it"; every re-run (the default demo
resumes its journal) failed the same way. A record the players cannot play on from its journal now says so and
how to start afresh (``--fresh``, or remove the journal); ``--speed`` is bounded (1e16 overflowed SQLite)."""

from __future__ import annotations

import time

import pytest

from kiosk.app.record_demo import BUILTIN_GAME, DemoOptions, run_demo
from kiosk.app.simtable import SimClock
from kiosk.cli import main
from kiosk.store import Journal


def _up_to_the_challenges(tmp_path):
    """The built-in record's first 12 lines: three plays, a failed challenge, a phony withdrawn, a pass, a play;
    the record then ends with the game not over."""
    game = tmp_path / "short.gcg"
    game.write_text("".join(BUILTIN_GAME.read_text(encoding="utf-8").splitlines(keepends=True)[:13]),
                    encoding="utf-8")
    return game


def test_the_players_challenge_in_time_at_speed_100_and_a_dead_end_says_how_to_start_afresh(tmp_path):
    game, journal = _up_to_the_challenges(tmp_path), tmp_path / "j.sqlite"
    lines: list[str] = []
    res = run_demo(DemoOptions(game=game, journal=journal, speed=100, size=(1014, 760)), out=lines.append)
    said = "\n".join(lines)
    assert "no play to hold or challenge now" not in said, said
    assert "  4 Ada: " in said and "  8 Bo: 11A RIDS" in said, said   # the challenges were made in time
    assert res.code == 1 and lines[-2].startswith("not finished: ")
    assert "run the same command again to resume it" not in said
    assert "the record cannot be played on from there" in lines[-1] and "--fresh" in lines[-1]
    assert f"or remove {journal}" in lines[-1]
    again: list[str] = []   # run again: it resumes and meets the same end, said the same way
    assert run_demo(DemoOptions(game=game, journal=journal, size=(1014, 760)), out=again.append).code == 1
    assert any(ln.startswith("resuming ") for ln in again) and "--fresh" in again[-1]
    fresh: list[str] = []
    run_demo(DemoOptions(game=game, journal=journal, size=(1014, 760), fresh=True), out=fresh.append)
    assert fresh[0].startswith(f"the unfinished game in {journal} is closed as it stood (Ada ")
    assert fresh[1].startswith("refereeing ")
    with Journal(journal, readonly=True) as j:   # the first game kept, closed; the second played from the start
        games = j.games()
        assert len(games) == 2 and games[0].finished_ms is not None
        assert j.events(games[0].id)[-1].type == "game_called"


def test_game_time_stands_still_while_nobody_acts_at_any_speed():
    clock = SimClock(1_000, speed=100)
    time.sleep(0.05)
    assert clock() == 1_000   # the kiosk reading a press takes the machine's time, not the game's
    t0 = time.monotonic()
    clock.advance(3_000)      # a player's 3 s: 30 ms of wall time at 100x
    assert clock() == 4_000 and 0.02 < time.monotonic() - t0 < 1.0
    clock.set_at_least(2_000)
    assert clock() == 4_000


@pytest.mark.parametrize("speed", ["1e16", "-1", "0.001", "nan", "inf", "5000"])
def test_an_unworkable_speed_is_a_usage_error(capsys, speed):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--headless", "--speed", speed])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--speed: expected 0 (as fast as possible) or a number from 0.1 to 1000" in err and "Traceback" not in err
