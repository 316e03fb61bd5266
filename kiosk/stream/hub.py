"""The stream hub: takes the referee's accepted events, keeps the judge (live) and public (delayed) views,
and hands every message to the sinks (MQTT, live web page, overlay files, records).

Threading: :meth:`StreamHub.publish` is what the referee loop calls after an event is accepted (and
journaled); it only appends to an in-memory inbox and returns at once - no I/O, no lock held for long, so the
referee never waits for the network or the disk. The hub's own thread (:meth:`start`) does the rest: it
replays each event into a mirror :class:`~kiosk.referee.Referee` per channel (so the stream depends only on
the accepted event dicts), builds the messages (:mod:`kiosk.stream.envelope`), releases public events when
the broadcast delay has passed, emits the 1 Hz clock ticks and calls the sinks. A sink that fails is logged
and skipped; it never stops the hub or the referee.

Broadcast delay: the judge channel gets every event at once; the public channel gets it ``delay_ms`` later
(timed on the monotonic clock: a wall clock set back by NTP held the public channel and the ticks until it
came round again, one set forward let the held events out at once), with clocks shown as they were
``delay_ms`` ago. Messages carry wall-clock ``ts``. Events fed by :meth:`seed` after a kiosk
restart are released to the public no earlier than ``delay_ms`` after the restart, so nothing reaches the
public early even when the original acceptance time is unknown.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from kiosk.devices.health import monotonic_ms
from kiosk.referee.events import Event, EventError, GameStarted, event_from_dict
from kiosk.referee.referee import Referee
from kiosk.referee.state import NOT_STARTED, OVER, GameState
from kiosk.stream.envelope import envelope
from kiosk.stream.snapshot import clock_dict, redact, snapshot

log = logging.getLogger(__name__)


def wall_ms() -> int:
    """Wall-clock time in ms since the Unix epoch."""
    return int(time.time() * 1000)


class Sink(Protocol):
    """Receives stream messages. ``channels``: which channels it wants (``{"judge"}``, ``{"public"}`` or both).

    ``on_message(msg, state)`` is called on the hub's thread, in order, for every message of those channels;
    ``state`` is the channel's mirror :class:`GameState` after the message (None for presence). It must not
    block for long (hand network work to its own thread)."""

    channels: frozenset[str]

    def on_message(self, msg: dict[str, Any], state: GameState | None) -> None: ...


@dataclass
class _Pending:
    release_at: int   # on the hub's timer (monotonic ms)
    event: Event
    ts: int


class _Channel:
    """One audience's view: a mirror referee, its message counter and the latest snapshot message."""

    def __init__(self, name: str, delay_ms: int) -> None:
        self.name = name
        self.delay_ms = delay_ms
        self.ref = Referee()
        self.game_id = ""
        self.n = 0
        self.latest: dict[str, Any] | None = None
        self.log: list[dict[str, Any]] = []   # the game's events so far as sent: {"ts", "event"}, seq i+1 at i

    @property
    def seq(self) -> int:
        return len(self.ref.events)


class StreamHub:
    """Fan-out of one kiosk's game to the stream sinks (see module doc).

    Args:
        board: table number (int >= 0) stamped on every message.
        delay_ms: broadcast delay of the public channel (ms, >= 0).
        tick_ms: clock tick period (ms; 1000 = 1 Hz); 0 switches ticks off.
        now_ms: the kiosk's clock (ms, same time base as the events' ``t``); default wall clock.
        wall: wall clock in ms since the epoch (for the messages' ``ts``); injectable for tests.
        timer: the clock the broadcast delay and the ticks are timed by (ms; default the monotonic clock,
            which NTP never steps); injectable for tests.
        boot: id of this kiosk run (default: a fresh random id).
    """

    def __init__(self, board: int, *, delay_ms: int = 0, tick_ms: int = 1000,
                 now_ms: Callable[[], int] | None = None, wall: Callable[[], int] = wall_ms,
                 boot: str | None = None, timer: Callable[[], int] = monotonic_ms) -> None:
        if not isinstance(board, int) or isinstance(board, bool) or board < 0:
            raise ValueError(f"stream: board number must be a whole number >= 0, got {board!r}")
        if delay_ms < 0 or tick_ms < 0:
            raise ValueError(f"stream: delay_ms ({delay_ms}) and tick_ms ({tick_ms}) must be >= 0")
        self.board = board
        self.delay_ms = delay_ms
        self.tick_ms = tick_ms
        self.boot = boot or uuid.uuid4().hex[:12]
        self._now_ms = now_ms or wall
        self._wall = wall
        self._timer = timer
        self._sinks: list[Sink] = []
        # (event, wall ts, seeded, timer ms when it came)
        self._inbox: collections.deque[tuple[Any, int, bool, int]] = collections.deque()
        self._delayed: collections.deque[_Pending] = collections.deque()
        self._judge = _Channel("judge", 0)
        self._public = _Channel("public", delay_ms)
        self._lock = threading.Lock()       # guards pump (one pump at a time)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_tick = 0
        self.errors: list[str] = []          # problems met (bad events, sink failures), newest last (capped)

    # ------------------------------------------------------------------------------------------ intake
    def add_sink(self, sink: Sink) -> None:
        """Register a sink (before :meth:`start`, or at any time: it then gets messages from now on)."""
        self._sinks.append(sink)

    def publish(self, event: Event | dict[str, Any]) -> None:
        """Hand an accepted referee event (an :class:`Event` or its ``to_dict()``) to the stream. Never blocks,
        never raises: a malformed event is recorded in :attr:`errors` when the hub processes it."""
        self._inbox.append((event, self._wall(), False, self._timer()))
        self._wake.set()

    def on_accepted(self, event: Event, state: object = None) -> None:
        """Listener form of :meth:`publish` for :class:`kiosk.app.kiosk.Kiosk` (``listeners=[hub.on_accepted]``,
        called with (event, state) after each accepted event); the state is not needed."""
        self.publish(event)

    def seed(self, events: Iterable[Event | dict[str, Any]]) -> None:
        """After a kiosk restart: the game's events so far (from the journal), in order. They go to the judge
        channel at once and to the public channel ``delay_ms`` from now (never earlier)."""
        for ev in events:
            self._inbox.append((ev, self._wall(), True, self._timer()))
        self._wake.set()

    # ------------------------------------------------------------------------------------------ reading
    def latest(self, channel: str = "public") -> dict[str, Any] | None:
        """The latest snapshot message of ``channel`` (what a late joiner gets first), or None."""
        return (self._judge if channel == "judge" else self._public).latest

    def state(self, channel: str = "public") -> GameState:
        """The mirror state of ``channel``."""
        return (self._judge if channel == "judge" else self._public).ref.state

    def idle(self) -> bool:
        """Nothing waits in the inbox or behind the delay."""
        return not self._inbox and not self._delayed

    # ------------------------------------------------------------------------------------------ running
    def start(self) -> StreamHub:
        """Run :meth:`pump` on a daemon thread (about every 50 ms, at once when an event arrives)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=f"stream-hub-{self.board}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread after a last :meth:`pump`."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self.pump()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.05)
            self._wake.clear()
            try:
                self.pump()
            except Exception as exc:  # never let the stream thread die
                self._error(f"stream hub: {type(exc).__name__}: {exc}")

    def pump(self, now: int | None = None) -> int:
        """Process the inbox, release due public events, emit a tick if due (``now``: the timer's ms, default
        now). Returns messages produced."""
        with self._lock:
            now = self._timer() if now is None else now
            made = 0
            while self._inbox:
                raw, ts, seeded, came = self._inbox.popleft()
                ev = self._parse(raw)
                if ev is None:
                    continue
                if self._feed_safe(self._judge, ev, ts):
                    made += 2
                    if self.delay_ms == 0 and not self._delayed:  # no delay: the public view is the judge view
                        made += 2 * self._feed_safe(self._public, ev, ts)
                        continue
                    release = (now if seeded else came) + self.delay_ms
                    self._delayed.append(_Pending(release, ev, ts))
            while self._delayed and self._delayed[0].release_at <= now:
                p = self._delayed.popleft()
                if self._feed_safe(self._public, p.event, p.ts):
                    made += 2
            if self.tick_ms and now >= self._next_tick:
                self._next_tick = now + self.tick_ms
                ts = self._wall()
                for ch in (self._judge, self._public):
                    made += self._tick(ch, ts)
            return made

    # ------------------------------------------------------------------------------------------ internals
    def _parse(self, raw: Any) -> Event | None:
        try:
            return raw if isinstance(raw, Event) else event_from_dict(raw)
        except EventError as exc:
            self._error(f"stream: dropped a malformed event: {exc}")
        except Exception as exc:
            self._error(f"stream: dropped an unreadable event ({type(exc).__name__}: {exc})")
        return None

    def _feed_safe(self, ch: _Channel, ev: Event, ts: int) -> bool:
        try:
            return self._feed(ch, ev, ts)
        except Exception as exc:  # a stream bug must not lose the following events
            self._error(f"stream ({ch.name}): {ev.type} at {ev.t} ms: {type(exc).__name__}: {exc}")
            return False

    def _feed(self, ch: _Channel, ev: Event, ts: int) -> bool:
        # without a delay the public channel is fed right after the judge channel with the same event: it
        # shares the judge's mirror and snapshot instead of refereeing the game a second time
        shared = ch is self._public and self.delay_ms == 0
        if shared:
            ch.ref, ch.game_id = self._judge.ref, self._judge.game_id
        else:
            if isinstance(ev, GameStarted):
                ch.ref = Referee()
                ch.game_id = ev.game_id or f"board{self.board}-{ev.t}"
                ch.log = []
            res = ch.ref.apply(ev)
            if not res.accepted:
                self._error(f"stream ({ch.name}): {ev.type} at {ev.t} ms does not follow the events so far "
                            f"({res.reason}); not streamed")
                return False
        state = ch.ref.state
        if shared and self._judge.latest is not None:
            snap = self._judge.latest["state"]
        else:
            snap = snapshot(state, self._now_ms() - ch.delay_ms)
        sent = redact(ev.to_dict())
        self._emit(ch, "event", state, ts, event=sent)
        if ch is self._public:
            ch.latest = self._emit(ch, "snapshot", state, ts, state=snap)
            return True
        # the judge snapshot carries the game's events so far: a desk joining mid-game (or back after losing its
        # session) folds them and then follows the live events by seq, without a gap and without repeats
        ch.log.append({"ts": ts, "event": sent})
        ch.latest = self._emit(ch, "snapshot", state, ts, state=snap, events=list(ch.log))
        return True

    def _tick(self, ch: _Channel, ts: int) -> int:
        state = ch.ref.state
        if state.phase in (NOT_STARTED, OVER):
            return 0
        now_k = self._now_ms() - ch.delay_ms
        self._emit(ch, "tick", state, ts, clock=clock_dict(state, now_k), on_move=state.on_move, phase=state.phase)
        return 1

    def _emit(self, ch: _Channel, kind: str, mirror: GameState, ts: int, **body: Any) -> dict[str, Any]:
        ch.n += 1
        msg = envelope(kind, ch.name, game_id=ch.game_id, board=self.board, boot=self.boot, n=ch.n, seq=ch.seq,
                       ts=ts, delay_ms=ch.delay_ms, **body)
        for sink in list(self._sinks):
            if ch.name not in sink.channels:
                continue
            try:
                sink.on_message(msg, mirror)
            except Exception as exc:
                self._error(f"stream sink {type(sink).__name__} failed on {kind} {ch.seq}: "
                            f"{type(exc).__name__}: {exc}")
        return msg

    def _error(self, text: str) -> None:
        log.warning("%s", text)
        self.errors.append(text)
        del self.errors[:-100]
