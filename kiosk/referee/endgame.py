"""End of game: unseen tiles, checking entered racks, rack adjustments, overtime penalties, winners.

Pure functions over counts and strings (points are whole points, times ms).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kiosk.referee.clock import overtime_penalty
from kiosk.referee.presets import Preset
from kiosk.rules.tiles import BLANK, TileSet


def unseen_tiles(tile_set: TileSet, board_cells: Sequence[str]) -> Counter:
    """Full bag minus the tiles on the board (designated blanks count as ``"?"``): bag plus every rack."""
    unseen = tile_set.full_bag()
    for cell in board_cells:
        if cell:
            unseen[BLANK if cell.islower() else cell] -= 1
    return +unseen


def rack_string(tiles: Counter) -> str:
    """A rack as a string in a stable order: letters alphabetically, blanks last (``"AEQ??"``)."""
    return "".join(sorted(tiles.elements(), key=lambda t: (t == BLANK, t)))


def check_racks(racks: Sequence[str], counts: Sequence[int], unseen: Counter, bag: int, tile_set: TileSet,
                players: Sequence[str]) -> str:
    """Why the entered ``racks`` cannot be right, or ``""`` when they can.

    Each rack must hold exactly the tracked number of tiles, only tiles of the set (``"?"`` for a blank), and
    all racks together must come from the unseen tiles; with the bag empty they must be exactly the unseen tiles.
    """
    if len(racks) != len(counts):
        return f"expected {len(counts)} racks (one per player), got {len(racks)}"
    total: Counter = Counter()
    for i, rack in enumerate(racks):
        bad = [ch for ch in rack if ch != BLANK and ch not in tile_set.values]
        if bad:
            return f"{players[i]}'s rack: '{bad[0]}' is not a tile of the {tile_set.name} set (blank = ?)"
        if len(rack) != counts[i]:
            return f"{players[i]}'s rack has {len(rack)} tiles but the game tracked {counts[i]}"
        total.update(rack)
    over = total - unseen
    if over:
        return f"the racks hold {rack_string(over)} which the unseen tiles ({rack_string(unseen)}) do not allow"
    if bag == 0 and total != unseen:
        return f"with the bag empty the racks must be exactly the unseen tiles {rack_string(unseen)}"
    return ""


def rack_adjustments(preset: Preset, rack_values: Sequence[int], went_out: int | None) -> list[int]:
    """Points each player gains (+) or loses (-) for unplayed tiles under the preset's end rule."""
    n = len(rack_values)
    adj = [0] * n
    if went_out is not None:
        others = sum(v for i, v in enumerate(rack_values) if i != went_out)
        rule = preset.end.out_adjustment
        if rule == "standard":
            adj = [-v for v in rack_values]
            adj[went_out] = others
        elif rule == "double":
            adj[went_out] = 2 * others
        elif rule == "own_only":
            adj = [-v for v in rack_values]
            adj[went_out] = 0
    elif preset.end.no_out_adjustment == "own_rack":
        adj = [-v for v in rack_values]
    return adj


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
