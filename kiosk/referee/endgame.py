"""End of game: unseen tiles, checking entered racks, rack adjustments, overtime penalties, winners.

Pure functions over counts and strings (points are whole points, times ms). The rack arithmetic itself
(unseen tiles, rack strings, adjustments) is :mod:`kiosk.rules.racks`, which the record replay uses too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kiosk.referee.clock import overtime_penalty
from kiosk.referee.presets import Preset
from kiosk.rules.counts import counted
from kiosk.rules.racks import rack_adjustments as rules_rack_adjustments
from kiosk.rules.racks import rack_string as rack_string  # re-exported: the referee's name for it
from kiosk.rules.racks import unseen_tiles as unseen_tiles  # re-exported: the referee's name for it
from kiosk.rules.tiles import BLANK, TileSet


def check_racks(racks: Sequence[str], counts: Sequence[int], unseen: Counter[str], bag: int, tile_set: TileSet,
                players: Sequence[str]) -> str:
    """Why the entered ``racks`` cannot be right, or ``""`` when they can.

    Each rack must hold exactly the tracked number of tiles, only tiles of the set (``"?"`` for a blank), and
    all racks together must come from the unseen tiles; with the bag empty they must be exactly the unseen tiles.
    """
    if len(racks) != len(counts):
        return f"expected {len(counts)} racks (one per player), got {len(racks)}"
    total: Counter[str] = Counter()
    for i, rack in enumerate(racks):
        bad = [ch for ch in rack if ch != BLANK and ch not in tile_set.values]
        if bad:
            return f"{players[i]}'s rack: '{bad[0]}' is not a tile of the {tile_set.name} set (blank = ?)"
        if len(rack) != counts[i]:
            return f"{players[i]}'s rack has {counted(len(rack), 'tile')} but the game tracked {counts[i]}"
        total.update(rack)
    over = total - unseen
    if over:
        return f"the racks hold {rack_string(over)} which the unseen tiles ({rack_string(unseen)}) do not allow"
    if bag == 0 and total != unseen:
        return f"with the bag empty the racks must be exactly the unseen tiles {rack_string(unseen)}"
    return ""


def rack_adjustments(preset: Preset, rack_values: Sequence[int], went_out: int | None) -> list[int]:
    """Points each player gains (+) or loses (-) for unplayed tiles under the preset's end rule
    (:func:`kiosk.rules.racks.rack_adjustments` with ``preset.end``'s rules)."""
    return rules_rack_adjustments(rack_values, went_out, preset.end.out_adjustment, preset.end.no_out_adjustment)


def time_penalties(preset: Preset, used_ms: Sequence[int]) -> list[int]:
    """Overtime penalty (points, >= 0) per player from the game time each used (ms)."""
    game = preset.clock.game_ms
    if game is None or len(used_ms) != 2:
        return [0] * len(used_ms)
    return [overtime_penalty(u - game, preset.clock.overtime_penalty_points, preset.clock.overtime_unit_ms)
            for u in used_ms]


def win_credit(preset: Preset, final: Sequence[int], before_racks: Sequence[int],
               forfeit: int | None = None) -> tuple[float, ...]:
    """Win credit per player: 1 for the winner; a tie under "half" shares the win; under "pre_adjustment"
    the higher score before the rack adjustment breaks it. ``forfeit``: that player lost by rule."""
    n = len(final)
    alive = [i for i in range(n) if i != forfeit]
    top = max(final[i] for i in alive)
    leaders = [i for i in alive if final[i] == top]
    if len(leaders) > 1 and preset.end.tie == "pre_adjustment":
        best = max(before_racks[i] for i in leaders)
        leaders = [i for i in leaders if before_racks[i] == best]
    share = 1.0 / len(leaders)
    return tuple(share if i in leaders else 0.0 for i in range(n))
