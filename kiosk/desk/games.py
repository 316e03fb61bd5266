"""What the desk holds of each board: :class:`Table` (its current and previous game, presence, clock, the kiosk's
flags), :class:`Game` (one game's referee and its events) and :class:`Version` (another version of a recorded game,
streamed again with other moves), kept up to date by :class:`kiosk.desk.tables.Tables`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kiosk.desk.event import Pairing
from kiosk.referee.events import EventError, event_from_dict
from kiosk.referee.referee import Referee
from kiosk.referee.state import OVER


@dataclass
class Game:
    """One game at one table: its referee, the events applied (``events[i]`` has seq i+1, its kiosk time
    ``stamps[i]``, ms) and those waiting."""

    board: int
    game_id: str
    ref: Referee = field(default_factory=Referee)
    events: list[dict[str, Any]] = field(default_factory=list)
    stamps: list[int] = field(default_factory=list)
    waiting: dict[int, tuple[dict[str, Any], int]] = field(default_factory=dict)
    last_ts: int = 0
    first_ts: int = 0
    pairing: Pairing | None = None
    final: tuple[int, ...] | None = None   # the final last recorded in the store
    corrected: bool = False
    replaced_at: int | None = None   # desk wall ms the director took another version of it (None: never)
    not_live: set[int] = field(default_factory=set)   # the seqs taken from a snapshot or the store, not live
    boot: str = ""   # the kiosk run whose game_started the desk took ("" after a desk restart: from the store)
    # other kiosk runs that sent this game's game_started again -> the event their stream first differs at (0: none)
    restreams: dict[str, int] = field(default_factory=dict)
    other: Version | None = None   # the other version waiting for the director (the latest run that differs)
    versions_kept: int = 0   # other versions of it the desk has kept (stored), taken or not

    @property
    def applied(self) -> int:
        """Events applied so far (= the seq of the last one)."""
        return len(self.events)

    @property
    def over(self) -> bool:
        """The game has ended and its result stands (no event waits for a gap)."""
        s = self.ref.state
        return s.result is not None and s.phase == OVER and not self.waiting

    def apply(self, ev: dict[str, Any], ts: int) -> str | None:
        """Apply event ``ev`` (a stream event dict, kiosk time ``ts`` ms) as the next one. Returns None when the
        referee took it, else why not (a sentence); a malformed dict is refused, never raised."""
        try:
            event = event_from_dict(ev)
        except EventError as exc:
            return str(exc)
        except Exception as exc:  # a malformed dict must never stop the desk
            return f"{type(exc).__name__}: {exc}"
        res = self.ref.apply(event)
        if not res.accepted:
            return res.reason or "refused"
        self.events.append(ev)
        self.stamps.append(ts)
        self.last_ts = ts
        if self.applied == 1:
            self.first_ts = ts
        return None


@dataclass
class Version:
    """Another version of a recorded game: kiosk run ``boot`` sent the game's start again and its events differ
    from the desk's from event ``from_seq`` on. ``game`` is the version's own fold (its events 1..n, the first
    ``from_seq - 1`` equal to the desk's); ``row``: its number in the store; ``received``/``updated``: desk wall ms
    of its first differing event and of its latest; ``problem``: why it takes no more events (an event its referee
    refused, too many events), None while it takes them."""

    boot: str
    from_seq: int
    game: Game
    row: int
    received: int
    updated: int
    problem: str | None = None

    @property
    def token(self) -> str:
        """What names this version as the page showed it: its number and its events so far (``"7.33"``). Its
        events only grow, so a version that took another event since, or another version, has another token."""
        return f"{self.row}.{self.game.applied}"


@dataclass
class Table:
    """A board: its current and previous game, presence, clock tick and the kiosk's flags."""

    board: int
    game: Game | None = None
    previous: Game | None = None
    online: bool | None = None
    online_boot: str = ""       # the kiosk run (boot) that last said it is online, and when (kiosk ts)
    online_ts: int = 0
    clock: dict[str, Any] | None = None
    clock_wall: int = 0
    flags: dict[str, Any] = field(default_factory=lambda: {"judge_called": False, "devices": {}, "journal": None})
    pending_ts: int | None = None   # kiosk ts of the oldest change not yet pushed to the page
    pending_recv: int | None = None  # desk wall time that change arrived (ms)
    version: int = 0
    orphans: dict[str, Game] = field(default_factory=dict)  # games seen without their game_started yet
    #: older games of the board loaded again from the store because a kiosk run streamed them again (oldest first)
    reopened: dict[str, Game] = field(default_factory=dict)

    def games(self) -> list[Game]:
        """The board's games in memory that have started: current, previous, then the reopened ones."""
        return [g for g in (self.game, self.previous, *self.reopened.values()) if g is not None]

    def find(self, game_id: str) -> Game | None:
        """The game ``game_id`` of this board among :meth:`games`, or None."""
        return next((g for g in self.games() if g.game_id == game_id), None)
