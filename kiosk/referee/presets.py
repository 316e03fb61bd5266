"""Rule presets: one declarative TOML file per rule sheet (``kiosk/presets/*.toml``), loaded into :class:`Preset`.

A preset says everything the referee does differently between events: clocks, challenge rule, exchange limits,
end-of-game adjustment, ties, and the scoring part (:class:`kiosk.rules.variants.ScoringRules` fields under
``[scoring]``). An event can ship its own file; ``extends = "nsf"`` starts from a bundled preset and overrides
only the keys given. Durations in files are in seconds (keys ending ``_s``); :class:`Preset` holds milliseconds.

Every problem in a file raises :class:`PresetError` whose message names the file and the key
(``"myevent.toml: challenge.rule: expected one of ..."``).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from kiosk.rules.checked import Checker

CHALLENGE_RULES = ("void", "single", "double", "five_point", "ten_point", "triple", "custom")
OUT_ADJUSTMENTS = ("standard", "double", "none", "own_only")
NO_OUT_ADJUSTMENTS = ("own_rack", "none")
TIE_RULES = ("half", "pre_adjustment")
TURN_LIMIT_ACTIONS = ("warn", "lose_turn")
EXCHANGE_COUNTS = ("any", "one_or_all")
IMPROPER_EXCHANGES = ("refuse", "pass")


class PresetError(ValueError):
    """A preset file is missing, unreadable or has a bad key (the message names file and key)."""


@dataclass(frozen=True)
class ClockRules:
    """Time rules, all in milliseconds; ``None`` switches a rule off.

    Attributes:
        game_ms: each player's time for the whole game (chess clock), or None for no chess clock. Only a
            two-player game runs a chess clock; 3 and 4 players/teams take turns without one.
        overtime_penalty_points: points lost per started ``overtime_unit_ms`` of overtime.
        overtime_unit_ms: the overtime unit (60 000 = "per minute or part of a minute").
        overtime_cap_ms: overtime past which the player loses the game, or None.
        turn_limit_ms: per-turn limit, or None; ``turn_warnings_ms`` are remaining-time warnings in that turn.
        turn_limit_action: "warn" (only tell) or "lose_turn" (the turn is forfeited as a pass).
        session_limit_ms: wall time from game start after which the game is called, or None.
        session_warnings_ms: warnings given this long before the call (club-reading: 6 and 3 minutes).
        late_penalty_points / late_penalty_unit_ms: points a side that arrives late loses per whole unit it
            was absent (seed 000 rule 19: 10 per three minutes); 0 for none.
        late_forfeit_ms: absence after which the late side forfeits the game (000 rule 19: 15 minutes), or None.
        late_clock_runs: the late player's absence comes off his game time, and when that time runs out he
            loses the game (seed 002 I.F).
    """

    game_ms: int | None = 25 * 60_000
    overtime_penalty_points: int = 10
    overtime_unit_ms: int = 60_000
    overtime_cap_ms: int | None = None
    turn_limit_ms: int | None = None
    turn_warnings_ms: tuple[int, ...] = ()
    turn_limit_action: str = "warn"
    session_limit_ms: int | None = None
    session_warnings_ms: tuple[int, ...] = ()
    late_penalty_points: int = 0
    late_penalty_unit_ms: int = 180_000
    late_forfeit_ms: int | None = None
    late_clock_runs: bool = False


@dataclass(frozen=True)
class ChallengeRules:
    """Challenge, hold and out-play window rules.

    Attributes:
        rule: the named rule ("void", "single", "double", "five_point", "ten_point", "triple", "custom");
            the numbers below are what the referee applies, the name is for display and GCG.
        window_ms: time after the clock start in which a hold or challenge may be called (20 000 under nsf),
            or None: until the next player starts a turn. (The kiosk cannot see a player draw, so the nsf
            "or until the opponent has drawn" reads as the 20 s the rule guarantees; see docs/traceability.md.)
        holds: whether a hold may be called.
        courtesy_ms: hold time after which the player who played may draw replacement tiles kept apart.
        outplay_window_ms: after an out-play, time to hold or challenge before the game ends.
        ruling_names_words: whether the ruling says which word failed (False under nsf).
        off_centre_challengeable: a first play off the centre may be challenged off regardless of validity.
        phony_penalty: points deducted from the side whose play is challenged off.
        phony_loses_game: a phony challenged off loses the game (TRIPLE).
        wrong_bonus: points to the challenged player for a failed challenge.
        wrong_bonus_per_word: ``wrong_bonus`` is per challenged word (FIVE_POINT per word).
        wrong_penalty: points deducted from the challenger for a failed challenge.
        wrong_loses_turn: the challenger loses his next turn (DOUBLE).
        wrong_loses_game: a failed challenge loses the game for the challenger (TRIPLE).
        after_neutral_ms: once a neutralised clock runs again, the window on the last play stays open at
            least this long (seed 002 II.P: five seconds to hold or challenge after returning), or None.
    """

    rule: str = "ten_point"
    window_ms: int | None = 20_000
    holds: bool = True
    courtesy_ms: int | None = 60_000
    outplay_window_ms: int = 5_000
    ruling_names_words: bool = False
    off_centre_challengeable: bool = False
    phony_penalty: int = 0
    phony_loses_game: bool = False
    wrong_bonus: int = 0
    wrong_bonus_per_word: bool = False
    wrong_penalty: int = 0
    wrong_loses_turn: bool = False
    wrong_loses_game: bool = False
    after_neutral_ms: int | None = None


@dataclass(frozen=True)
class ExchangeRules:
    """Exchange rules: ``min_bag`` tiles must be in the bag; ``counts`` "any" (1..rack) or "one_or_all";
    ``improper``: an exchange with fewer than ``min_bag`` tiles in the bag is "refuse"d (the player does
    something else on the same turn) or counts as a "pass" (seed 002 II.H: an improper exchange stopped
    before the drawn tiles join the rack counts as a pass)."""

    allowed: bool = True
    min_bag: int = 7
    counts: str = "any"
    improper: str = "refuse"

    def counts_allowed(self, rack: int, bag: int) -> tuple[int, ...]:
        """The numbers of tiles a player with ``rack`` tiles may exchange now with ``bag`` tiles in the bag
        (ascending; empty: no exchange now). What the exchange screen offers; any other count is refused,
        or under ``improper = "pass"`` a count the bag is too small for counts as a pass."""
        if not self.allowed or bag < self.min_bag or rack < 1:
            return ()
        most = min(rack, bag)
        if most < 1:
            return ()
        if self.counts == "one_or_all":
            return tuple(sorted({1, rack})) if rack <= bag else (1,)
        return tuple(range(1, most + 1))


@dataclass(frozen=True)
class EndRules:
    """How the game ends and is adjusted.

    Attributes:
        scoreless_turns: successive scoreless turns that end the game (6), or None.
        scoreless_needs_nonzero: the scoreless ending does not apply while every score is 0 (nsf "unless 0-0").
        out_adjustment: when a player goes out: "standard" (out player adds the others' racks, each other
            player loses his own), "double" (out player adds twice the opponent's rack, opponent unchanged),
            "none", "own_only" (each other player loses his own rack, out player adds nothing).
        no_out_adjustment: when nobody goes out: "own_rack" (each loses his own rack value) or "none".
        tie: "half" (half a win each) or "pre_adjustment" (higher score before the rack adjustment wins).
    """

    scoreless_turns: int | None = 6
    scoreless_needs_nonzero: bool = False
    out_adjustment: str = "standard"
    no_out_adjustment: str = "own_rack"
    tie: str = "half"


BOARD_ROWS = ("numbers", "letters")


@dataclass(frozen=True)
class BoardRules:
    """How the sheet names the board's lines: ``rows`` "numbers" (rows 1-15, columns A-O: the usual) or
    "letters" (rows A-O, columns 1-15: seed 004, "Rows are lettered A-O while Columns are numbered 1-15").
    Only the labels differ; the squares and the centre (H8) are the same."""

    rows: str = "numbers"


@dataclass(frozen=True)
class Preset:
    """A complete rule preset (see module doc). ``scoring`` holds the ScoringRules fields as a dict."""

    name: str
    description: str = ""
    source: str = ""
    tile_set: str = "english"
    min_players: int = 2
    max_players: int = 2
    scoring: dict[str, Any] = field(default_factory=dict)
    clock: ClockRules = field(default_factory=ClockRules)
    challenge: ChallengeRules = field(default_factory=ChallengeRules)
    exchange: ExchangeRules = field(default_factory=ExchangeRules)
    end: EndRules = field(default_factory=EndRules)
    board: BoardRules = field(default_factory=BoardRules)

    @property
    def seats(self) -> str:
        """How many players the preset takes, in words: "2 players", "2 to 4 players"."""
        n = f"{self.min_players}" if self.min_players == self.max_players else \
            f"{self.min_players} to {self.max_players}"
        return f"{n} players"

    def scoring_rules(self) -> Any:
        """The :class:`kiosk.rules.variants.ScoringRules` of this preset."""
        from kiosk.rules.variants import ScoringRules

        return ScoringRules(**self.scoring)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON dict (milliseconds; lists, not tuples), accepted back by :func:`preset_from_dict`."""
        out: dict[str, Any] = json.loads(json.dumps(asdict(self)))
        return out


# ----------------------------------------------------------------------------------------------- parsing

_SCORING_KEYS: dict[str, type | tuple[type, ...]] = {
    "bingo_bonus": int,
    "first_play_covers_centre": bool,
    "off_centre_first_play": str,
    "first_play_min_tiles": int,
    "game_word": str,
    "game_word_factor": int,
    "ban_plural_s": bool,
}
_SECTIONS = {"clock": ClockRules, "challenge": ChallengeRules, "exchange": ExchangeRules, "end": EndRules,
             "board": BoardRules}
_CHOICES = {
    ("challenge", "rule"): CHALLENGE_RULES,
    ("end", "out_adjustment"): OUT_ADJUSTMENTS,
    ("end", "no_out_adjustment"): NO_OUT_ADJUSTMENTS,
    ("end", "tie"): TIE_RULES,
    ("clock", "turn_limit_action"): TURN_LIMIT_ACTIONS,
    ("exchange", "counts"): EXCHANGE_COUNTS,
    ("board", "rows"): BOARD_ROWS,
    ("exchange", "improper"): IMPROPER_EXCHANGES,
    ("scoring", "off_centre_first_play"): ("illegal", "no_centre_dws"),
}
_TOP_KEYS = {"name", "description", "source", "tile_set", "min_players", "max_players", "extends", "scoring",
             *_SECTIONS}


def _ms_field(name: str) -> bool:
    return name.endswith("_ms")


def _seconds_ok(val: Any) -> bool:
    """Whether ``val`` is a finite number of seconds >= 0 (not a bool, inf or nan)."""
    return isinstance(val, int | float) and not isinstance(val, bool) and math.isfinite(val) and val >= 0


def _convert(origin: str, section: str, cls: type, raw: dict[str, Any], base: Any) -> Any:
    """Build one section dataclass from its TOML table; keys ending ``_ms`` are given as ``_s`` (seconds)."""
    if not isinstance(raw, dict):
        raise PresetError(f"{origin}: {section}: expected a table")
    known = {f.name: f for f in fields(cls)}
    values = asdict(base)
    for key, val in raw.items():
        where = f"{origin}: {section}.{key}"
        name = key[:-2] + "_ms" if key.endswith("_s") else key
        if name not in known or (_ms_field(name) and not key.endswith("_s")):
            hint = ", ".join(k[:-3] + "_s" if _ms_field(k) else k for k in known)
            raise PresetError(f"{where}: unknown key (known: {hint})")
        default = getattr(base, name)
        if _ms_field(name):
            if val is False or val == "none":
                values[name] = None
                continue
            if isinstance(val, list):
                if not all(_seconds_ok(v) for v in val):
                    raise PresetError(f"{where}: expected a list of seconds (numbers >= 0)")
                values[name] = tuple(int(round(v * 1000)) for v in val)
                continue
            if not _seconds_ok(val):
                raise PresetError(f"{where}: expected seconds (a number >= 0) or \"none\"")
            values[name] = int(round(val * 1000))
            continue
        if isinstance(default, bool):
            if not isinstance(val, bool):
                raise PresetError(f"{where}: expected true or false")
        elif isinstance(default, int):
            if not isinstance(val, int) or isinstance(val, bool):
                raise PresetError(f"{where}: expected a whole number")
        elif isinstance(default, str):
            if not isinstance(val, str):
                raise PresetError(f"{where}: expected a string")
            choices = _CHOICES.get((section, name))
            if choices and val not in choices:
                raise PresetError(f"{where}: '{val}' is not one of {', '.join(choices)}")
        values[name] = val
    return cls(**values)


def _parse_scoring(origin: str, raw: Any, base: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise PresetError(f"{origin}: scoring: expected a table")
    out = dict(base)
    for key, val in raw.items():
        where = f"{origin}: scoring.{key}"
        if key not in _SCORING_KEYS:
            raise PresetError(f"{where}: unknown key (known: {', '.join(_SCORING_KEYS)})")
        want = _SCORING_KEYS[key]
        if key == "game_word":
            if not isinstance(val, str):
                raise PresetError(f"{where}: expected a word (string); \"\" for none")
            out[key] = val.upper() or None
            continue
        if want is int and (isinstance(val, bool) or not isinstance(val, int)):
            raise PresetError(f"{where}: expected a whole number")
        if not isinstance(val, want):
            raise PresetError(f"{where}: expected {want.__name__}")  # type: ignore[union-attr]
        choices = _CHOICES.get(("scoring", key))
        if choices and val not in choices:
            raise PresetError(f"{where}: '{val}' is not one of {', '.join(choices)}")
        out[key] = val
    return out


def parse_preset(data: dict[str, Any], origin: str, *, base: Preset | None = None) -> Preset:
    """Build a :class:`Preset` from parsed TOML ``data``; ``origin`` names the file in errors.

    Raises:
        PresetError: unknown key, wrong type, value out of range (message names ``origin`` and the key).
    """
    for key in data:
        if key not in _TOP_KEYS:
            raise PresetError(f"{origin}: {key}: unknown key (known: {', '.join(sorted(_TOP_KEYS))})")
    if base is None and "name" not in data:
        raise PresetError(f"{origin}: name: missing key")
    base = base or Preset(name=str(data["name"]))
    top: dict[str, Any] = {}
    for key in ("name", "description", "source", "tile_set"):
        if key in data:
            if not isinstance(data[key], str) or (key == "name" and not data[key]):
                raise PresetError(f"{origin}: {key}: expected a non-empty string" if key == "name"
                                  else f"{origin}: {key}: expected a string")
            top[key] = data[key]
    for key in ("min_players", "max_players"):
        if key in data:
            val = data[key]
            if isinstance(val, bool) or not isinstance(val, int) or not 2 <= val <= 4:
                raise PresetError(f"{origin}: {key}: expected a whole number from 2 to 4")
            top[key] = val
    sections = {name: _convert(origin, name, cls, data.get(name, {}), getattr(base, name))
                for name, cls in _SECTIONS.items()}
    scoring = _parse_scoring(origin, data.get("scoring", {}), base.scoring)
    preset = Preset(
        name=top.get("name", base.name),
        description=top.get("description", base.description),
        source=top.get("source", base.source),
        tile_set=top.get("tile_set", base.tile_set),
        min_players=top.get("min_players", base.min_players),
        max_players=top.get("max_players", base.max_players),
        scoring=scoring,
        **sections,
    )
    _check(preset, origin)
    return preset


def _check(p: Preset, origin: str) -> None:
    if p.min_players > p.max_players:
        raise PresetError(f"{origin}: min_players: {p.min_players} is more than max_players {p.max_players}")
    if p.clock.overtime_unit_ms is not None and p.clock.overtime_unit_ms <= 0:
        raise PresetError(f"{origin}: clock.overtime_unit_s: must be more than 0")
    if p.clock.late_penalty_unit_ms <= 0:
        raise PresetError(f"{origin}: clock.late_penalty_unit_s: must be more than 0")
    if p.exchange.min_bag < 0:
        raise PresetError(f"{origin}: exchange.min_bag: must be 0 or more")
    if p.end.scoreless_turns is not None and p.end.scoreless_turns < 1:
        raise PresetError(f"{origin}: end.scoreless_turns: must be 1 or more (or false)")
    _check_ranges(p, origin)
    from kiosk.rules.tiles import TileSetError, load_tile_set

    try:
        load_tile_set(p.tile_set)
    except TileSetError as exc:   # refused by every command that loads the preset, as `kiosk run` did
        raise PresetError(f"{origin}: tile_set: {exc}") from None


MAX_MS = 24 * 3_600_000   # no time rule of a game runs longer than a day
MAX_POINTS = 1_000        # no penalty or bonus of a game is worth more
_LIMITS = {("exchange", "min_bag"): (0, 100), ("end", "scoreless_turns"): (1, 100),
           ("scoring", "first_play_min_tiles"): (1, 20), ("scoring", "game_word_factor"): (1, 10)}


def _check_ranges(p: Preset, origin: str) -> None:
    """Numbers no game has are refused naming the key: times over a day, negative or huge points (a negative
    overtime penalty or bingo bonus would pay a player), counts out of their range.

    Raises:
        PresetError: naming ``origin`` and the key as written in the file (``clock.game_s``).
    """
    if p.clock.game_ms is not None and p.clock.game_ms <= 0:
        raise PresetError(f'{origin}: clock.game_s: 0 s gives the players no time: give the seconds of each '
                          'player\'s clock, or "none" for a game without a chess clock')
    values = [(name, f.name, getattr(getattr(p, name), f.name)) for name in _SECTIONS
              for f in fields(_SECTIONS[name])]
    values += [("scoring", k, v) for k, v in p.scoring.items()]
    for section, name, val in values:
        if isinstance(val, bool) or val is None or isinstance(val, str):
            continue
        if _ms_field(name):
            key = f"{section}.{name[:-3]}_s"
            for v in (val if isinstance(val, tuple) else (val,)):
                if v > MAX_MS:
                    raise PresetError(f"{origin}: {key}: {v / 1000:g} s is more than a day ({MAX_MS // 1000} s)")
            continue
        if isinstance(val, int):
            low, high = _LIMITS.get((section, name), (0, MAX_POINTS))
            if not low <= val <= high:
                raise PresetError(f"{origin}: {section}.{name}: {val} is out of range: expected a whole number "
                                  f"from {low} to {high}")


_STORED = Checker(error=PresetError, template="stored preset: bad or missing field: {path}: expected {what}, got {value!r}",
                  unknown="stored preset: bad or missing field: {path}: unknown field",
                  missing="stored preset: bad or missing field: '{path}'",
                  not_object="stored preset: bad or missing field: {path}: expected an object, got {value!r}")
"""Wording for a stored preset (:mod:`kiosk.rules.checked`)."""
_STORED_REQUIRED = ("name", "min_players", "max_players", "clock", "challenge", "exchange", "end")
_PRESET_FIELDS = frozenset(f.name for f in fields(Preset))


def preset_from_dict(data: dict[str, Any]) -> Preset:
    """Inverse of :meth:`Preset.to_dict` (as stored in a journal's ``game_started`` event).

    Each section is checked against its dataclass (unknown key, wrong type: named with its path); ``board`` may
    be absent (journals from before the field: the usual labels); unknown top-level keys are ignored, as they
    always were.

    Raises:
        PresetError: the dict is not a preset.
    """
    if not isinstance(data, dict):
        raise PresetError(f"stored preset: expected an object, got {data!r}")
    extra = [k for k in data if k not in _PRESET_FIELDS]
    return _STORED.build(Preset, data, "", ignore=extra, required=_STORED_REQUIRED)


def checked_preset_from_dict(data: dict[str, Any], origin: str = "the preset") -> Preset:
    """:func:`preset_from_dict`, then the checks a preset file passes: its scoring numbers whole and in range
    (a bingo bonus of 1e308 or 50.0 is refused), its players and clock units consistent. For presets that come
    from outside (a message from the broker), where the referee would otherwise score with them.

    Raises:
        PresetError: naming ``origin`` and the key.
    """
    p = preset_from_dict(data)
    scoring = p.scoring if isinstance(p.scoring, dict) else {}
    _parse_scoring(origin, {k: v for k, v in scoring.items() if not (k == "game_word" and v is None)}, {})
    _check(p, origin)
    return p


def _read(path: Path) -> dict[str, Any]:
    """The preset file at ``path`` (:func:`kiosk.files.read_toml`, the one reader of a TOML file a person gives).

    Raises:
        PresetError: naming the file: missing, empty, binary, not UTF-8, not valid TOML, ...
    """
    from kiosk.files import InputError, read_toml

    try:
        return read_toml(path, "preset file")
    except InputError as exc:
        raise PresetError(str(exc)) from None


def bundled_presets() -> list[str]:
    """Names of the presets shipped in ``kiosk/presets/``."""
    folder = resources.files("kiosk") / "presets"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_preset(name_or_path: str | Path, _seen: tuple[str, ...] = ()) -> Preset:
    """Load a bundled preset by name (``"nsf"``) or an event's own TOML file by path.

    Raises:
        PresetError: unknown name, unreadable file, bad TOML, unknown key or bad value; the message names
            the file and the key.
    """
    path = Path(name_or_path)
    if isinstance(name_or_path, Path) or path.suffix == ".toml" or path.exists():
        origin = str(path)
        data = _read(path)
    else:
        res = resources.files("kiosk") / "presets" / f"{name_or_path}.toml"
        if not res.is_file():
            raise PresetError(f"unknown preset '{name_or_path}' (bundled: {', '.join(bundled_presets())})")
        origin = f"{name_or_path}.toml"
        data = _read(Path(str(res)))
    base = None
    if "extends" in data:
        parent = data["extends"]
        if not isinstance(parent, str):
            raise PresetError(f"{origin}: extends: expected a preset name")
        if parent in _seen:
            raise PresetError(f"{origin}: extends: '{parent}' extends itself (cycle {' -> '.join(_seen)})")
        base = load_preset(parent, (*_seen, origin))
    return parse_preset(data, origin, base=base)
