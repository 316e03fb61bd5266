"""``kiosk demo``: the kiosk refereeing a recorded game at a simulated table, end to end.

Simulated players put each recorded move on the simulated physical board, the synthetic camera renders it,
the kiosk reads it in its vision worker, validates and scores it through the journaled referee, and the
players answer the kiosk's prompts as the record says (:mod:`kiosk.app.record_players`). At the end the
kiosk's scores are compared with the record: exit 0 only when every move and the final scores agree; the last
line is ``final: NICK1 S1, NICK2 S2`` (one pair per player, 2-4). With a journal that holds this record's unfinished game (the process was
killed), the demo resumes it where the journal ends.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from kiosk.app.config import data_dir
from kiosk.app.kiosk import Kiosk
from kiosk.app.pin import PinGate
from kiosk.app.reader_setup import ReaderUnavailable, board_prior, make_reader
from kiosk.app.record_players import (
    RecordError,
    RecordPlan,
    RecordPlayers,
    check_history,
    final_table,
    move_line,
    plan_record,
)
from kiosk.app.simtable import SimClock, SimulatedTable
from kiosk.app.vision_worker import VisionWorker
from kiosk.control.words import counted
from kiosk.referee.events import GameStarted
from kiosk.referee.state import OVER
from kiosk.rules.gcg import GcgError, read_gcg
from kiosk.store import GameSession, JournalError, JournalReplayError

DEMO_PIN = "1234"
BUILTIN_GAME = Path(__file__).resolve().parent.parent / "data" / "games" / "builtin.gcg"


@dataclass
class DemoOptions:
    """``kiosk demo`` settings: the record, the journal (None: one per record in the data folder), game-time
    speed (0: as fast as possible), camera frame size (w, h px), realism level, scene seed, a UI hook
    called every loop turn with the kiosk (returns False when the window was closed), and the wall-clock
    seconds without progress after which the demo gives up (s); ``calibration``: the reader's calibration profile
    (a path), or None for its built-in models; ``fresh``: an unfinished game of this record in the journal is
    closed as it stands (kept there) and the record is played from its start."""

    game: Path = BUILTIN_GAME
    journal: Path | None = None
    speed: float = 0.0
    size: tuple[int, int] = (2028, 1520)
    level: str = "typical"
    scene_seed: int = 7
    stable_frames: int = 2
    ui: Callable[[Kiosk], bool] | None = None
    max_seconds: float | None = None
    stall_seconds: float = 90.0
    calibration: Path | None = None
    fresh: bool = False


@dataclass
class DemoResult:
    """Outcome: exit code, the kiosk's final scores, mismatch lines, and figures for the report."""

    code: int
    scores: tuple[int, ...] = ()
    mismatches: tuple[str, ...] = ()
    judge_fixes: int = 0
    judge_undos: int = 0
    frames_read: int = 0
    renders: int = 0
    resumed: bool = False
    seconds: float = 0.0
    frames_unusable: int = 0   # of the frames read, those that gave no usable reading


def record_id(path: Path) -> str:
    """The game id a record's demo game gets in the journal (sha1 of the file's bytes)."""
    return "demo:" + hashlib.sha1(path.read_bytes()).hexdigest()[:16]


def run_demo(opts: DemoOptions, out: Callable[[str], None] = print) -> DemoResult:
    """Referee ``opts.game`` at the simulated table (see module doc). Never raises for bad input: problems
    are printed and give exit code 2 (bad record, journal, reader) or 1 (scores differ, game not finished)."""
    t_start = time.perf_counter()
    demo = _set_up(opts, out)
    if isinstance(demo, DemoResult):
        return demo
    if not _start_or_resume(demo, out):
        return DemoResult(2)
    for note in demo.plan.notes:
        out(note)
    demo.vision.start()
    outcome_done = interrupted = False
    try:
        outcome_done = _referee(demo, opts, out, t_start)
    except RecordError as exc:
        out(f"error: {exc}")
        demo.dead_end = str(exc)
    except JournalError as exc:   # reading it failed (a write that fails pauses the game: see _referee)
        out(f"error: {exc}; every event before it is kept")
    except KeyboardInterrupt:   # Ctrl-C or SIGTERM (kiosk demo turns it into this), windowed or headless alike
        interrupted = True
        out("interrupted")
    finally:
        demo.vision.stop()
    return _report(demo, outcome_done, out, t_start, interrupted)


@dataclass
class _Demo:
    """The parts of one demo run, as :func:`_set_up` wires them."""

    plan: RecordPlan
    gid: str
    journal: Path
    session: GameSession
    clock: SimClock
    resumed: bool
    table: SimulatedTable
    vision: VisionWorker
    kiosk: Kiosk
    players: RecordPlayers
    opts_ui: Callable[[Kiosk], bool] | None = None
    dead_end: str = ""   # why the players cannot play the record on from where it stopped ("": they can)


def _set_up(opts: DemoOptions, out: Callable[[str], None]) -> _Demo | DemoResult:
    """Read the record, open (or resume) the journal, wire the simulated table, the reader and the kiosk; a
    problem is printed and returned as exit code 2."""
    path = Path(opts.game)
    try:
        plan = plan_record(read_gcg(path))
    except (GcgError, OSError, RecordError) as exc:
        out(f"error: {exc}")
        return DemoResult(2)
    gid = record_id(path)
    journal = opts.journal or data_dir() / "demo" / f"{path.stem[:40]}-{gid[5:13]}.sqlite"
    opened = _open_journal(journal, gid, plan.name, opts, out)
    if isinstance(opened, DemoResult):
        return opened
    session, clock, resumed = opened
    table = SimulatedTable(plan.tile_set, clock, scene_seed=opts.scene_seed, level=opts.level, size=opts.size)
    held: list[Kiosk] = []   # the kiosk, once made: its accepted board is the reader's prior, as at a table
    try:
        read = make_reader(plan.tile_set, opts.calibration, prior=partial(board_prior, held, plan.tile_set))
    except ReaderUnavailable as exc:
        out(f"error: {exc}")
        session.close()
        return DemoResult(2)
    vision = VisionWorker(table, read, stable_frames=opts.stable_frames, interval_ms=100, clock=clock)
    kiosk = Kiosk(session, vision, None, PinGate(DEMO_PIN), clock)
    held.append(kiosk)
    players = RecordPlayers(plan, kiosk, table, clock, DEMO_PIN)
    if opts.ui is not None:
        ui = opts.ui

        def keep_screen_live() -> None:
            kiosk.poll()
            ui(kiosk)

        clock.on_wait = keep_screen_live
    return _Demo(plan, gid, journal, session, clock, resumed, table, vision, kiosk, players, opts.ui)


def _open_journal(journal: Path, gid: str, name: str, opts: DemoOptions,
                  out: Callable[[str], None]) -> tuple[GameSession, SimClock, bool] | DemoResult:
    """The demo's journal opened, its unfinished game of this record (``gid``) resumed or, with ``--fresh``, closed;
    (session, the demo's clock, resumed). A journal the demo cannot use is said and returned as exit code 2."""
    try:
        session = GameSession.open(journal)
    except JournalReplayError as exc:   # the demo cannot close it for --fresh either: the file is to go
        out(f"error: journal: {exc}; the demo cannot play that game on: remove {journal} to play the record afresh, "
            "or give --journal another path")
        return DemoResult(2)
    except JournalError as exc:
        out(f"error: journal: {exc}")
        return DemoResult(2)
    clock = SimClock(0, opts.speed)
    resumed = False
    if session.in_game:
        first = session.referee.events[0]
        if not isinstance(first, GameStarted) or first.game_id != gid:
            who = " vs ".join(session.state.players)
            out(f"error: journal {journal} holds an unfinished game of another record ({who}, "
                f"{len(session.referee.events)} events), which this demo does not play on or close: give another "
                f"--journal path, or remove {journal} if that game is of no use")
            session.close()
            return DemoResult(2)
        clock.set_at_least(session.state.last_t + 60_000)
        if opts.fresh:
            if not _close_for_fresh(session, journal, clock(), out):
                return DemoResult(2)
        else:
            done = len(session.referee.events)
            session.resume(clock())
            resumed = True
            out(f"resuming {name} from {journal} after event {done}")
    return session, clock, resumed


def _close_for_fresh(session: GameSession, journal: Path, now: int, out: Callable[[str], None]) -> bool:
    """``--fresh``: close the record's unfinished game in ``journal`` with the scores as they stand (its events
    stay in the journal); False (said) when the referee refuses."""
    from kiosk.referee.events import GameCalled

    scores = ", ".join(f"{n} {v}" for n, v in zip(session.state.players, session.state.scores, strict=False))
    res = session.apply(GameCalled(t=now, reason="kiosk demo --fresh: the record is played afresh", as_it_stands=True))
    if not res.accepted:
        out(f"error: journal {journal}: its unfinished game of this record cannot be closed ({res.reason}); "
            f"remove {journal} (or give another --journal path) to play the record afresh")
        session.close()
        return False
    out(f"the unfinished game in {journal} is closed as it stood ({scores}; its events stay in the journal): "
        f"the record is played afresh")
    return True


def _start_or_resume(demo: _Demo, out: Callable[[str], None]) -> bool:
    """Start the record's game, or put the resumed game's tiles back on the simulated table."""
    plan = demo.plan
    if demo.resumed:
        demo.players.restore_table()
        return True
    res = demo.kiosk.start_game(plan.preset.to_dict(), plan.nicks, 0, demo.gid)
    if not res:
        out(f"error: the kiosk refuses the game: {res.reason}")
        return False
    out(f"refereeing {plan.name}: {' vs '.join(plan.nicks)} under {plan.preset.name}, "
        f"journal {demo.journal}")
    return True


_NOT_TURNS = ("end_rack", "own_rack", "time_penalty", "judge")


def _referee(demo: _Demo, opts: DemoOptions, out: Callable[[str], None], t_start: float) -> bool:
    """The players play the record and the kiosk referees it, until the game is over (True) or the demo stops
    (stuck, window closed, time up: False). Each turn is printed as the kiosk scores it. A journal that cannot
    be written pauses the game as at a table (:func:`kiosk.store.pause_sentence`, said once, and said again
    when it lifts); the players wait, and the demo gives up after ``opts.stall_seconds`` of it."""
    plan, players, kiosk, session = demo.plan, demo.players, demo.kiosk, demo.session
    said_pause = ""
    printed = len([h for h in session.state.history if h.kind not in _NOT_TURNS])
    pos = players.position(session.state)
    phase = session.state.phase
    stalled_since = time.perf_counter()
    while True:
        step = players.step()
        if step.text and step.text != "game over" and (step.done or "judge" in step.text or "refus" in step.text):
            out("  " + step.text)
        for line in kiosk.poll():
            if line.startswith(("no reading", "board problem", "refused")):
                out("  kiosk: " + line)
        if session.pause_reason != said_pause:
            said_pause = session.pause_reason
            out("  " + (said_pause or "journal writable again: the game goes on"))
        st = session.state
        hist = [h for h in st.history if h.kind not in _NOT_TURNS]
        if printed > len(hist):  # the judge took a turn back: print it again when it is played again
            out(f"    (turn {len(hist) + 1} taken back)")
            printed = len(hist)
        while printed < len(hist) and printed < len(plan.events):
            h = hist[printed]
            out(f"{printed + 1:3d} " + move_line(plan.events[printed], h.points, h.total))
            printed += 1
        new_pos = len(hist)  # progress only: the players check the kiosk's moves against the record
        if new_pos != pos or st.phase != phase:
            pos, phase = new_pos, st.phase
            players.reset_retries()
            stalled_since = time.perf_counter()
        elif time.perf_counter() - stalled_since > opts.stall_seconds:
            why = kiosk.view.message or kiosk.view.problem_text or "no progress"
            out(f"  stuck for {opts.stall_seconds:.0f} s at record event {pos + 1} ({st.phase}): {why}")
            demo.dead_end = "" if session.paused else f"stuck at record event {pos + 1}"
            return False
        if step.done:
            demo.dead_end = "" if st.phase == OVER else f"record event {pos + 1}: {step.text}"
            return True
        if opts.ui is not None and not opts.ui(kiosk):
            out("window closed")
            return False
        if opts.max_seconds is not None and time.perf_counter() - t_start > opts.max_seconds:
            out(f"stopped after {opts.max_seconds:.0f} s")
            return False
        if step.text is None:
            time.sleep(0.002)


def _hold_final(demo: _Demo) -> None:
    """Windowed: the final table stays on screen until the window is closed or the judge starts a new game
    (the demo cannot referee that one: it ends there)."""
    ui = demo.opts_ui
    while ui is not None and demo.kiosk.state.phase == OVER and ui(demo.kiosk):
        demo.kiosk.poll()
        time.sleep(0.02)


def _report(demo: _Demo, outcome_done: bool, out: Callable[[str], None], t_start: float,
            interrupted: bool = False) -> DemoResult:
    """Compare the kiosk's game with the record, print the figures and the final table, close the journal.
    The last lines agree with the journal: "final: ..." only for a game it holds as over; else "not finished"
    and how to resume. Exit code 130 after an interrupt, else 0 when all agreed with the record, else 1."""
    plan, players, table, vision, session = demo.plan, demo.players, demo.table, demo.vision, demo.session
    st = session.state
    mismatches = check_history(plan, st)
    scores = st.result.final if st.result else st.scores
    ok = outcome_done and st.result is not None and not mismatches and tuple(scores) == tuple(plan.finals)
    if st.result is not None and tuple(scores) != tuple(plan.finals):
        mismatches.append(f"final scores: kiosk {list(scores)}, record {list(plan.finals)}")
    for m in mismatches:
        out("mismatch: " + m)
    secs = time.perf_counter() - t_start
    unusable = f"{vision.frames_unusable} of them unusable: a hand, blur, no board ..." if vision.frames_unusable \
        else "all usable"
    out(f"vision: {counted(vision.frames_read, 'frame')} read ({unusable}), {counted(table.renders, 'frame')} "
        f"rendered ({table.render_ms / max(1, table.renders):.0f} ms each), judge corrected "
        f"{counted(players.judge_fixes, 'square')} and took back {counted(players.judge_undos, 'misread move')}; "
        f"{secs:.1f} s")
    _hold_final(demo)
    session.close()
    for line in final_table(st, plan.nicks):
        out(line)
    if st.result is not None:
        out("final: " + ", ".join(f"{n} {s}" for n, s in zip(plan.nicks, scores, strict=True)))
    elif demo.dead_end and not interrupted:
        out(f"the journal {demo.journal} keeps the game unfinished, but the record cannot be played on from there "
            f"({demo.dead_end}): run the same command with --fresh to close that game as it stands and play the "
            f"record afresh, or remove {demo.journal}")
    else:
        out(f"the journal {demo.journal} keeps the game unfinished: run the same command again to resume it "
            f"(or with --fresh to play the record afresh)")
    code = 130 if interrupted else 0 if ok else 1
    return DemoResult(code, tuple(scores), tuple(mismatches), players.judge_fixes, players.judge_undos,
                      vision.frames_read, table.renders, demo.resumed, secs, vision.frames_unusable)


__all__ = ["BUILTIN_GAME", "DEMO_PIN", "DemoOptions", "DemoResult", "run_demo", "record_id"]
