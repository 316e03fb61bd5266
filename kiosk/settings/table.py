"""The ``[table]`` section of the kiosk's config file (its keys: :mod:`kiosk.app.config`), checked value by value:
the one check of ``kiosk run`` (:func:`kiosk.app.config.load_config`), its ``--check`` and the device check
(``python -m kiosk.devices.check``), so each refuses a value in the same sentence, ``PATH: table.KEY: ...``.

Where each section and key sits is checked before, by :func:`kiosk.files.config_layout.read_config_file`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiosk.rules.checked import Checker
from kiosk.rules.counts import counted
from kiosk.rules.names import clash, name_problem, shown_name
from kiosk.settings.pins import check_pin, check_recovery_code

if TYPE_CHECKING:
    from collections.abc import Iterable

    from kiosk.referee.presets import Preset
    from kiosk.rules.tiles import TileSet


class TableError(ValueError):
    """A ``[table]`` value the kiosk cannot use: ``PATH: table.KEY: what is wrong``."""


JOURNAL_WORDS = 'the path of a journal file, e.g. "/var/lib/scrabble-kiosk/journal.sqlite"'
FIELD_WORDS = {"table.players": "2 to 4 non-empty names, in turn order", "table.journal": JOURNAL_WORDS}
"""What a ``[table]`` key takes, in the words of a wrong-type sentence (``table.players: expected ...``)."""


@dataclass(frozen=True)
class _TableFile:
    """``[table]`` as written in the file (defaults: :class:`kiosk.app.config.KioskConfig`'s)."""

    players: tuple[str, ...] = ("Player 1", "Player 2")
    preset: str = "nsf"
    judge_pin: Any = ""         # checked by check_pin, with its own messages (a number: write it in quotes)
    director_code: Any = None   # checked by check_recovery_code, with its own messages
    journal: str | None = None
    tiles: str = ""
    lexicon: str | None = None


@dataclass(frozen=True)
class TableSettings:
    """The checked ``[table]``: ``preset`` and ``tiles`` as written (a name or a ``.toml`` path; ``tiles`` "" for
    the preset's), ``rules`` and ``tile_set`` the names of what they load; ``journal`` and ``lexicon`` None when
    not given."""

    players: tuple[str, ...]
    preset: str
    judge_pin: str
    director_code: str | None
    journal: Path | None
    tiles: str
    lexicon: Path | None
    rules: str
    tile_set: str


def config_checker(path: Path, error: type[ValueError] = TableError,
                  field_words: dict[str, str] | None = None) -> Checker:
    """The type check of the config file's sections (:mod:`kiosk.rules.checked`) in the kiosk's words: ``error``
    raised as ``PATH: KEY: expected WHAT`` (``field_words`` added to :data:`FIELD_WORDS`)."""
    return Checker(error=lambda message: error(f"{path}: {message}"), template="{path}: expected {what}",
                   words={bool: "true or false"}, field_words={**FIELD_WORDS, **(field_words or {})})


def check_table(path: Path, table: object, *, open_lexicon: bool) -> TableSettings:
    """``[table]`` of the config file at ``path`` (``table``: the section as read, {} when absent), every value
    checked: the players (:func:`check_players`), the preset and the tile set (they load; the preset is for as many
    players), the judge PIN and the director's code (:mod:`kiosk.settings.pins`), the journal's and the lexicon's
    paths; with ``open_lexicon`` (``kiosk run --check``, the device check) the lexicon loads too (``kiosk run``
    loads it at start).

    Raises:
        TableError: ``PATH: table.KEY: ...`` naming the first value that is wrong.
    """
    t = config_checker(path).build(_TableFile, table, "table")
    players = check_players(path, t.players)
    rules, tile_set = _check_rules(path, t.preset, t.tiles, len(players))
    try:
        pin = check_pin(t.judge_pin, "table.judge_pin")
        code = None if t.director_code is None else check_recovery_code(t.director_code, pin, "table.director_code")
    except ValueError as exc:
        raise TableError(f"{path}: {exc}") from None
    journal = lexicon = None
    if t.journal is not None:
        if not t.journal.strip() or t.journal.endswith(("/", ".")):
            raise TableError(f"{path}: table.journal: expected {JOURNAL_WORDS}")
        journal = Path(t.journal).expanduser()
    if t.lexicon is not None:
        if not t.lexicon.strip():
            raise TableError(f"{path}: table.lexicon: expected the path of the event's lexicon (a .marisa file or "
                             f"a word list)")
        lexicon = Path(t.lexicon).expanduser()
        if open_lexicon:
            _open_lexicon(path, lexicon, tile_set.letters)
    return TableSettings(players=players, preset=t.preset, judge_pin=pin, director_code=code, journal=journal,
                         tiles=t.tiles, lexicon=lexicon, rules=rules.name, tile_set=tile_set.name)


def check_players(path: Path, pl: tuple[str, ...]) -> tuple[str, ...]:
    """``table.players``: 2-4 different non-empty names in turn order (seeds 003/004 allow 4), stripped.

    Raises:
        TableError: not a list of 2-4 names, an empty name, a name no player may have (a control character, more
            than 100 characters: :func:`kiosk.rules.names.name_problem`), or two names a scoresheet cannot tell
            apart (given twice, or differing only in letter case: :func:`kiosk.rules.names.clash`).
    """
    if not 2 <= len(pl) <= 4 or not all(x.strip() for x in pl):
        raise TableError(f"{path}: table.players: expected 2 to 4 non-empty names, in turn order")
    for x in pl:
        if (why := name_problem(x)) is not None:   # it would add lines to the journal, the GCG and the desk's files
            raise TableError(f"{path}: table.players: the name {shown_name(x)} {why}")
    if (same := clash([x.strip() for x in pl])) is not None:
        raise TableError(f"{path}: table.players: players {same[0] + 1} and {same[1] + 1} {same[2]}: the players "
                         "need distinct names")
    return tuple(x.strip() for x in pl)


def _check_rules(path: Path, preset_name: str, tiles: str, players: int) -> tuple[Preset, TileSet]:
    """The preset and the tile set (``tiles``, else the preset's), loaded, and the preset for as many players
    (home and team: 2-4, seeds 003/004).

    Raises:
        TableError: naming ``table.preset`` or ``table.tiles``: it does not load, or the preset's
            ``min_players``..``max_players`` leave ``players`` out.
    """
    from kiosk.referee.presets import PresetError, load_preset
    from kiosk.rules.tiles import TileSetError, load_tile_set

    try:
        preset = load_preset(preset_name)
    except PresetError as exc:
        raise TableError(f"{path}: table.preset: {exc}") from None
    try:
        tile_set = load_tile_set(tiles or preset.tile_set)
    except TileSetError as exc:
        raise TableError(f"{path}: {'table.tiles' if tiles else 'table.preset'}: {exc}") from None
    if not preset.min_players <= players <= preset.max_players:
        raise TableError(f"{path}: table.players: {counted(players, 'name')}, but the preset {preset.name} is for "
                         f"{preset.seats}")
    return preset, tile_set


def _open_lexicon(path: Path, lexicon: Path, letters: Iterable[str]) -> None:
    """Load the event's lexicon (``table.lexicon``) as ``kiosk run`` will, spelt with ``letters``.

    Raises:
        TableError: ``PATH: table.lexicon: ...`` with why it does not load.
    """
    from kiosk.lexicons import load_lexicon
    from kiosk.rules.lexicon import LexiconError

    try:
        load_lexicon(lexicon, letters)
    except LexiconError as exc:
        raise TableError(f"{path}: table.lexicon: {exc}") from None
