"""The touchscreen talks to the kiosk only through typed commands (kiosk.control): taps send the commands the
kiosk's state calls for, to any object with the KioskPort shape."""

from __future__ import annotations

from typing import Any

import pygame
import pytest
from ui_fixtures import PIN, make_kiosk, play

from kiosk.control import commands as cmd
from kiosk.control.port import KioskPort
from kiosk.referee.state import Result
from kiosk.ui.app import KioskUI


@pytest.fixture(scope="module", autouse=True)
def _display():
    pygame.font.init()
    yield


class RecordingPort:
    """A KioskPort that records every command before the real kiosk handles it."""

    def __init__(self, kiosk: KioskPort) -> None:
        self._kiosk = kiosk
        self.sent: list[cmd.Command] = []

    def handle(self, command: cmd.Command) -> Result:
        self.sent.append(command)
        return self._kiosk.handle(command)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kiosk, name)


def test_taps_send_typed_commands_with_the_players_the_state_calls_for(tmp_path):
    k, c = make_kiosk(tmp_path)
    port = RecordingPort(k)
    ui = KioskUI(port, (800, 480))  # type: ignore[arg-type]  # a proxy: KioskPort by duck typing
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 1_000
    ui.tap("Hold")
    ui.tap("Challenge")
    ui.tap("Acceptable")
    for d in PIN:
        ui.tap("pin_digit", digit=d)
    ui.tap("OK")
    assert port.sent == [cmd.Hold(1), cmd.Challenge(1), cmd.Rule(acceptable=True, pin=PIN)]
    assert k.state.history[-1].kind == "challenge_bonus" and k.state.on_move == 1  # the play stood: Bob to move


def test_a_three_player_game_takes_the_next_player_from_the_player_count(tmp_path):
    from kiosk.referee.events import Pass
    from kiosk.referee.presets import load_preset

    k, c = make_kiosk(tmp_path, start=False)
    assert k.start_game(load_preset("home").to_dict(), ("Ann", "Bob", "Cy")).accepted  # home: 2-4 players
    port = RecordingPort(k)
    ui = KioskUI(port, (800, 480))  # type: ignore[arg-type]
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 1_000
    assert k.apply(Pass(t=c.t, player=1))
    assert play(k, c, 2, "E7", "OUT")
    c.t += 1_000
    assert ui.draw() == "main" and len(ui.racks) == 3
    assert [b.label for b in ui.buttons if b.action == "challenge"] == ["Ann", "Bob"]  # any other side may
    ui.tap("challenge", player=0)  # Cy's play: Ann challenges
    assert port.sent == [cmd.Challenge(0)]
    assert k.state.phase == "challenged" and k.state.challenge_by == 0


def test_every_screen_of_a_three_player_game_shows_every_player(tmp_path):
    from kiosk.referee.presets import load_preset

    k, c = make_kiosk(tmp_path, start=False)
    assert k.start_game(load_preset("home").to_dict(), ("Ann", "Bob", "Cy")).accepted
    ui = KioskUI(k, (800, 480), players=("Ann", "Bob", "Cy"))
    assert play(k, c, 0, "8D", "QUIRT")
    ui.tap("Judge")
    for d in PIN:
        ui.tap("pin_digit", digit=d)
    ui.tap("OK")
    ui.tap("Adjust a score")
    assert ui.draw() == "judge_adjust"
    assert [b.label for b in ui.buttons if b.action == "adj_player"] == ["Ann", "Bob", "Cy"]
    ui.tap("Back")
    ui.tap("End the game")
    assert ui.draw() == "racks" and not ui.overflows
    seen = []
    for _ in range(3):
        seen.append(ui.rack_player)
        while len(ui.racks[ui.rack_player]) < k.state.racks[ui.rack_player]:
            ui.tap("rack_letter", letter=ui.rack_choices()[0][0])
        ui.tap("Next rack")
    assert seen == [0, 1, 2] and ui.rack_player == 0
    ui.tap("Done")
    assert ui.draw() == "over" and not ui.overflows, [o.text for o in ui.overflows]
    ui.tap("New game")
    assert ui.draw() == "new_game" and not ui.overflows
