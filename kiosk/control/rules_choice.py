"""The rules the new-game screen offers: the event's own preset first (``table.preset``: a bundled name, or the
path of the event's preset file), then every other bundled preset; each is shown by its own name and started as
it was loaded when the kiosk started (a preset file is read once, so the game starts under the rules the config
was checked with, and a file changed or removed since cannot stop the screen)."""

from __future__ import annotations

import functools
from pathlib import Path

from kiosk.referee.presets import Preset, PresetError, bundled_presets, load_preset


@functools.lru_cache(maxsize=32)
def rules_preset(source: str) -> Preset:
    """The preset ``source`` names (a bundled name or a preset file's path), loaded once.

    Raises:
        PresetError: it does not load (the config's ``table.preset`` was checked to load at start).
    """
    return load_preset(source)


def rules_name(source: str) -> str:
    """The name the rules ``source`` are shown by: a bundled preset's name, or the ``name`` its file gives
    (``short.toml`` holding ``name = "short"``: "short"); a file that does not load, by its file name."""
    try:
        return rules_preset(source).name
    except PresetError:
        return Path(source).stem


def rules_choices(event: str) -> tuple[str, ...]:
    """What the screen's Rules button cycles through: the event's rules ``event`` first, then each bundled
    preset of another name, in their order."""
    own = rules_name(event)
    return (event, *(name for name in bundled_presets() if name != own))
