"""The camera and the board reader in a worker thread, so the screen never waits for a frame or a reading.

The worker captures and reads frames continuously (paced by ``interval_ms`` while nobody waits) and keeps the
latest readings. The event loop asks :meth:`VisionWorker.request` for a *stable* reading after a clock press
and polls :meth:`VisionWorker.results`: a stable reading fuses the latest usable frames square by square (most
of them agree on every square, and the newest, captured at or after the press, contradicts none). When the
board was already still before the press, that is one capture and one reading after the press. A request made while
the camera is known down (:meth:`VisionWorker.camera_down`) is answered "no reading" as soon as one capture tried
after it fails, not after ``timeout_ms``: the press is handed back at once instead of keeping the mover's clock
running for the whole timeout; a capture that gives a frame (the camera is back) lets it wait as any other.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kiosk.devices.camera import CameraError
from kiosk.devices.health import monotonic_ms
from kiosk.vision.reading import (
    BLANK_CHAR,
    EMPTY_CHAR,
    UNSURE_CHAR,
    UNSURE_SQUARE,
    BoardReading,
    SquareReading,
    SquareState,
)

log = logging.getLogger("kiosk.vision")


@dataclass(frozen=True)
class StableReading:
    """Answer to a :meth:`VisionWorker.request`.

    Attributes:
        ticket: the request's ticket. reading: the newest reading of the stable run (None on failure).
        frame_ms: capture time of that frame, on the camera's clock (``frame_clock``: monotonic ms at a real
        table, the simulated ms in a demo; not the kiosk's event time). error: why there is no reading (camera down,
        board never still within ``timeout_ms``). read_ms: time spent reading that frame (ms).
        unusable: on failure, why the newest frame read gave no usable reading (the reader's verdict, e.g.
        "hand over the board", or its failure); "" when the frames were usable or there was no frame.
    """

    ticket: int
    reading: BoardReading | None
    frame_ms: int
    error: str = ""
    read_ms: float = 0.0
    frames: int = 0
    unusable: str = ""


@dataclass
class _Request:
    ticket: int
    since_frame_ms: int   # on the clock the camera stamps frames with (frame_clock)
    deadline: float  # the worker's timer (s)
    frames: int = 0
    down_after: int | None = None  # the camera known down at the request: fail when a capture after this one fails


@dataclass
class _Latest:
    reading: BoardReading | None = None
    frame_ms: int = 0
    run: list[tuple[int, tuple[str, ...], BoardReading]] = field(default_factory=list)


def _square_of(ch: str) -> SquareReading:
    """The square reading the judge settled: ``.`` empty, ``?`` blank, else a lettered tile."""
    if ch == EMPTY_CHAR:
        return SquareReading(SquareState.EMPTY, None, 1.0)
    if ch == BLANK_CHAR:
        return SquareReading(SquareState.BLANK, None, 1.0)
    return SquareReading(SquareState.TILE, ch.upper(), 1.0)


class VisionWorker:
    """Runs ``camera.capture()`` and ``read(frame)`` in a daemon thread.

    Args:
        camera: a :class:`kiosk.devices.camera.Camera` (capture -> (ms, BGR frame); raises CameraError).
        read: frame (BGR uint8 HxWx3) -> :class:`BoardReading` (the board reader, already set up).
        stable_frames: how many of the latest frames must agree on each square (>= 1); the worker weighs
            ``stable_frames + 1`` frames (one doubtful frame per square is outvoted; see :meth:`_fuse`).
        interval_ms: pause between frames while no request waits (ms).
        timeout_ms: a request not answered within this much time on ``timer`` fails with the reason (ms).
        clock: the kiosk's time in ms, which stamps requests (monotonic, wall or simulated).
        frame_clock: the clock the camera stamps its frames with, in ms (default: ``clock``, as a demo's or a
            recording's camera does). A real table's cameras stamp frames with the monotonic clock while its
            requests carry wall-clock times: a request is then moved to ``frame_clock`` by its age on
            ``clock``, so "a frame captured after the press" compares times of one clock.
        timer: elapsed seconds for timeouts and read durations (default :func:`time.monotonic`): real time
            even when ``clock`` is a demo's simulated time that stands still while the worker waits.
        still: the camera's frame changes only when told (a recording): a request whose frame gives no usable
            reading (not usable, or the reader failed on it) fails at once with the reason, instead of waiting
            ``timeout_ms`` for a usable frame that cannot come.

    A request made while the camera is known down fails as soon as one capture tried after it fails (see
    :meth:`request`); ``timeout_ms`` is for a camera that works but gives no stable reading (slow, a moving board).
    """

    def __init__(self, camera: Any, read: Callable[[Any], BoardReading], *, stable_frames: int = 2,
                 interval_ms: int = 250, timeout_ms: int = 15_000, clock: Callable[[], int] = monotonic_ms,
                 timer: Callable[[], float] = time.monotonic, still: bool = False,
                 frame_clock: Callable[[], int] | None = None) -> None:
        if stable_frames < 1:
            raise ValueError(f"stable_frames must be >= 1, got {stable_frames}")
        self.camera = camera
        self.read = read
        self.stable_frames = stable_frames
        self.window = stable_frames + 1 if stable_frames > 1 else 1
        self.interval_ms = interval_ms
        self.timeout_ms = timeout_ms
        self.clock = clock
        self.frame_clock = frame_clock
        self.timer = timer
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._requests: list[_Request] = []
        self._done: list[StableReading] = []
        self._latest = _Latest()
        self._ticket = 0
        self._thread: threading.Thread | None = None
        self.last_error = ""
        self.frames_read = 0   # frames given to the reader
        self.frames_unusable = 0   # of them, those that gave no usable reading (a hand, blur, no board, a reader failure)
        self._overrides: dict[int, str] = {}
        self._last_frame: Any = None
        self._last_frame_ms = -1
        self._last_fused: tuple[BoardReading | None, bool, int, float] | None = None
        self.still = still
        self._no_reading: tuple[int, str] | None = None  # (frame ms, why) of the last frame read, if not usable
        self._frame_fault = ""   # why the newest frame read gave no usable reading (verdict or reader failure)
        self.note = ""   # the newest reading's note (the tiles' lettering unfamiliar: calibrate), logged when it changes
        self._attempts = 0   # captures begun (numbers them: a request known down waits for one begun after it)
        self._capture_failed = False   # the last capture raised CameraError

    def _take_note(self, note: str) -> None:
        """Keep the newest reading's note (:attr:`BoardReading.note`), logged once when it appears or changes."""
        if note and note != self.note:
            log.warning("board reader: %s", note)
        self.note = note

    # ----------------------------------------------------------------------------------------- control
    def start(self) -> VisionWorker:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="vision", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None

    def camera_down(self) -> bool:
        """Whether the camera is known down: its last capture raised CameraError or, before the first capture, its
        ``health()`` says "down" or "absent" (a camera that could not be set up). Never raises."""
        with self._lock:
            if self._attempts:
                return self._capture_failed
        try:
            return getattr(self.camera.health(), "state", "") in ("down", "absent")
        except Exception:  # a camera double without health, or a failing one: not known down
            return False

    def request(self, since_ms: int | None = None, *, at_once_if_down: bool = True) -> int:
        """Ask for a stable reading whose newest frame is captured at or after ``since_ms`` (on ``clock``;
        default: now). Returns a ticket; the answer comes from :meth:`results`.

        With ``at_once_if_down`` and the camera known down (:meth:`camera_down`), the camera is tried once more and
        the request fails as soon as a capture begun after it fails ("the camera is down: ..."), within about one
        capture, not ``timeout_ms``; a capture that gives a frame (the camera is back) lets it wait as usual.
        """
        now = self.clock()
        since = now if since_ms is None else since_ms
        if self.frame_clock is not None:   # the same moment on the clock the camera stamps frames with
            since = self.frame_clock() - (now - since)
        down = at_once_if_down and self.camera_down()
        with self._lock:
            self._ticket += 1
            self._requests.append(_Request(self._ticket, since, self.timer() + self.timeout_ms / 1000,
                                           down_after=self._attempts if down else None))
            ticket = self._ticket
        self._wake.set()
        return ticket

    def cancel(self, ticket: int) -> None:
        with self._lock:
            self._requests = [r for r in self._requests if r.ticket != ticket]

    def results(self) -> list[StableReading]:
        """Answers ready since the last call (never blocks)."""
        with self._lock:
            out, self._done = self._done, []
        return out

    def latest(self) -> BoardReading | None:
        """The most recent reading (for the live board view), or None."""
        with self._lock:
            return self._latest.reading

    def step(self) -> None:
        """Capture and read one frame and answer what can be answered (the thread's body; tests call it)."""
        t0 = self.timer()
        got = self._capture()
        if got is None:
            return
        frame_ms, frame = got
        if frame is self._last_frame and frame_ms == self._last_frame_ms:
            self._answer_from_last(frame_ms)  # read just before a request came: that reading answers it
            self._fail_still()
            self._fail_due(self.last_error or "no new frame")
            return  # the very same frame again: nothing new to read
        self._last_frame, self._last_frame_ms = frame, frame_ms
        t1 = self.timer()
        try:
            reading = self.read(frame)
        except Exception as exc:  # a reader bug must not take the kiosk down: report it, keep going
            # the screen and the recording demo get a sentence; the exception's class and trace go to the log
            log.warning("board reader failed on the frame of %d ms: %s: %s", frame_ms, type(exc).__name__, exc)
            log.debug("board reader failure", exc_info=True)
            self.last_error = f"the board reader failed on this frame: {str(exc).strip() or 'see the kiosk log'}"
            self.frames_read, self.frames_unusable = self.frames_read + 1, self.frames_unusable + 1
            self._no_reading, self._frame_fault = (frame_ms, self.last_error), self.last_error
            self._fail_still()
            self._fail_due(self.last_error)
            return
        read_ms = (self.timer() - t1) * 1000
        self.frames_read += 1
        grid = self._apply_overrides(reading.grid()) if reading.quality.ok else None
        self._no_reading = None if grid is not None else (frame_ms, f"frame not usable: {reading.quality.verdict}")
        self.frames_unusable += grid is None
        self._frame_fault = "" if grid is not None else reading.quality.verdict
        self._take_note(reading.note)
        with self._lock:
            lt = self._latest
            lt.reading, lt.frame_ms = reading, frame_ms
            if grid is None:
                self.last_error = f"frame not usable: {reading.quality.verdict}"
                fused, agreed = None, False
            else:
                lt.run.append((frame_ms, grid, reading))
                del lt.run[:-self.window]
                fused, agreed = self._fuse(lt.run)
                if not agreed:
                    self.last_error = "the frames disagree (the board is moving, or squares are doubtful)"
            keep = []
            for r in self._requests:
                if frame_ms >= r.since_frame_ms and grid is not None:
                    r.frames += 1
                # frames that keep disagreeing after the press: their disputed squares go to the judge
                settled = agreed or r.frames >= 2 * self.window + 1
                if fused is not None and settled and frame_ms >= r.since_frame_ms:
                    self._done.append(StableReading(r.ticket, fused, frame_ms, "", read_ms, r.frames))
                else:
                    keep.append(r)
            self._requests = keep
            self._last_fused = (fused, agreed, frame_ms, read_ms) if grid is not None else None
        self._fail_still()
        self._fail_due(self.last_error or "the board did not keep still", (self.timer() - t0) * 1000)

    def _capture(self) -> tuple[int, Any] | None:
        """One capture attempt, numbered: (frame ms, frame), the camera no longer known down (the requests waiting
        wait for a stable reading as any); or None on CameraError: the camera is known down, the requests made while
        it was fail now (see :meth:`request`), the others when past their timeout."""
        with self._lock:
            self._attempts += 1
            attempt = self._attempts
        try:
            frame_ms, frame = self.camera.capture()
        except CameraError as exc:
            self.last_error, self._frame_fault = f"camera: {exc}", ""
            self._fail_down(attempt, f"the camera is down: {exc}")
            self._fail_due(self.last_error)
            return None
        with self._lock:
            self._capture_failed = False
            for r in self._requests:
                r.down_after = None
        return frame_ms, frame

    def _answer_from_last(self, frame_ms: int) -> None:
        """Answer the requests the last reading already satisfies (its frame captured at or after the request's
        time, the frames agreeing): a request that came just after its frame was read would otherwise wait for
        a frame that never comes (a still camera stamping frames with a virtual clock)."""
        with self._lock:
            last = self._last_fused
            if last is None or not last[1] or last[0] is None:
                return
            fused, _, at, read_ms = last
            self._answer_since(at, fused, "", read_ms, least_frames=1)

    def _fail_still(self) -> None:
        """A ``still`` camera whose frame gave no usable reading: the requests that frame should answer fail
        now with the reason (the same frame would give the same)."""
        if not self.still or self._no_reading is None:
            return
        at, why = self._no_reading
        with self._lock:
            self._answer_since(at, None, why, 0.0)

    def _answer_since(self, at: int, fused: BoardReading | None, why: str, read_ms: float,
                      least_frames: int = 0) -> None:
        """With the lock held: answer every request made at or before ``at`` (a frame's time, ms) with ``fused``
        (None: failed, ``why`` says why), counting at least ``least_frames`` frames; the others wait."""
        keep = []
        for r in self._requests:
            if at >= r.since_frame_ms:
                self._done.append(StableReading(r.ticket, fused, at, why, read_ms, max(r.frames, least_frames),
                                                "" if fused is not None else self._frame_fault))
            else:
                keep.append(r)
        self._requests = keep

    def _fuse(self, run: list[tuple[int, tuple[str, ...], BoardReading]]) -> tuple[BoardReading | None, bool]:
        """The reading of the last frames and whether they agree (None until ``window`` frames are in).

        Square by square, the character most of the ``window`` frames read (a doubtful ``#`` in one frame does
        not outvote the others); the frames agree when every square has such a majority and the newest frame
        contradicts none. So a change on the board (new tiles in the newest frame, the old board in the others)
        waits for more frames, while one doubtful square in each of several frames (glare, a shadow) does not
        keep the board from being still. A square read empty in most frames but as a tile in one is not
        settled by the vote (a tile the reader misses now and then, like a blank, must not vanish silently), nor
        is one the newest frame reads ``#`` (a tile laid just before the press, doubtful in the only frame after
        it). Squares without a clear majority are UNSURE in the reading.
        """
        if len(run) < self.window:
            return None, False
        need = self.window // 2 + 1
        flat = ["".join(g) for _, g, _ in run]
        newest = flat[-1]
        agreed = True
        out: list[SquareReading] = []
        for sq in range(225):
            counts: dict[str, int] = {}
            for g in flat:
                if g[sq] != UNSURE_CHAR:
                    counts[g[sq]] = counts.get(g[sq], 0) + 1
            best = max(counts, key=lambda c: counts[c]) if counts else UNSURE_CHAR
            # (a new tile read "#" in the newest frame was fused as the older frames' empty: a move scored as a pass)
            sure = best != UNSURE_CHAR and counts[best] >= need and \
                sum(1 for n in counts.values() if n == counts[best]) == 1 and \
                not (best == EMPTY_CHAR and (len(counts) > 1 or newest[sq] == UNSURE_CHAR))
            if newest[sq] != UNSURE_CHAR and (not sure or newest[sq] != best):
                agreed = False
            if not sure:
                out.append(UNSURE_SQUARE)
                continue
            ov = self._overrides.get(sq)
            if ov is not None:
                out.append(_square_of(ov))
                continue
            out.append(next(rd.squares[sq] for (_, _, rd), g in zip(reversed(run), reversed(flat)) if g[sq] == best))
        last = run[-1][2]
        return BoardReading(tuple(out), last.homography, last.quality, dict(last.timings_ms), dict(last.doubts)), agreed

    def _fail_down(self, attempt: int, why: str) -> None:
        """Capture ``attempt`` failed: the camera is known down; the requests made while it was known down, and
        made before this capture began, fail now with ``why`` (no reading: the press is handed back at once)."""
        now = self.clock()
        with self._lock:
            self._capture_failed = True
            keep = []
            for r in self._requests:
                if r.down_after is not None and attempt > r.down_after:
                    self._done.append(StableReading(r.ticket, None, now, why, 0.0, r.frames))
                else:
                    keep.append(r)
            self._requests = keep

    def _fail_due(self, why: str, _spent: float = 0.0) -> None:
        now, elapsed = self.clock(), self.timer()
        with self._lock:
            keep = []
            for r in self._requests:
                if elapsed >= r.deadline:
                    self._done.append(StableReading(r.ticket, None, now, f"no stable reading within "
                                                    f"{self.timeout_ms / 1000:.0f} s: {why}", 0.0, r.frames,
                                                    self._frame_fault))
                else:
                    keep.append(r)
            self._requests = keep

    def set_overrides(self, overrides: dict[int, str]) -> None:
        """Squares whose reading the judge has settled (square -> grid character); they no longer count for
        stability (a blank the camera keeps missing must not keep the board from being still)."""
        with self._lock:
            self._overrides = dict(overrides)

    def _apply_overrides(self, rows: list[str]) -> tuple[str, ...]:
        with self._lock:
            ov = dict(self._overrides)
        if not ov:
            return tuple(rows)
        chars = list("".join(rows))
        for sq, ch in ov.items():
            chars[sq] = ch
        return tuple("".join(chars[r * 15:(r + 1) * 15]) for r in range(15))

    def waiting(self) -> bool:
        with self._lock:
            return bool(self._requests)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.step()
            if not self.waiting():
                self._wake.wait(self.interval_ms / 1000)
                self._wake.clear()
            elif self.last_error.startswith("camera"):
                time.sleep(0.05)
