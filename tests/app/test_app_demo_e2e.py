"""The demo end to end with the real board reader: recorded real games re-refereed from their camera frames,
corpus games refereed through the synthetic camera, and a killed demo resumed from its journal."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from common_fixtures import TEMPLATES_PROFILE

from kiosk.app.recording import run_recording
from kiosk.rules.gcg import read_gcg
from kiosk.store import Journal
from shared_data import HAVE_SHARED, SHARED, needs_shared

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ROOT / "kiosk" / "data" / "games" / "builtin.gcg"


def _shipped_profile(out: Path, templates: Path, tiles: str, n_synth: int, notes: str) -> float:
    """Stands in for ``kiosk.vision.train.build_profile`` when the recording demo calibrates itself: the
    profile that call makes from the letter images (tests/fixtures/profiles/scrabscrap-templates.json, built by
    the same trainer from the same images, once; see its README), so the test trains nothing."""
    assert templates == SHARED / "photos" / "scrabscrap" / "letter-templates" / "default"
    assert (tiles, n_synth) == ("german", 20)
    shutil.copyfile(TEMPLATES_PROFILE, out)
    return float("nan")


@pytest.mark.slow
@needs_shared
@pytest.mark.parametrize("game", ["game01", "game03"])
def test_recording_re_refereed_to_every_recorded_score(game, tmp_path, monkeypatch):
    """game01: 27 moves; game03: two phonies challenged off (the judge confirms the recorded rulings)."""
    from kiosk.vision import train

    monkeypatch.setattr(train, "build_profile", _shipped_profile)
    lines: list[str] = []
    code = run_recording(SHARED / "photos" / "scrabscrap" / game, journal=tmp_path / "j.sqlite", out=lines.append)
    csv_rows = (SHARED / "photos" / "scrabscrap" / game / "game.csv").read_text(encoding="utf-8").splitlines()
    want = [int(x) for x in re.split(r",\s*", csv_rows[-1])[6:8]]
    assert code == 0, "\n".join(lines)
    assert not [ln for ln in lines if "MISMATCH" in ln or ln.startswith("mismatch")]
    assert [int(x) for x in re.findall(r"-?\d+", lines[-1])[-2:]] == want
    # game03 ends with an out-play, which stands (the event counted no unplayed tiles); the others are stopped
    # by the director where the record ends, with the scores as they stand
    closing = "ends with Stefan's out-play, not challenged" if game == "game03" else "ends here: the director stops"
    assert any(ln.startswith("  the record " + closing) for ln in lines), "\n".join(lines)
    assert re.fullmatch(r"final: \S+ \d+, \S+ \d+", lines[-1])


def _demo(args: list[str], timeout: float) -> subprocess.Popen:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "kiosk.cli", "demo", "--headless", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


# Time bounds in these end-to-end tests only end a broken run: 56 s and 258 s were measured for the two below on
# the shared 2-core machine at load average 20-48, against pytest's default limit of 300 s a test.
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_killed_demo_resumes_from_its_journal(tmp_path):
    journal = tmp_path / "demo.sqlite"
    args = ["--game", str(BUILTIN), "--journal", str(journal), "--size", "1014x760"]
    p = _demo(args, 60)
    deadline = time.monotonic() + 300
    seen = ""
    assert p.stdout is not None
    while time.monotonic() < deadline:  # kill it in the middle of the game, as a power cut would
        line = p.stdout.readline()
        if not line:                    # the demo ended (or died) before move 4
            break
        seen += line
        if re.match(r"\s+4 ", line):
            break
    p.send_signal(signal.SIGKILL)
    p.wait(10)
    assert re.search(r"^\s+4 ", seen, re.M), seen
    with Journal(journal) as j:
        game = j.unfinished_game()
        assert game is not None
        done_before = len(j.events(game))
    p2 = _demo(args, 300)
    out, _ = p2.communicate(timeout=600)
    assert f"after event {done_before}" in out, out
    assert "refereeing" not in out  # not started over
    assert re.search(r"^final: Ada \d+, Bo \d+$", out.strip().splitlines()[-1]), out
    with Journal(journal) as j:
        assert len(j.games()) == 1  # the same game, resumed
        kinds = [e.type for e in j.events(j.games()[0].id)]
    assert kinds.count("game_started") == 1 and "kiosk_resumed" in kinds


ENGLISH_REAL = sorted((SHARED / "corpus" / "gcg" / "real").glob("*.gcg")) if HAVE_SHARED else []


def _short_english_games(n: int) -> list[Path]:
    """The ``n`` shortest complete English records (fewest turns) that the rules replay accepts."""
    from kiosk.app.record_players import RecordError, plan_record

    out = []
    for f in ENGLISH_REAL:
        try:
            game = read_gcg(f)
            if any(ord(c) > 127 for ev in game.events for c in ev.word + ev.rack):
                continue
            plan = plan_record(game)
        except (RecordError, ValueError, OSError):
            continue
        if plan.ended is not None:
            out.append((len(plan.events), f))
    return [f for _, f in sorted(out)[:n]]


@pytest.mark.slow
@pytest.mark.timeout(900)
@needs_shared
def test_headless_demo_referees_real_games_to_their_recorded_scores(tmp_path):
    from kiosk.app.record_demo import DemoOptions, run_demo

    games = _short_english_games(10)
    assert len(games) == 10
    failures = []
    undos = fixes = 0
    for f in games:
        lines: list[str] = []
        res = run_demo(DemoOptions(game=f, journal=tmp_path / f"{f.stem}.sqlite", size=(1014, 760),
                                   stall_seconds=90), out=lines.append)
        undos += res.judge_undos
        fixes += res.judge_fixes
        if res.code != 0:
            why = [ln.strip() for ln in lines if ln.startswith(("mismatch", "error")) or "stuck" in ln
                   or "still cannot" in ln or "not finished" in ln or "keeps" in ln]
            failures.append(f"{f.name}: " + "; ".join(why)[:400])
    # Issue 7's bar: every game of the ten ends with every move and the final scores of its record. Where the
    # camera misreads a move, the players see it on the screen and the judge takes it back and corrects the
    # squares, as at a real table (counted, and printed by the demo); the kiosk itself never scores a guess
    # it knows to be doubtful.
    assert not failures, f"{len(failures)} of {len(games)} games differ from the record:\n" + "\n".join(failures)
    # ... and the reader must not need more help than it does at this frame size (2026-11-29, the square
    # network: 0 moves taken back, 35 squares corrected over the ten games; 2026-12-06, reading with the
    # accepted board as prior as at a table: 0 and 4): lower these as it improves.
    assert undos <= 1 and fixes <= 12, f"the judge took back {undos} moves and corrected {fixes} squares"
