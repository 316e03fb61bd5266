"""What the desk holds of each board: :class:`Table` (its current and previous game, presence, clock, the kiosk's
flags) and :class:`Game` (one game's referee and its events), kept up to date by :class:`kiosk.desk.tables.Tables`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kiosk.desk.event import Pairing
from kiosk.referee.referee import Referee


@dataclass
class Game:
    """One game at one table: its referee, the events applied (``events[i]`` has seq i+1) and those waiting."""

    board: int
    game_id: str
    ref: Referee = field(default_factory=Referee)
    events: list[dict[str, Any]] = field(default_factory=list)
    waiting: dict[int, tuple[dict[str, Any], int]] = field(default_factory=dict)
    last_ts: int = 0
    first_ts: int = 0
    pairing: Pairing | None = None
    final: tuple[int, ...] | None = None   # the final last recorded in the store
    corrected: bool = False
    not_live: set[int] = field(default_factory=set)   # the seqs taken from a snapshot or the store, not live
    boot: str = ""   # the kiosk run whose game_started the desk took ("" after a desk restart: from the store)
    # other kiosk runs that sent this game's game_started again -> the event their stream first differs at (0: none)
    restreams: dict[str, int] = field(default_factory=dict)

    @property
    def applied(self) -> int:
        """Events applied so far (= the seq of the last one)."""
        return len(self.events)


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
