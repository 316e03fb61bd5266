"""Lexicon files, at the kiosk's edge: reading an event's word list, compiling it into a memory-mapped
``.marisa`` file, loading one, and the cache folder that keeps the default ENABLE lexicon compiled.

The rules core (:mod:`kiosk.rules.lexicon`) checks and holds the words; this module does the file I/O. Every
file is written atomically (a temporary file in the same folder, then a rename): a failed write leaves
nothing behind. Errors are :class:`kiosk.rules.lexicon.LexiconError`, naming the file and what is wrong.

A word list's words of one letter ("A", "I") or of more than 15 (the board's width: a 10,000,000-letter line was
compiled as a word) are no Scrabble words in any rule set here: they are left out, and how many, with their
lines, is said (:func:`playable`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import marisa_trie

from kiosk.files import (
    InputError,
    NotReplaceable,
    OutputError,
    check_regular_file,
    decode_text,
    replace_target,
    replacing,
    text_file_bytes,
)
from kiosk.rules.board import SIZE
from kiosk.rules.counts import counted
from kiosk.rules.lexicon import (
    MAGIC_SUFFIX,
    LexiconError,
    TrieLexicon,
    enable_word_list_path,
    enable_words,
    lexicon_from_words,
    parse_word_list,
    word_lines,
)

MIN_LETTERS = 2
"""A Scrabble word has at least 2 letters (no rule set here takes a one-letter word)."""
MAX_LETTERS = SIZE
"""... and at most 15: a longer word does not fit on the board."""


def cache_dir() -> Path:
    """Where compiled lexicons are cached: ``$KIOSK_CACHE_DIR`` or ``$XDG_CACHE_HOME/scrabble-kiosk``."""
    base = os.environ.get("KIOSK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "scrabble-kiosk")
    return Path(base)


def _check(p: Path, what: str) -> None:
    """The command line's one input check (:func:`kiosk.files.check_regular_file`), as a LexiconError."""
    try:
        check_regular_file(p, what)
    except InputError as exc:
        raise LexiconError(str(exc)) from None


def _read_word_list(p: Path) -> tuple[bytes, str]:
    """The bytes (for its checksum) and the text of the word list at ``p``: :func:`kiosk.files.text_file_bytes`
    (missing, a folder, empty, UTF-16, binary: refused by name), read as UTF-8 (a byte-order mark read past) or
    else ISO-8859-1 (:func:`kiosk.files.decode_text`). Raises LexiconError naming the file."""
    try:
        raw = text_file_bytes(p, "word list")
    except InputError as exc:
        raise LexiconError(str(exc)) from None
    return raw, decode_text(raw, p, "word list", fallback="latin-1")


def _shown(word: str) -> str:
    return repr(word) if len(word) <= 20 else f"'{word[:15]}...'"


def playable(words: list[str], text: str, name: str, notice: Callable[[str], None] | None = None) -> list[str]:
    """``words`` of a word list (``text``, named ``name``) without those of fewer than :data:`MIN_LETTERS` or
    more than :data:`MAX_LETTERS` letters; ``notice`` is told how many were left out, naming their lines (the
    first five).

    Raises:
        LexiconError: no word of 2 to 15 letters is left.
    """
    kept = [w for w in words if MIN_LETTERS <= len(w) <= MAX_LETTERS]
    if len(kept) == len(words):
        return words
    out = [(n, w) for n, w in word_lines(text) if not MIN_LETTERS <= len(w) <= MAX_LETTERS]
    lines = "; ".join(f"line {n} {_shown(w)} ({counted(len(w), 'letter', fmt=',')})" for n, w in out[:5])
    more = f"; and {len(out) - 5:,} more" if len(out) > 5 else ""
    if not kept:
        raise LexiconError(f"{name}: no word of {MIN_LETTERS} to {MAX_LETTERS} letters (a Scrabble word fits on the "
                           f"board and has two letters or more): {lines}{more}")
    if notice is not None:
        what = "line that is no Scrabble word" if len(out) == 1 else "lines that are no Scrabble words"
        notice(f"{name}: left out {len(out):,} {what} (a word has {MIN_LETTERS} to {MAX_LETTERS} letters): "
               f"{lines}{more}")
    return kept


def read_word_list(path: str | Path, letters: Iterable[str] | None = None,
                   notice: Callable[[str], None] | None = None) -> list[str]:
    """Words of a one-word-per-line text file, checked by :func:`kiosk.rules.lexicon.parse_word_list`
    against ``letters`` (a tile set's letters; None: any letters), without the words of one letter or of more
    than 15 (:func:`playable`: ``notice`` is told which lines).

    Raises:
        LexiconError: missing, a folder, unreadable, binary, empty, a line that is not a word of the set, or no
            word of 2 to 15 letters.
    """
    p = Path(path)
    text = _read_word_list(p)[1]
    return playable(parse_word_list(text, str(p), letters), text, str(p), notice)


def _atomic_write(out: Path, write: Callable[[str], object]) -> None:
    """``write(tmp_path)`` into a temporary file beside ``out``, then renamed to ``out`` (or to the file a link
    there points to) by :func:`kiosk.files.replacing`; removed on failure. A device, FIFO, socket or folder at
    ``out`` is left as it is: a LexiconError."""
    try:
        with replacing(out) as tmp:
            write(tmp)
    except OutputError as exc:
        raise LexiconError(str(exc)) from None
    except OSError as exc:
        raise LexiconError(f"{out}: cannot write: {exc.strerror or exc}") from None


def check_lexicon_output(out: str | Path) -> Path:
    """``out`` as a Path once it can take a compiled lexicon: a name ending in ``.marisa`` in an existing
    folder, where nothing or a regular file (or a link to one) is, as at ``out.json`` beside it: a folder,
    device, FIFO or socket is left as it is.

    Raises:
        LexiconError: naming the path and why.
    """
    p = Path(out)
    if p.suffix != MAGIC_SUFFIX:
        raise LexiconError(f"{p}: a compiled lexicon's name ends in {MAGIC_SUFFIX}")
    if p.is_dir():
        raise LexiconError(f"{p}: is a folder; give a file name ending in {MAGIC_SUFFIX}")
    if not p.parent.is_dir():
        why = "does not exist" if not p.parent.exists() else "is not a folder"
        raise LexiconError(f"{p}: the folder {p.parent} {why}")
    try:
        target = replace_target(p)
        replace_target(p.with_name(p.name + ".json"))   # its name file, written beside it
    except NotReplaceable as exc:
        raise LexiconError(f"{exc}; give another file name ending in {MAGIC_SUFFIX}") from None
    try:   # the one sure test (root may write anywhere by permission, and still not in /proc)
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise LexiconError(f"{p}: cannot write in {target.parent}: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(probe)
    return p


def compile_word_list(src: str | Path, out: str | Path, name: str | None = None,
                      progress: Callable[[str], None] | None = None,
                      letters: Iterable[str] | None = None) -> TrieLexicon:
    """Compile ``src`` (one word per line, spelt with ``letters``) into ``out`` (a ``.marisa`` trie) and
    ``out.json`` (its name, word count and source checksum), both written atomically: on any failure neither
    is left behind, nor a temporary file. Returns the loaded lexicon.

    Raises:
        LexiconError: a bad word list (see :func:`read_word_list`) or an output that cannot be written.
    """
    t0 = time.perf_counter()
    outp = check_lexicon_output(out)
    raw, text = _read_word_list(Path(src))
    words = playable(parse_word_list(text, str(src), letters), text, str(src), progress)
    if progress:
        progress(f"read {counted(len(words), 'word')} from {src} in {time.perf_counter() - t0:.2f} s")
    trie = marisa_trie.Trie(words)
    name = name or Path(src).stem.upper()
    meta = {"name": name, "words": len(trie), "source_sha256": hashlib.sha256(raw).hexdigest()}
    meta_path = outp.with_name(outp.name + ".json")
    _atomic_write(outp, lambda tmp: trie.save(tmp))
    try:
        _atomic_write(meta_path, lambda tmp: Path(tmp).write_text(json.dumps(meta), encoding="utf-8"))
    except BaseException:
        outp.unlink(missing_ok=True)
        raise
    if progress:
        progress(f"compiled {counted(len(trie), 'distinct word')} into {outp} ({outp.stat().st_size / 1e6:.1f} MB) "
                 f"in {time.perf_counter() - t0:.2f} s")
    return load_lexicon(outp)


def load_lexicon(path: str | Path, letters: Iterable[str] | None = None, *, in_memory: bool = False,
                 notice: Callable[[str], None] | None = None) -> TrieLexicon:
    """Load a compiled ``.marisa`` lexicon (memory-mapped; read into memory with ``in_memory``, for a file that
    may be overwritten in place while it is in use: a mapped file cut short kills the process with SIGBUS); a
    plain word list is checked (against ``letters``; ``notice`` is told of the words left out, as
    :func:`read_word_list` says) and compiled in memory. The lexicon's name is the one given at compile time, else
    the file name's stem in upper case.

    Raises:
        LexiconError: a missing, unreadable or corrupt file, or a bad word list.
    """
    p = Path(path)
    if p.suffix != MAGIC_SUFFIX:
        return lexicon_from_words(read_word_list(p, letters, notice), p.stem.upper())
    _check(p, "compiled lexicon")
    trie = marisa_trie.Trie()
    try:
        trie.load(str(p)) if in_memory else trie.mmap(str(p))
    except Exception:  # marisa raises plain Exception/RuntimeError for a bad file, its text C++ internals
        size = p.stat().st_size
        why = "the file is empty" if size == 0 else "the file is not a MARISA trie, or it was cut short"
        raise LexiconError(f"{p}: not a compiled lexicon or corrupt ({why}; compile the word list again with "
                           "`kiosk lexicon compile`)") from None
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


@cache
def cached_default_lexicon() -> TrieLexicon:
    """The ENABLE lexicon, compiled once into the cache folder and memory-mapped after that (milliseconds
    instead of building it each start). Falls back to an in-memory one when the folder cannot be written."""
    src = enable_word_list_path()
    stamp = f"{src.stat().st_size}-{int(src.stat().st_mtime)}"
    out = cache_dir() / f"ENABLE-{stamp}{MAGIC_SUFFIX}"
    if out.exists():
        try:
            return load_lexicon(out)
        except LexiconError:
            pass
    trie = marisa_trie.Trie(enable_words())
    lex = TrieLexicon(trie, "ENABLE")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(out.with_name(out.name + ".json"),
                      lambda tmp: Path(tmp).write_text(json.dumps({"name": "ENABLE", "words": len(lex)}),
                                                       encoding="utf-8"))
        _atomic_write(out, lambda tmp: trie.save(tmp))
    except (OSError, LexiconError):
        pass
    return lex
