"""Tile sets: which letters exist, how many of each, what each scores.

A tile set is data (a TOML file under ``kiosk/rules/data/tilesets/``), never code: other distributions
are new files. Conventions used across the project:

* a lettered tile is its upper-case letter (``"A"``, ``"Ä"``);
* a blank on the board is the lower-case letter it was designated as (``"a"``), as in GCG;
* a blank in a rack, or a blank whose letter is not yet known, is ``"?"``.

Source: English counts and values from seed ``004`` ("LETTER DISTRIBUTIONS", 100 tiles, 187 points) and
``docs/variants.md``; German from the German edition (102 tiles, with Ä, Ö, Ü).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from kiosk.rules.counts import counted

BLANK = "?"


class TileSetError(ValueError):
    """A tile-set file is missing, unreadable or inconsistent (message names the file and key)."""


@dataclass(frozen=True)
class TileSet:
    """An immutable tile distribution.

    Attributes:
        name: short name (``"english"``).
        counts: letter -> number of tiles of that letter (blanks not included).
        values: letter -> points of that letter's tile.
        blanks: number of blank tiles (each scores 0 points).
        rack_size: tiles on a full rack (7); playing all of them earns the bingo bonus.
    """

    name: str
    counts: dict[str, int]
    values: dict[str, int]
    blanks: int = 2
    rack_size: int = 7
    language: str = ""
    _bag: Counter[str] = field(default_factory=Counter, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        bag = Counter(self.counts)
        if self.blanks:
            bag[BLANK] = self.blanks
        object.__setattr__(self, "_bag", bag)

    @property
    def letters(self) -> tuple[str, ...]:
        """The tile letters in file order (``("A", ..., "Z")``, German adds ``"Ä", "Ö", "Ü"``)."""
        return tuple(self.counts)

    @property
    def total_tiles(self) -> int:
        """All tiles in the set, blanks included (100 English, 102 German)."""
        return sum(self.counts.values()) + self.blanks

    def full_bag(self) -> Counter[str]:
        """A fresh Counter of every tile (blanks as ``"?"``)."""
        return Counter(self._bag)

    def tile_value(self, tile: str) -> int:
        """Points of one tile as it lies on the board or in a rack.

        ``"?"`` and lower-case (designated blank) score 0. Raises ``KeyError`` for a letter not in the set.
        """
        if tile == BLANK or tile.islower():
            return 0
        return self.values[tile]

    def rack_value(self, tiles: str) -> int:
        """Sum of tile values of a rack string such as ``"AEQ?"`` (points)."""
        return sum(self.tile_value(t) for t in tiles)

    def is_letter(self, ch: str) -> bool:
        """True when ``ch`` (either case) is a letter of this set."""
        return ch.upper() in self.values


def _read(path: Path) -> dict[str, Any]:
    """The tile set file at ``path`` (:func:`kiosk.files.read_toml`, the one reader of a TOML file a person gives).

    Raises:
        TileSetError: naming the file: missing, empty, binary, not UTF-8, not valid TOML, ...
    """
    from kiosk.files import InputError, read_toml

    try:
        return read_toml(path, "tile set file")
    except InputError as exc:
        raise TileSetError(str(exc)) from None


def _parse(data: dict[str, Any], origin: str) -> TileSet:
    for key in ("name", "tiles"):
        if key not in data:
            raise TileSetError(f"{origin}: missing key '{key}'")
    counts: dict[str, int] = {}
    values: dict[str, int] = {}
    for letter, spec in data["tiles"].items():
        if len(letter) != 1 or not letter.isupper():
            raise TileSetError(f"{origin}: tiles.{letter}: a tile is one upper-case letter")
        if not (isinstance(spec, list) and len(spec) == 2 and
                all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 100 for x in spec)):
            raise TileSetError(f"{origin}: tiles.{letter}: expected [count, value] of whole numbers from 0 to 100")
        counts[letter], values[letter] = spec
    if not isinstance(data["name"], str) or not data["name"].strip():
        raise TileSetError(f"{origin}: name: expected a non-empty string")
    blanks, rack = _whole(data, "blanks", 2, 0, 20, origin), _whole(data, "rack_size", 7, 1, 20, origin)
    if sum(counts.values()) + blanks < 2 * rack:
        raise TileSetError(f"{origin}: tiles: {counted(sum(counts.values()) + blanks, 'tile')} in all, too few for two racks "
                           f"of {rack} (rack_size)")
    return TileSet(name=data["name"], counts=counts, values=values, blanks=blanks, rack_size=rack,
                   language=str(data.get("language", "")))


def _whole(data: dict[str, object], key: str, default: int, low: int, high: int, origin: str) -> int:
    """``data[key]`` (or ``default``): a whole number from ``low`` to ``high``, else TileSetError naming it."""
    val = data.get(key, default)
    if isinstance(val, bool) or not isinstance(val, int) or not low <= val <= high:
        raise TileSetError(f"{origin}: {key}: expected a whole number from {low} to {high}, got {val!r}")
    return val


@cache
def load_tile_set(name_or_path: str = "english") -> TileSet:
    """Load a tile set by bundled name (``"english"``, ``"german"``) or from a TOML file path.

    Raises:
        TileSetError: unknown name, unreadable file or bad content (the message names file and key).
    """
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return _parse(_read(path), str(path))
    res = resources.files("kiosk.rules") / "data" / "tilesets" / f"{name_or_path}.toml"
    if not res.is_file():
        raise TileSetError(f"unknown tile set '{name_or_path}' (bundled: {', '.join(bundled_tile_sets())})")
    return _parse(_read(Path(str(res))), f"tileset {name_or_path}")


def bundled_tile_sets() -> list[str]:
    """Names of the tile sets shipped with the package."""
    folder = resources.files("kiosk.rules") / "data" / "tilesets"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


ENGLISH = load_tile_set("english")
GERMAN = load_tile_set("german")
