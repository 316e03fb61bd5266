"""The referee: game flow, clocks, holds, challenges, tile tracking and rule presets.

Pure logic (no I/O, no hardware; time comes in as event timestamps in ms). Entry points:
:class:`Referee` (``apply``, ``state``, ``pending_prompts``, ``tick``), the events in
:mod:`kiosk.referee.events`, and :func:`load_preset`.
"""

from kiosk.referee.events import Event, EventError, event_from_dict
from kiosk.referee.presets import Preset, PresetError, bundled_presets, load_preset
from kiosk.referee.referee import Prepared, Referee
from kiosk.referee.state import GameResult, GameState, Prompt, Result

__all__ = [
    "Event", "EventError", "GameResult", "GameState", "Preset", "PresetError", "Prepared", "Prompt", "Referee",
    "Result", "bundled_presets", "event_from_dict", "load_preset",
]
