"""kiosk.rules.checked: a plain dict checked against a dataclass, every fault named with its key path."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated, Literal

import pytest

from kiosk.rules.checked import Checker, Parse, SchemaError, build


class Mode(enum.Enum):
    FIXED = "fixed"
    TRACKED = "tracked"


@dataclass(frozen=True)
class Screen:
    size: tuple[int, int] = (800, 480)
    fullscreen: bool = False


@dataclass(frozen=True)
class Table:
    players: tuple[str, ...]
    journal: str | None = None
    mode: Mode = Mode.FIXED
    side: Literal["left", "right"] = "left"
    screen: Screen = Screen()
    scale: float = 1.0


def test_a_good_dict_builds_the_dataclass_with_tuples_enums_and_nested_values() -> None:
    t = build(Table, {"players": ["Ann", "Bo"], "mode": "tracked", "screen": {"size": [720, 1280]}, "scale": 2})
    assert t == Table(players=("Ann", "Bo"), mode=Mode.TRACKED, screen=Screen(size=(720, 1280)), scale=2.0)


@pytest.mark.parametrize(("data", "message"), [
    ({"players": 3}, "table.players: expected a list of strings, got 3"),
    ({"players": ["Ann", 3]}, "table.players: expected a list of strings, got ['Ann', 3]"),
    ({}, "table.players: missing field"),
    ({"players": [], "colour": 1}, "table.colour: unknown field"),
    ({"players": [], "journal": 5}, "table.journal: expected a string or null, got 5"),
    ({"players": [], "mode": "moving"}, "table.mode: expected one of fixed, tracked, got 'moving'"),
    ({"players": [], "side": "up"}, "table.side: expected one of left, right, got 'up'"),
    ({"players": [], "screen": {"size": [1, 2, 3]}}, "table.screen.size: expected a list of 2 values, got [1, 2, 3]"),
    ({"players": [], "screen": {"fullscreen": 1}}, "table.screen.fullscreen: expected true/false, got 1"),
    ({"players": [], "screen": 7}, "table.screen: expected an object, got 7"),
    ({"players": [], "scale": True}, "table.scale: expected a number, got True"),
])
def test_each_fault_is_named_with_its_key_path(data: dict[str, object], message: str) -> None:
    with pytest.raises(SchemaError) as err:
        build(Table, data, "table")
    assert str(err.value) == message


def test_the_caller_keeps_its_own_wording_and_error_class() -> None:
    class ConfigError(ValueError):
        pass

    check = Checker(error=ConfigError, field_words={"table.players": "a list of names"},
                    template="kiosk.toml: {path}: expected {what}, got {value!r}")
    with pytest.raises(ConfigError, match=r"^kiosk.toml: table.players: expected a list of names, got 3$"):
        check.build(Table, {"players": 3}, "table")


def _hex_or_int(value: object) -> int:
    if isinstance(value, str):
        return int(value, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value


@dataclass(frozen=True)
class Bus:
    addresses: dict[str, Annotated[int, Parse(_hex_or_int)]] = field(default_factory=dict)


def test_a_parsed_field_takes_each_spelling_and_names_a_bad_one() -> None:
    assert build(Bus, {"addresses": MappingProxyType({"left": "0x70", "right": 113})}) == Bus({"left": 112, "right": 113})
    with pytest.raises(SchemaError, match=r"^display.addresses.left: expected a whole number, got '0x7g'$"):
        build(Bus, {"addresses": {"left": "0x7g"}}, "display")


def test_a_wrong_value_is_said_in_a_files_words() -> None:
    """``{got}``: TOML's and JSON's words for a wrong value, not Python's ('2500', True, 1000000000.0)."""
    from kiosk.rules.checked import Checker, value_words

    assert [value_words(v) for v in ("2500", "", True, 1e9, 2500.5, 3, None, [1], {"a": 1})] == [
        'text ("2500")', "empty text", "true/false", "a decimal number (1e+09)", "a decimal number (2500.5)",
        "the number 3", "nothing", "a list", "a table"]
    check = Checker(template="{path} must be {what}, not {got}")
    with pytest.raises(ValueError, match=r'^n must be a whole number, not text \("7"\)$'):
        check.value(int, "7", "n")
