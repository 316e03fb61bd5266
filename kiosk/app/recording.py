"""``kiosk demo --recording DIR``: re-referee a real game recorded by the ScrabScrap camera system.

A recording folder holds ``game.ini`` (player names, the board's corners in the frame), ``game.csv`` (every
button press: ``Move, Button, State, Coord, Word, Points, Score1, Score2``) and ``image-N.jpg`` (the frame
taken at move N); ``game.gcg`` (optional) gives the blanks' letters the camera cannot know. The recorded frames
are the kiosk's camera, the recorded presses its clock, the recorded blank letters and challenge outcomes answer
its prompts; the kiosk reads, validates and scores every move itself and compares with the record. Where the
kiosk asks the judge about squares, the judge answers from what a person at the table sees, the board the
record's ``game.csv`` has built (:mod:`kiosk.app.record_judge`; never a truth file), counted and reported.
A frame that is missing, not an image, or gives no usable reading (black, another size, turned, no board) is
named and the judge enters that move from the record (:mod:`kiosk.app.record_frames`); the game goes on.
Without ``warp-coord`` the reader finds the board and keeps it. The record uses German tiles and its event's
rules: 30 minutes each, 10 points per started minute
of overtime, a failed challenge costs the challenger 10 points, a successful one withdraws the play, no
adjustment for unplayed tiles (the event's scorer gave the last totals as the finals, after an out-play too).

Coordinates in ``game.csv``: letter first = across from that row letter and column number (``H4`` is the
standard ``8D``); number first = down (``5G`` is ``E7``).
"""

from __future__ import annotations

import csv
import re
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from kiosk.app.kiosk import Kiosk
from kiosk.app.pin import PinGate
from kiosk.app.reader_setup import ReaderUnavailable, board_prior, make_reader, recording_profile
from kiosk.app.record_corners import corners_misfit
from kiosk.app.record_end import close_at_record_end, last_line, totals_before_end
from kiosk.app.record_frames import (
    RecordingCamera,
    enter_from_record,
    frame_fault,
    frame_lines,
    unusable_reading,
    vision_line,
)
from kiosk.app.record_judge import correct_from, table_boards
from kiosk.app.recorded_moves import standard_coordinate
from kiosk.app.recording_files import (
    TEMPORARY_JOURNAL,
    Press,
    Recording,
    RecordingError,
    check_recording_file,
    csv_problem,
    gcg_problem,
    journal_path,
    read_ini,
    recording_text,
)
from kiosk.app.simtable import SimClock
from kiosk.app.vision_worker import VisionWorker
from kiosk.control.words import counted
from kiosk.referee.presets import Preset, load_preset
from kiosk.referee.state import DESIGNATING, PLAYING, REMOVING
from kiosk.rules.gcg import EventKind, GcgError, GcgEvent, GcgVisitor, read_gcg
from kiosk.rules.replay import replay_game
from kiosk.rules.tiles import GERMAN
from kiosk.store import GameSession, JournalError
from kiosk.vision.game import GamePrior
from kiosk.vision.reading import BoardReading

PIN = "1234"
SIDES = ("left", "right")
MOVE_MS = 30_000


def read_recording(folder: str | Path) -> Recording:
    """Parse a recording folder (see module doc). Raises :class:`RecordingError` naming file and line."""
    d = Path(folder)
    ini_path, csv_path = d / "game.ini", d / "game.csv"
    for p in (ini_path, csv_path):
        check_recording_file(p)
    names, corners = read_ini(ini_path)
    presses: list[Press] = []
    rows = csv.reader(recording_text(csv_path).splitlines(), skipinitialspace=True)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:   # a field over the csv module's limit, a NUL byte
            raise RecordingError(f"{csv_path}:{rows.line_num}: not a line of the recording's table "
                                 f"({csv_problem(exc)})") from None
        i = rows.line_num
        if i == 1 or not row or not "".join(row).strip():
            continue
        cells = [c.strip() for c in row]
        if len(cells) < 8:
            raise RecordingError(f"{csv_path}:{i}: expected 8 columns (Move, Button, State, Coord, Word, Points, "
                                 f"Score1, Score2), got {len(cells)}")
        numbers = {}
        for col, name in ((0, "Move"), (5, "Points"), (6, "Score1"), (7, "Score2")):
            text_value = cells[col] or ("0" if col == 5 else "")
            try:
                numbers[col] = int(text_value)
            except ValueError:
                raise RecordingError(f"{csv_path}:{i}: the {name} column holds {cells[col]!r}, "
                                     "not a whole number") from None
        presses.append(Press(i, numbers[0], cells[1].lower(), cells[2].upper(), cells[3], cells[4],
                             numbers[5], (numbers[6], numbers[7])))
        if presses[-1].button not in ("green", "red", "yellow", "doubt0", "doubt1", "reset", "eog"):
            raise RecordingError(f"{csv_path}:{i}: unknown button {cells[1]!r}")
    if not presses:
        raise RecordingError(f"{csv_path}: no presses recorded")
    rec = Recording(d, names, corners, presses)
    if corners is not None:
        why = corners_misfit(corners, [rec.frame_path(move) for move in dict.fromkeys(p.move for p in presses)])
        if why is not None:
            raise RecordingError(f"{ini_path}: [default] warp-coord: {why}")
    rec.gcg_problem = gcg_problem(d / "game.gcg")
    rec.blanks = _blank_letters(rec)
    return rec


class _PlayedWords(GcgVisitor[list[str]]):
    """The words of a record's plays in file order (GCG notation: lower case = a blank)."""

    def __init__(self) -> None:
        self.words: list[str] = []

    def visit_event(self, event: GcgEvent) -> None:
        if event.kind is EventKind.PLAY:
            self.words.append(event.word)

    def result(self) -> list[str]:
        return self.words


def _blank_letters(rec: Recording) -> dict[int, str]:
    """Letters of the blanks (``_`` in game.csv) from game.gcg, matched by word shape in order."""
    out: dict[int, str] = {}
    gcg = rec.folder / "game.gcg"
    plays: list[str] = []
    if gcg.is_file() and rec.gcg_problem is None:
        try:
            plays = read_gcg(gcg, _PlayedWords())
        except (GcgError, OSError):
            plays = []
    used: set[int] = set()
    for p in rec.presses:
        if p.button not in ("green", "red") or "_" not in p.word and not any(c.islower() for c in p.word):
            continue
        pattern = re.compile("".join("[a-zäöü]" if c == "_" else re.escape(c) if c == "." else
                                     f"[{c}{c.upper()}]" if c.islower() else f"[{c}.]" for c in p.word) + "$")
        letters = [c.upper() for c in p.word if c.islower()]
        for j, w in enumerate(plays):
            if j not in used and len(w) == len(p.word) and pattern.match(w):
                used.add(j)
                letters = [c.upper() for c, pc in zip(w, p.word) if pc == "_" or pc.islower()]
                break
        out[p.line] = "".join(letters)
    return out


def record_errors(rec: Recording) -> list[str]:
    """Where the recording's own ``game.gcg`` (the same game with racks) is wrong: one line per problem the
    rules replay finds in it (mis-added totals, a move scored other than its tiles score, a tile not in the
    rack), naming file and line; the kiosk referees from ``game.csv`` and says so. Empty without game.gcg and
    for one that cannot be used (:attr:`Recording.gcg_problem`: said before the game)."""
    gcg = rec.folder / "game.gcg"
    if not gcg.is_file() or rec.gcg_problem is not None:
        return []
    try:
        res = replay_game(read_gcg(gcg), GERMAN)
    except (GcgError, OSError, ValueError) as exc:
        return [f"record: {gcg} cannot be read ({exc}); the kiosk followed game.csv"]
    return [f"record is wrong: {p} (the kiosk followed game.csv, whose scores it reproduces)" for p in res.problems]


def recording_preset(tile_set: str = "german") -> Preset:
    """The rules the recordings' event applied (see module doc). Unplayed tiles are not counted: the event's
    own scorer gave the recorded totals as the finals, also after an out-play (game03)."""
    p = load_preset("nsf")
    return replace(p, name="scrabscrap-2019", tile_set=tile_set,
                   clock=replace(p.clock, game_ms=30 * 60_000, overtime_penalty_points=10, overtime_unit_ms=60_000),
                   challenge=replace(p.challenge, rule="custom", wrong_bonus=0, wrong_penalty=10, window_ms=20_000,
                                     off_centre_challengeable=False),
                   end=replace(p.end, out_adjustment="none", no_out_adjustment="none"),
                   description="German club tournament 2019 as recorded: 30 min, failed challenge -10")


class _Referee:
    """Drives the kiosk through the recorded presses and compares every score."""

    def __init__(self, rec: Recording, kiosk: Kiosk, camera: RecordingCamera, clock: SimClock,
                 out: Callable[[str], None]) -> None:
        self.rec, self.kiosk, self.camera, self.clock, self.out = rec, kiosk, camera, clock, out
        self.mismatches: list[str] = []
        self.judge_fixes = 0
        self.frame_problems: list[str] = []  # "image-5.jpg: missing" ... (moves the judge entered)
        self.unrefereed: list[str] = []      # the same for moves nobody could enter (the folder has no frame)
        self.shown: list[str] = []           # the frames the moves showed (file names, in move order)
        self.table, self.interventions = table_boards(rec.presses), 0

    def wait(self, timeout_s: float = 60.0) -> None:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            self.kiosk.poll()
            if self.kiosk.pending is None:
                return
            time.sleep(0.002)

    def move(self, p: Press) -> None:
        k = self.kiosk
        player = 0 if p.button == "green" else 1
        self.shown.append(self.rec.frame_name(p.move).name)
        fault = self._show_frame(p)   # the move's frame missing or unreadable, with no good frame to go back to
        if fault is None:
            return
        self.clock.advance(MOVE_MS)
        for attempt in range(3):
            said = k.press(SIDES[player])
            self.wait()
            problem = self._answer(said)
            bad = unusable_reading(k.view.unusable_frame, k.view.problem_squares, self.camera.path)
            if not bad and not fault:
                self.camera.mark_good()
            if not problem:
                break
            if (fault or bad) and self._judge_enters(p, fault or bad):
                fault = ""   # named and entered once; the press again takes his entry
                continue
            seen = self.table.get(p.line)
            squares = k.view.problem_squares
            details = list(dict.fromkeys(a.detail for a in k.view.problem))
            self.out(f"  move {p.move}: the kiosk asks the judge: {problem} ({'; '.join(details[:3]) or 'no squares'})")
            if seen is None or not squares or attempt == 2:
                break
            self.clock.advance(10_000)  # the judge comes and looks at the table
            self.judge_fixes, self.interventions = self.judge_fixes + len(squares), self.interventions + 1
            self.out(f"  move {p.move}: judge intervention {self.interventions}: {correct_from(seen, k, squares, PIN)}")
            k.view.problem_text = ""
        if k.state.phase == DESIGNATING:
            letters = self.rec.blanks.get(p.line, "")
            for i, sq in enumerate(k.state.pending_blanks):
                letter = letters[i] if i < len(letters) else ""
                res = k.act("designate", player=player, square=sq, letter=letter or "E")
                if not letter:
                    self.out(f"  move {p.move}: the record does not say the blank's letter; designated E")
                if not res:
                    self.out(f"  move {p.move}: designation refused: {res.reason}")
        self.compare(p, {"play", "pass", "exchange"})

    def _answer(self, said: str) -> str:
        """What the kiosk answered this press, "" when it took the move: its problem once the reading came
        (never one left from an earlier move), or why it did not read the board at all."""
        k = self.kiosk
        if said != "reading":
            return f"the press was not taken: {said}"
        if k.pending is not None:
            return "the board reader gave no answer within 60 s"
        return k.view.problem_text

    def _judge_enters(self, p: Press, why: str) -> bool:
        """The frame of move ``p`` gave no usable reading (``why`` names it): the last good frame goes back
        before the camera and the judge enters the move from the record, as for a missing frame. With no good
        frame yet (the first move's frame, or the first few, missing or bad) the camera shows nothing usable, the
        press got no reading, and his entries are the move over the referee's board (empty before the first
        move; :func:`~kiosk.app.record_frames.enter_from_record`). False when he cannot enter it."""
        k = self.kiosk
        down = not self.camera.restore()
        if down:
            if not k.view.camera_failed:   # a reading came after all: nothing for the camera-down entry
                self._not_refereed(p, why)
                return False
            self.camera.dark(self._a_frame())
        self.frame_problems.append(why)
        self.clock.advance(10_000)  # the judge comes and looks at the table
        self.judge_fixes += enter_from_record(k, p, PIN, why, self.out, camera_down=down)
        self.interventions += 1
        k.view.problem, k.view.problem_text, k.view.problem_squares = (), "", ()
        return True

    def _a_frame(self) -> Path | None:
        """A recorded frame that is there (for the size of the camera's dark frame), or None."""
        return next((f for f in (self.rec.frame_path(m) for m in dict.fromkeys(q.move for q in self.rec.presses))
                     if f is not None), None)

    def _not_refereed(self, p: Press, why: str, because: str = "the judge cannot enter it") -> None:
        """Move ``p``'s frame gave nothing to read (``why``) and the move cannot be entered (``because``): say so."""
        self.unrefereed.append(why)
        self.out(f"  move {p.move}: {why}, and {because}: the move is not refereed")

    def _show_frame(self, p: Press) -> str | None:
        """Put move ``p``'s frame before the camera. A missing or unreadable frame is named, and the judge
        enters the move's tiles from the record over the last good frame, as at a table whose camera failed;
        "" then, or when the frame is there. With no good frame yet to go back to, the camera shows nothing
        usable and the fault is returned: the press gets no reading, and the judge enters the move after it
        (:meth:`_judge_enters`). None when the folder holds no frame at all: nothing was recorded by a camera,
        so nothing is refereed (each move is named and counted as a mismatch)."""
        why = frame_fault(self.rec.frame_name(p.move), self.camera)
        if not why:
            return ""
        if not self.camera.restore():
            like = self._a_frame()
            if like is None:
                self._not_refereed(p, why, "the recording holds no frame at all")
                self.mismatches.append(f"move {p.move}: no frame ({why})")
                return None
            self.camera.dark(like)
            return why
        self.frame_problems.append(why)
        n = enter_from_record(self.kiosk, p, PIN, why, self.out)
        if n:
            self.judge_fixes += n
            self.interventions += 1
        return ""

    def compare(self, p: Press, kinds: set[str]) -> None:
        st = self.kiosk.state
        h = st.history[-1] if st.history else None
        label = f"move {p.move} ({self.rec.names[0 if p.button in ('green', 'doubt1') else 1]} {p.coord} {p.word})"
        if h is None or h.kind not in kinds:
            self.mismatches.append(f"{label}: the kiosk recorded no {'/'.join(sorted(kinds))} "
                                   f"({self.kiosk.view.message or st.phase})")
            self.out(f"{p.move:3d} {p.coord:>8} {p.word:<10} record {p.points:+4d} | kiosk: nothing scored  MISMATCH")
            return
        lp = st.last_play
        got = f"{lp.coordinate} {lp.word}" if h.kind == "play" and lp is not None else h.kind
        ok = h.points == p.points and tuple(st.scores) == p.scores
        try:
            where = p.coord if p.coord in ("-", "--") else f"{p.coord}={standard_coordinate(p.coord)}"
        except ValueError:
            where = p.coord
        self.out(f"{p.move:3d} {where:>8} {p.word:<10} record {p.points:+4d} = {p.scores[0]}:{p.scores[1]} | "
                 f"kiosk {got} {h.points:+d} = {st.scores[0]}:{st.scores[1]}  {'ok' if ok else 'MISMATCH'}")
        if h.points != p.points:
            self.mismatches.append(f"{label}: recorded {p.points:+d}, the kiosk scores {h.points:+d}")
        elif tuple(st.scores) != p.scores:
            self.mismatches.append(f"{label}: recorded totals {p.scores[0]}:{p.scores[1]}, the kiosk has "
                                   f"{st.scores[0]}:{st.scores[1]}")

    def run(self) -> None:
        k = self.kiosk
        for p in self.rec.presses:
            st = k.state
            if p.button in ("green", "red"):
                if st.phase == REMOVING:  # the record resumed play: the judge saw the tiles go
                    k.act("judge_unlock", pin=PIN)
                    k.act("confirm_removed")
                self.move(p)
            elif p.button == "yellow":
                self.clock.advance(3_000)
                if p.state.startswith("P") and st.phase == PLAYING and st.window_open and st.hold_by is None:
                    k.act("hold", player=st.on_move)
                elif p.state.startswith("S") and st.phase == REMOVING:
                    k.act("judge_unlock", pin=PIN)
                    k.act("confirm_removed")
                elif p.state.startswith("S") and st.hold_by is not None:
                    k.act("release", player=st.hold_by)
            elif p.button.startswith("doubt"):
                challenger = int(p.button[-1])
                self.clock.advance(2_000)
                res = k.act("challenge", player=challenger)
                if not res:
                    self.out(f"  move {p.move}: challenge refused: {res.reason}")
                self.clock.advance(30_000)
                withdrawn = p.coord.strip() == "--"
                k.act("rule", acceptable=not withdrawn, pin=PIN, judge="recorded ruling")
                self.compare(p, {"withdrawn"} if withdrawn else {"challenge_penalty"})
            elif p.button in ("reset", "eog"):
                self.out(f"  move {p.move}: the recording ends the game ({p.button})")
                break
        if self.mismatches:   # a judge closes a game whose score is settled; this one waits for the director
            self.out("  the record ends here; the game stays open: the kiosk and the record disagree (below)")
        else:
            close_at_record_end(k, self.rec.names, PIN, self.out)


def _recording_reader(rec: Recording, folder: Path, calibration: Path | None, out: Callable[[str], None],
                      prior: Callable[[], GamePrior]) -> Callable[[np.ndarray], BoardReading] | None:
    """The game-aware reader (``prior``: the kiosk's board), calibrated by ``calibration`` or the recording's
    letter images; None when it cannot be set up (the reason is printed)."""
    try:
        from kiosk.vision.profile import ProfileError, load_profile

        profile_path = calibration or recording_profile(folder, out)
        if profile_path is None:   # said, not silent: the figures differ (README, "Trying it")
            out(f"no calibration: no letter images beside the recording ({folder.parent / 'letter-templates' / 'default'})"
                " and no --calibration; the reader reads with its built-in models")
        profile = load_profile(profile_path) if profile_path else None
        return make_reader(GERMAN, profile=profile, corners=rec.corners, prior=prior)
    except (ValueError, ProfileError) as exc:
        out(f"error: calibration: {exc}")
        return None
    except ReaderUnavailable as exc:
        out(f"error: {exc}")
        return None


def run_recording(folder: str | Path, *, journal: Path | None = None, out: Callable[[str], None] = print,
                  calibration: Path | None = None) -> int:
    """Re-referee a recording (see module doc); prints every move, the mismatches and ``final: ...`` last.
    ``calibration``: a profile for the reader; default: built from the recording's letter images
    (:func:`~kiosk.app.reader_setup.recording_profile`). ``journal``: the journal to keep; None: a temporary one,
    removed when the run ends however it ends (an exception, KeyboardInterrupt too): a recording is refereed from
    its first move, so the recording itself is the record. Returns 0 when every recorded move and total agree,
    1 when not, 2 for a bad folder / reader / journal."""
    t0 = time.perf_counter()
    try:
        rec = read_recording(folder)
    except RecordingError as exc:
        out(f"error: {exc}")
        return 2
    if rec.gcg_problem is not None:   # optional: the game is refereed from game.csv without it
        out(f"warning: {rec.gcg_problem}: game.gcg is left out (the kiosk follows game.csv alone; a blank's letter "
            "only game.gcg gives is not known)")
    clock = SimClock(0, 0.0)
    held: list[Kiosk] = []   # the kiosk, once made: its accepted board is the reader's prior
    read = _recording_reader(rec, Path(folder), calibration, out, partial(board_prior, held, GERMAN))
    if read is None:
        return 2
    with journal_path(journal) as path:
        try:
            session = GameSession.open(path)
        except JournalError as exc:
            out(f"error: journal: {exc}")
            return 2
        try:
            if session.in_game:
                out(f"error: journal {path} holds an unfinished game: a recording is refereed from its first move, "
                    f"never resumed; give another --journal path (`kiosk journal show {path}` shows what it holds)")
                return 2
            shown = f"journal {path}" if journal is not None else TEMPORARY_JOURNAL
            return _referee_recording(rec, session, read, held, clock, shown, out, t0)
        finally:
            session.close()


def _referee_recording(rec: Recording, session: GameSession, read: Callable[[np.ndarray], BoardReading],
                       held: list[Kiosk], clock: SimClock, shown: str, out: Callable[[str], None],
                       t0: float) -> int:
    """The kiosk on ``session`` refereeing ``rec`` (``shown``: the journal as the first line names it); the exit
    code of :func:`run_recording`."""
    camera = RecordingCamera(clock)
    worker = VisionWorker(camera, read, stable_frames=1, interval_ms=50, clock=clock, still=True)
    kiosk = Kiosk(session, worker, None, PinGate(PIN), clock)
    held.append(kiosk)
    res = kiosk.start_game(recording_preset().to_dict(), rec.names, 0, f"recording:{rec.folder.name}")
    if not res:
        out(f"error: the kiosk refuses the game: {res.reason}")
        return 2
    out(f"re-refereeing {rec.folder}: {rec.names[0]} vs {rec.names[1]} (German tiles, failed challenge -10); "
        f"{shown}")
    ref = _Referee(rec, kiosk, camera, clock, out)
    worker.start()
    try:
        ref.run()
    except JournalError as exc:   # reading it failed (a write that fails pauses the game; its moves are refused)
        out(f"error: {exc}; every event before it is kept")
    finally:
        worker.stop()
    return _report(ref, time.perf_counter() - t0, kept=shown != TEMPORARY_JOURNAL)


def _report(ref: _Referee, seconds: float, kept: bool = True) -> int:
    """The closing lines, the judge's and the last one at the end; the exit code (0: every move agrees)."""
    rec, st, out = ref.rec, ref.kiosk.state, ref.out
    last = rec.presses[-1].scores
    for m in ref.mismatches:
        out("mismatch: " + m)
    totals = totals_before_end(st)
    if totals != last:
        out(f"the kiosk's totals {totals[0]}:{totals[1]} differ from the recorded {last[0]}:{last[1]}")
    for line in record_errors(rec):
        out(line)
    for line in frame_lines(rec.folder, rec.corners is not None, ref.frame_problems, ref.unrefereed):
        out(line)
    out(vision_line(ref.shown, ref.frame_problems, ref.unrefereed, seconds))
    withdrawn = sum(1 for h in st.history if h.kind == 'withdrawn')
    out(f"judge: {counted(ref.interventions, 'intervention')} ({counted(ref.judge_fixes, 'square')} corrected); "
        f"{counted(withdrawn, 'move')} taken back (phonies withdrawn after a challenge, as recorded)")
    out(last_line(rec.names, st, kept))
    return 0 if not ref.mismatches and totals == last else 1
