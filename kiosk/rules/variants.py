"""The scoring part of a rule preset (data, not code branches).

A preset file (``kiosk/presets/*.toml``, see :mod:`kiosk.referee.presets`) carries these fields in its
``[scoring]`` table; the rules core reads them here. Sources:

* ``bingo_bonus``: 50 for playing all 7 rack tiles (every seed sheet; ``docs/variants.md`` "Common to all").
* ``first_play_covers_centre``: the first play covers H8 (all sheets).
* ``off_centre_first_play``: ``"illegal"`` (default) or ``"no_centre_dws"`` — seed 002 (``nsf``): a first play
  missing the centre may be challenged off; if not, it scores without the DWS and the centre stays live.
* ``first_play_min_tiles``: seed 004 (``team``): the first word has at least 2 letters.
* ``game_word`` / ``game_word_factor``: seed 001 (``club-reading``): READING, wherever formed, scores triple,
  once per game, to the first side that forms it.
* ``ban_plural_s``: seed 004 (``team``): a play may not add an S to the end of an existing word.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

OFF_CENTRE_CHOICES = ("illegal", "no_centre_dws")


@dataclass(frozen=True)
class ScoringRules:
    """Scoring and placement parameters of a preset (all points are whole points)."""

    bingo_bonus: int = 50
    first_play_covers_centre: bool = True
    off_centre_first_play: str = "illegal"
    first_play_min_tiles: int = 1
    game_word: str | None = None
    game_word_factor: int = 3
    ban_plural_s: bool = False

    def __post_init__(self) -> None:
        if self.off_centre_first_play not in OFF_CENTRE_CHOICES:
            raise ValueError(f"scoring.off_centre_first_play must be one of {OFF_CENTRE_CHOICES}")
        if self.game_word is not None:
            object.__setattr__(self, "game_word", self.game_word.upper())

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "scoring") -> ScoringRules:
        """Build from a preset's ``[scoring]`` table; unknown or mistyped keys raise ``ValueError`` naming the key."""
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"{where}.{key}: unknown key (known: {', '.join(known)})")
            default = known[key].default
            if default is not None and not isinstance(value, type(default)):
                raise ValueError(f"{where}.{key}: expected {type(default).__name__}, got {value!r}")
            kwargs[key] = value
        try:
            return cls(**kwargs)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None


STANDARD = ScoringRules()
