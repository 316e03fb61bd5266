"""What the touchscreen may ask of the kiosk: :class:`KioskPort` (state, queries, :meth:`KioskPort.handle`) and
:class:`KioskView`, what the screen shows besides the referee's state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from kiosk.control.commands import Command, UnknownCommand, command_from
from kiosk.control.words import BAD_INPUT
from kiosk.referee.events import ChallengeRuled
from kiosk.referee.presets import Preset
from kiosk.referee.state import GameState, Prompt, Result
from kiosk.rules.tiles import TileSet
from kiosk.vision.diff import Anomaly
from kiosk.vision.reading import BoardReading


@dataclass
class KioskView:
    """What the screen shows besides the referee's state (all set on the loop's thread).

    Attributes:
        message: one line for everybody (last outcome or refusal). problem: the board problem being shown.
        problem_text: the problem in one sentence. problem_squares: squares to mark. needs_judge: only the
        judge can clear the problem. reading: the last stable reading (board as read). exchange: the exchange
        count the player on move chose (0: none). waiting: a press is being read. judge_until: the judge menu
        is open until this kiosk time (ms). corrections: the judge's corrections of the move being read
        (square -> char). confirmed: corrections that hold while their tile stays. removal_left: withdrawn
        tiles still on the board. devices: one line per device that is down or degraded (set by ``kiosk
        run``, :func:`kiosk.control.words.device_notes`). unusable_frame: why the last press got no reading
        because its frame was not usable (the reader's verdict, e.g. "hand over the board"); "" otherwise.
        read_this_turn: the last answer to a press of this turn was a reading (the judge's corrections then
        complete it); False at a turn's start and after a press that got no reading at all.
        camera_failed: the camera's last answer (to any press) was no reading at all; a reading clears it.
        judge_entered: the judge corrected a square while the camera was failing and no reading of this turn
        stood: his corrections are his entry of the whole move, and a press that gets no reading takes the move
        as the screen shows it (the referee's board plus his corrections; none placing a tile: a pass).
        judge_called: the table's judge button was pressed: the touchscreen opens the judge's PIN pad and
        clears it.
    """

    message: str = ""
    problem: tuple[Anomaly, ...] = ()
    problem_text: str = ""
    problem_squares: tuple[int, ...] = ()
    needs_judge: bool = False
    reading: BoardReading | None = None
    exchange: int = 0
    waiting: bool = False
    judge_until: int = 0
    corrections: dict[int, str] = field(default_factory=dict)
    confirmed: dict[int, str] = field(default_factory=dict)
    removal_left: tuple[int, ...] = ()
    devices: tuple[str, ...] = ()
    unusable_frame: str = ""
    read_this_turn: bool = False
    camera_failed: bool = False
    judge_entered: bool = False
    judge_called: bool = False


class KioskPort(Protocol):
    """The kiosk as the touchscreen sees it (:class:`kiosk.app.kiosk.Kiosk` is the real one).

    Times are the kiosk's ms; players are indices into ``state.players``.
    """

    view: KioskView

    @property
    def state(self) -> GameState:
        """The referee's state now."""
        ...

    @property
    def preset(self) -> Preset | None:
        """The rules of the game in progress (None before a game)."""
        ...

    @property
    def tile_set(self) -> TileSet | None:
        """The tile set of the game in progress (None before a game)."""
        ...

    def prompts(self) -> list[Prompt]:
        """What the table must be shown or asked now."""
        ...

    def now(self) -> int:
        """The kiosk's time (ms), never before the last event."""
        ...

    def remaining_ms(self, player: int) -> int | None:
        """``player``'s clock (negative in overtime), or None without a chess clock."""
        ...

    def ruling_suggestion(self) -> ChallengeRuled | None:
        """The lexicon's ruling on the open challenge, or None."""
        ...

    def handle(self, command: Command) -> Result:
        """Carry out ``command``; a refusal is also shown in ``view.message``."""
        ...

    def start_game(self, preset: Mapping[str, Any], players: tuple[str, ...], first: int = 0,
                   game_id: str = "") -> Result:
        """Start a game (``preset``: :meth:`Preset.to_dict`)."""
        ...


def act(port: KioskPort, action: str, values: Mapping[str, Any]) -> Result:
    """The command named ``action`` built from loose ``values`` (:func:`command_from`: scripts, the simulated
    players), handled by ``port``. Bad input is a refusal (code "bad_input"; ``view.message`` says
    :data:`~kiosk.control.words.BAD_INPUT`, the reason names the value for the log); an unknown name is refused
    without a message."""
    try:
        command = command_from(action, values)
    except UnknownCommand:
        return Result(False, f"unknown action {action!r}", "bad_input")
    except (KeyError, TypeError, ValueError) as exc:
        port.view.message = BAD_INPUT   # the screen says it in words; the reason (the log's) names the value
        return Result(False, f"{action}: bad input ({exc})", "bad_input")
    return port.handle(command)
