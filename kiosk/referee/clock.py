"""A chess clock in milliseconds, driven only by event timestamps (no wall clock is read here).

One player's time runs at a time, or nobody's (neutralised: challenge adjudication, judge call, out-play
window, kiosk down). Time used is kept per player and per turn; remaining time and overtime follow from it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClockState:
    """Snapshot of the clock at ``at_ms``.

    Attributes:
        used_ms: game time used by each player up to ``at_ms``.
        running: the player whose time runs, or None (neutralised / not started).
        since_ms: when ``running``'s current stretch began (for live display: add ``now - since_ms``).
        turn_used_ms: time the player on move has used in this turn (per-turn limits).
        game_ms: each player's allowance, or None when the game has no chess clock.
    """

    used_ms: tuple[int, ...]
    running: int | None
    since_ms: int
    turn_used_ms: int
    game_ms: int | None
    at_ms: int

    def remaining_ms(self, player: int, now_ms: int | None = None) -> int | None:
        """Time left on ``player``'s clock at ``now_ms`` (default: the snapshot time); negative in overtime."""
        if self.game_ms is None:
            return None
        return self.game_ms - self.used_at(player, now_ms)

    def used_at(self, player: int, now_ms: int | None = None) -> int:
        """Game time ``player`` has used by ``now_ms`` (ms)."""
        now = self.at_ms if now_ms is None else now_ms
        extra = max(0, now - self.since_ms) if self.running == player else 0
        return self.used_ms[player] + extra


class ChessClock:
    """Two (or more) players' time, charged between event timestamps.

    All times are ms. ``start(p, t)`` charges whoever ran up to ``t`` and starts ``p``; ``stop(t)`` charges and
    neutralises. Timestamps going backwards raise ``ValueError`` (the referee refuses such events first).
    """

    def __init__(self, players: int, game_ms: int | None) -> None:
        self.game_ms = game_ms
        self.used = [0] * players
        self.running: int | None = None
        self.since = 0
        self.turn_used = 0
        self.at = 0

    def copy(self) -> ChessClock:
        c = ChessClock(len(self.used), self.game_ms)
        c.used, c.running, c.since, c.turn_used, c.at = list(self.used), self.running, self.since, self.turn_used, self.at
        return c

    def _charge(self, t: int) -> None:
        if t < self.at:
            raise ValueError(f"clock time went backwards: {t} ms < {self.at} ms")
        if self.running is not None:
            self.used[self.running] += t - self.since
            self.turn_used += t - self.since
        self.since = t
        self.at = t

    def start(self, player: int, t: int, *, new_turn: bool = True) -> None:
        """Charge up to ``t``, then run ``player``'s time; ``new_turn`` resets the per-turn counter."""
        self._charge(t)
        if new_turn:
            self.turn_used = 0
        self.running = player

    def stop(self, t: int) -> None:
        """Charge up to ``t`` and neutralise (nobody's time runs)."""
        self._charge(t)
        self.running = None

    def advance(self, t: int) -> None:
        """Charge up to ``t`` without changing who runs."""
        self._charge(t)

    def skip(self, t: int) -> None:
        """Move to ``t`` charging nobody (the kiosk was down)."""
        if t < self.at:
            raise ValueError(f"clock time went backwards: {t} ms < {self.at} ms")
        self.since = t
        self.at = t

    def remaining(self, player: int, now: int) -> int | None:
        """``player``'s time left at ``now`` (negative in overtime), or None without a chess clock."""
        return self.snapshot().remaining_ms(player, now)

    def turn_used_at(self, now: int) -> int:
        """Time the running player has used in the current turn at ``now`` (ms)."""
        return self.turn_used + (max(0, now - self.since) if self.running is not None else 0)

    def snapshot(self) -> ClockState:
        return ClockState(tuple(self.used), self.running, self.since, self.turn_used, self.game_ms, self.at)


def overtime_penalty(overtime_ms: int, points: int, unit_ms: int) -> int:
    """Points lost for ``overtime_ms`` of overtime: ``points`` per started ``unit_ms``.

    A clock reading ``-0:00`` (less than one whole second over) is not in overtime (seed 002, III.C.2), so
    only whole seconds count: 1 s to 60 s over -> 1 unit, 61 s -> 2 units (with ``unit_ms`` = 60 000).
    """
    seconds = max(0, overtime_ms) // 1000
    if seconds == 0:
        return 0
    unit_s = max(1, unit_ms // 1000)
    return points * -(-seconds // unit_s)


def overtime_for_penalty(points: int, per_unit_points: int, unit_ms: int) -> int:
    """The overtime (ms) that :func:`overtime_penalty` charges ``points`` for: half a unit into the last
    started unit (a recorded game's overtime acted out: the demo's players and the record -> events conversion).

    ``points`` not a whole number of units: the overtime of the whole units below it (the penalty then differs,
    and a comparison with the record says so). 0 for no penalty or a preset without one.
    """
    if points <= 0 or per_unit_points <= 0:
        return 0
    units = points // per_unit_points
    if units == 0:
        return 0
    unit_s = max(1, unit_ms // 1000)
    return ((units - 1) * unit_s + max(1, unit_s // 2)) * 1000
