"""Check a plain dict (parsed TOML or JSON) against a dataclass's typed fields, and build the dataclass.

One checker for every place that turns a file or a journal row into a value: events, presets, device
config, the app config, the calibration profile. Pure: no I/O, importable from :mod:`kiosk.rules` and
:mod:`kiosk.referee`. (It lives in :mod:`kiosk.rules` so pure code may import it; it knows no game rules.)

What it checks, naming the key path (``table.players``) in every message:

- unknown keys (``"{path}: unknown field"`` by default);
- missing required keys (a field without a default, or one listed in ``required``);
- each value against its field's annotation: ``int`` (never ``bool``), ``float`` (an int is accepted),
  ``bool``, ``str``, ``dict``/``dict[str, X]``, ``tuple[X, ...]``/``list[X]`` (from a JSON list or a tuple; a
  tuple field gets a tuple), fixed tuples ``tuple[int, str]``, ``X | None``, ``Literal[...]``, enums (by
  value), nested dataclasses (checked recursively, path ``outer.inner``) and ``Annotated[X, Parse(fn)]``
  for a value written in more than one way.

Messages are sentences built from a template, ``"{path}: expected {what}, got {value!r}"`` by default;
``what`` comes from :func:`describe` ("a whole number", "a list of strings", ...) unless the caller names the
field's or the type's words (``words``), so each place keeps its own wording. Errors are raised as the
caller's exception class (``error=PresetError``), which must take one message argument.

Example::

    @dataclass(frozen=True)
    class Table:
        players: tuple[str, ...]
        journal: str = ""

    build(Table, {"players": 3}, path="table")
    # SchemaError: table.players: expected a list of strings, got 3
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Literal, TypeVar, Union

T = TypeVar("T")

TYPE_TEMPLATE = "{path}: expected {what}, got {value!r}"
"""Default wording of a wrong type; ``path``, ``what`` and ``value`` are filled in."""


@dataclasses.dataclass(frozen=True)
class Parse:
    """``Annotated[int, Parse(fn)]``: the value goes through ``fn`` instead of the plain type check (e.g. an int
    also written as ``"0x70"``); ``fn`` raises ``ValueError`` or ``TypeError`` for a bad value, which is reported
    as a wrong type of the annotated type."""

    fn: Callable[[Any], Any]


class SchemaError(ValueError):
    """A dict does not fit a dataclass (unknown key, missing key or wrong type); the message names the key path."""


_WORDS: dict[object, str] = {
    int: "a whole number",
    float: "a number",
    bool: "true/false",
    str: "a string",
    dict: "an object",
}
_PLURAL: dict[object, str] = {int: "whole numbers", float: "numbers", bool: "true/false values", str: "strings",
                              dict: "objects"}


def value_words(value: object) -> str:
    """What a wrong value is, in the words of the file it came from (TOML, JSON), for ``{got}`` in a message:
    ``text ("2500")``, ``true/false``, ``a decimal number (2500.5)``, ``a decimal number (1e+09)``, ``the number 3``,
    ``a list``, ``a table``, ``nothing``. (Python's ``'2500'``, ``True`` and ``1000000000.0`` are no words of a
    config file.)"""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return f'text ("{value}")' if value else "empty text"
    if isinstance(value, float):
        shown = f"{value:g}" if value.is_integer() and "e" in f"{value:g}" else repr(value)
        return f"a decimal number ({shown})"
    if isinstance(value, int):
        return f"the number {value}"
    if value is None:
        return "nothing"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    return repr(value)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def describe(hint: object, words: Mapping[object, str] | None = None) -> str:
    """Words for what a value of type ``hint`` looks like, e.g. ``tuple[str, ...]`` -> ``"a list of strings"``.

    ``words`` (type hint -> words) comes first, so a caller can name its own types ("a list of [square, tile]
    pairs").
    """
    if words and hint in words:
        return words[hint]
    if hint in _WORDS:
        return _WORDS[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        return describe(args[0], words)
    if origin is dict:
        return "an object"
    if origin in (tuple, list):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return f"a list of {len(args)} values"
        return f"a list of {_PLURAL.get(args[0], 'values')}" if args else "a list"
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in args)
    if origin in (Union, types.UnionType):
        return " or ".join("null" if a is type(None) else describe(a, words) for a in args)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return "one of " + ", ".join(str(m.value) for m in hint)
    if dataclasses.is_dataclass(hint):
        return "an object"
    return str(hint)


class Checker:
    """One checking run: the caller's wording and error class (see the module docstring).

    Args:
        error: exception class raised, called with one message string.
        words: type hint -> words for ``{what}`` (overrides :func:`describe`).
        field_words: key path -> words for ``{what}`` (overrides ``words``).
        template: wrong-type message; ``{path}``, ``{what}``, ``{value}`` and ``{got}`` (the value in a file's
            words: :func:`value_words`) are filled in.
        unknown: unknown-key message; ``{path}`` (the key's path), ``{parent}`` (the object's path), ``{key}``
            and ``{known}`` (known keys, comma-separated).
        missing: missing-key message; ``{path}``.
        not_object: message for a nested value that is not a dict; ``{path}``, ``{value}``.
    """

    def __init__(self, *, error: Callable[[str], Exception] = SchemaError,
                 words: Mapping[object, str] | None = None, field_words: Mapping[str, str] | None = None,
                 template: str = TYPE_TEMPLATE, unknown: str = "{path}: unknown field",
                 missing: str = "{path}: missing field", not_object: str = "{path}: expected an object, got {value!r}"):
        self.error = error
        self.words = dict(words or {})
        self.field_words = dict(field_words or {})
        self.template = template
        self.unknown = unknown
        self.missing = missing
        self.not_object = not_object

    def fail(self, path: str, hint: object, value: object) -> Exception:
        """The wrong-type error for ``value`` at ``path`` (returned, for the caller to raise)."""
        what = self.field_words.get(path) or describe(hint, self.words)
        return self.error(self.template.format(path=path, what=what, value=value, got=value_words(value)))

    def check_keys(self, cls: type, data: Mapping[str, Any], path: str, *, ignore: Iterable[str] = (),
                   required: Iterable[str] | None = None) -> None:
        """Raise for the first key of ``data`` (in its order) that is not a field of ``cls`` (``ignore`` skips
        keys such as an event's ``type``), then for the first ``required`` field missing (default: the fields
        without a default)."""
        known = [f.name for f in dataclasses.fields(cls)]
        skip = set(ignore)
        for key in data:
            if key not in skip and key not in known:
                raise self.error(self.unknown.format(path=_join(path, str(key)), parent=path, key=key,
                                                     known=", ".join(known)))
        if required is None:
            required = [f.name for f in dataclasses.fields(cls)
                        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        for name in required:
            if name not in data:
                raise self.error(self.missing.format(path=_join(path, name)))

    def build(self, cls: type[T], data: object, path: str = "", *, ignore: Iterable[str] = (),
              required: Iterable[str] | None = None) -> T:
        """``cls(**checked values)`` from ``data``; fields absent from ``data`` keep their defaults.

        Raises:
            the checker's ``error``: ``data`` not a dict, unknown or missing key, wrong type (path named).
        """
        if not isinstance(data, dict):
            raise self.error(self.not_object.format(path=path, value=data))
        self.check_keys(cls, data, path, ignore=ignore, required=required)
        hints = typing.get_type_hints(cls, include_extras=True)
        args = {f.name: self.value(hints[f.name], data[f.name], _join(path, f.name))
                for f in dataclasses.fields(cls) if f.name in data}  # type: ignore[arg-type]
        return cls(**args)

    def value(self, hint: object, val: object, path: str) -> Any:
        """``val`` checked against ``hint`` (lists become tuples for tuple fields); raises naming ``path``."""
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint is Any:
            return val
        if origin is Annotated:
            parse = [m for m in hint.__metadata__ if isinstance(m, Parse)]  # type: ignore[attr-defined]
            if not parse:
                return self.value(args[0], val, path)
            try:
                return parse[0].fn(val)
            except (ValueError, TypeError):
                raise self.fail(path, args[0], val) from None
        if origin in (Union, types.UnionType):
            if val is None and type(None) in args:
                return None
            rest = [a for a in args if a is not type(None)]
            for a in rest:
                try:
                    return self.value(a, val, path)
                except Exception:  # noqa: BLE001 - try the next member; the union's words are raised below
                    continue
            raise self.fail(path, hint, val)
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            return self.build(hint, val, path)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            try:
                return hint(val)
            except ValueError:
                raise self.fail(path, hint, val) from None
        if origin is Literal:
            if val not in args:
                raise self.fail(path, hint, val)
            return val
        if origin in (tuple, list):
            return self._sequence(hint, origin, args, val, path)
        if origin is dict or hint is dict:
            if not isinstance(val, Mapping):  # any mapping (a dict from JSON/TOML), kept as a dict
                raise self.fail(path, hint, val)
            if len(args) == 2:
                return {k: self.value(args[1], v, _join(path, str(k))) for k, v in val.items()}
            return val if isinstance(val, dict) else dict(val)
        if hint is bool:
            ok = isinstance(val, bool)
        elif hint is int:
            ok = isinstance(val, int) and not isinstance(val, bool)
        elif hint is float:
            ok = isinstance(val, int | float) and not isinstance(val, bool)
        elif isinstance(hint, type):
            ok = isinstance(val, hint)
        else:
            raise TypeError(f"kiosk.rules.checked cannot check the annotation {hint!r} ({path})")
        if not ok:
            raise self.fail(path, hint, val)
        return float(val) if hint is float else val  # type: ignore[arg-type]

    def _sequence(self, hint: object, origin: object, args: tuple[Any, ...], val: object, path: str) -> Any:
        if not isinstance(val, list | tuple):
            raise self.fail(path, hint, val)
        try:
            if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
                if len(val) != len(args):
                    raise self.fail(path, hint, val)
                return tuple(self.value(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, val)))
            item = args[0] if args else Any
            items = [self.value(item, v, f"{path}[{i}]") for i, v in enumerate(val)]
        except Exception as exc:  # noqa: BLE001 - an item is wrong: the message names the whole list
            raise self.fail(path, hint, val) from exc
        return tuple(items) if origin is tuple else items


def build(cls: type[T], data: object, path: str = "", **options: Any) -> T:
    """Shortcut: ``Checker(**options).build(cls, data, path)`` with the default wording and :class:`SchemaError`."""
    return Checker(**options).build(cls, data, path)
