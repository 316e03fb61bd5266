"""Touchscreen commands (kiosk.control.commands): one name each, a handler each in the kiosk, the judge's
commands locked behind the PIN, loose values checked before anything happens."""

from __future__ import annotations

import pytest
from app_fixtures import PIN, make_kiosk

from kiosk.app.kiosk import Kiosk
from kiosk.control import commands as cmd


def test_each_command_has_one_name_and_the_kiosk_handles_every_one():
    assert cmd.AcceptOutplay.name == "accept_outplay" and cmd.COMMANDS["accept_outplay"] is cmd.AcceptOutplay
    assert {c.name for c in cmd.COMMANDS.values()} == set(cmd.COMMANDS)
    dispatcher = Kiosk.__dict__["_on"].dispatcher
    fallback = dispatcher.dispatch(cmd.Command)
    unhandled = [name for name, c in cmd.COMMANDS.items() if dispatcher.dispatch(c) is fallback]
    assert unhandled == []


def test_every_judge_command_is_refused_while_the_menu_is_locked_and_changes_nothing(tmp_path):
    kiosk, *_ = make_kiosk(tmp_path)
    judge_only = [c for c in cmd.COMMANDS.values() if issubclass(c, cmd.JudgeCommand)]
    assert {c.name for c in judge_only} == {"correct", "adjust", "undo", "change_preset", "call_game",
                                             "confirm_removed", "add_time", "resign", "late_arrival"}
    state = kiosk.state
    for name in sorted(c.name for c in judge_only):
        res = kiosk.act(name, square=112, char="T", player=0, points=5, reason="r", preset={},
                         late_ms=60_000)
        assert not res.accepted and res.code == "pin", name
    assert kiosk.state == state and kiosk.view.corrections == {}
    assert kiosk.handle(cmd.JudgeUnlock(PIN)).accepted
    assert kiosk.handle(cmd.Adjust(0, 5, "recount")).accepted and kiosk.state.scores == (5, 0)


def test_loose_values_become_typed_commands_or_a_clear_refusal():
    assert cmd.command_from("designate", {"player": "1", "square": 112, "letter": "E", "extra": 1}) == \
        cmd.Designate(1, 112, "E")
    assert cmd.command_from("challenge", {"player": 1, "words": ["QUIRT"]}) == cmd.Challenge(1, ("QUIRT",))
    assert cmd.command_from("rule", {"acceptable": 0}) == cmd.Rule(False, "", (), "judge")
    with pytest.raises(ValueError, match="invalid literal"):
        cmd.command_from("hold", {"player": "x"})
    with pytest.raises(KeyError, match="player"):
        cmd.command_from("hold", {})
    with pytest.raises(cmd.UnknownCommand, match="frobnicate"):
        cmd.command_from("frobnicate", {})
    with pytest.raises(AttributeError):
        cmd.Hold(1).player = 0  # type: ignore[misc]  # frozen


def test_the_kiosk_refuses_a_missing_value_with_its_name(tmp_path):
    kiosk, *_ = make_kiosk(tmp_path)
    res = kiosk.act("designate", square=111, letter="E")
    assert not res.accepted and res.code == "bad_input" and res.reason == "designate: bad input ('player')"
    assert kiosk.view.message == "That input was not understood. Please try again."  # the reason is the log's
