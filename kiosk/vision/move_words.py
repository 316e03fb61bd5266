"""The words a move read on the board spells, against a lexicon: a misread letter mostly spells a word
the lexicon lacks, where the letter as played spells one (CAT read CRT: an R for an A on a face whose A's look
like R's).

:func:`word_doubts` takes the board as read (the known tiles and the move's new ones) and finds the new tiles one
other letter would make every word of the move good with, where as read some word is not: those letters are
doubts for the judge, with a sentence naming the word read and the word the other letter would make. Where no
single letter mends the words (a phony played as such, or two letters misread) nothing is doubted: a phony is a
legal play, and whether it stands is the players' challenge, not the camera's call.

Pure: the lexicon is a callable the caller gives (a :class:`kiosk.rules.lexicon.Lexicon`'s ``in``; ``kiosk
bench-vision --lexicon corpus`` gives one); nothing here reads a file. ``kiosk run`` gives none: most phonies are
one letter from a word, and a square doubted for its word would show both players that a phony is one before
anyone challenged it. Grid characters as in :mod:`kiosk.vision.reading`: ``.`` empty,
a letter, ``?`` a blank (stands for any letter), ``#`` unsure (a word through it is not checked: the square may
be empty or hold any tile).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from kiosk.vision.reading import BLANK_CHAR, EMPTY_CHAR, SIZE, UNSURE_CHAR

WordCheck = Callable[[str], bool]
"""An upper-case word -> whether the lexicon holds it."""

MAX_MENDS = 3
"""At most this many letters that would mend the words are named in a doubt's sentence."""


def runs_through(cells: Sequence[str], squares: Iterable[int]) -> list[tuple[int, ...]]:
    """Each run of two or more occupied squares (across or down, unbroken) through any of ``squares``, once,
    as its squares in reading order. ``cells``: 225 grid characters (``.`` or ``""`` empty)."""
    runs: dict[tuple[int, ...], None] = {}
    for sq in squares:
        for step in (1, SIZE):
            first = last = sq
            while _occupied(cells, first, -step):
                first -= step
            while _occupied(cells, last, step):
                last += step
            if last > first:
                runs[tuple(range(first, last + 1, step))] = None
    return list(runs)


def _occupied(cells: Sequence[str], sq: int, step: int) -> bool:
    """The square one ``step`` from ``sq`` is on the board, in the same row for an across step, and occupied."""
    nxt = sq + step
    if not 0 <= nxt < SIZE * SIZE or (abs(step) == 1 and nxt // SIZE != sq // SIZE):
        return False
    return cells[nxt] not in (EMPTY_CHAR, "")


def spells(cells: Sequence[str], run: Sequence[int], word_ok: WordCheck, letters: Collection[str]) -> bool:
    """The run's tiles spell a word the lexicon holds; a blank (``?``) stands for any of ``letters``; a run
    through an unsure square (``#``) counts as spelling one (it is not known what lies there)."""
    chars = [cells[sq] for sq in run]
    if UNSURE_CHAR in chars:
        return True
    words = [""]
    for ch in chars:
        words = [w + c for w in words for c in (letters if ch == BLANK_CHAR else (ch.upper(),))]
    return any(word_ok(w) for w in words)


def word_doubts(cells: Sequence[str], new: Mapping[int, str], word_ok: WordCheck, letters: Collection[str],
                unseen: Mapping[str, int]) -> dict[int, str]:
    """The new tiles whose letter, read otherwise, would make every word of the move one the lexicon holds,
    where as read some word is not: square -> the doubt's sentence (``"letter R? the move reads CRT, not in the
    lexicon; an A here makes CAT"``).

    ``cells``: the board as read, 225 grid characters (known tiles and the move's new ones); ``new``: the
    move's new tiles (square -> grid character); ``letters``: the tile set's letters; ``unseen``: how many of
    each tile are still unseen (a letter mends only where the unseen tiles hold one more of it than the move's
    other new tiles use). Only new lettered tiles in every word the
    lexicon lacks are tried (one letter cannot mend two words it is not in). Empty when every word is good, or
    no single letter mends them all.
    """
    runs = runs_through(cells, new)
    bad = [run for run in runs if not spells(cells, run, word_ok, letters)]
    if not bad:
        return {}
    tried = [sq for sq in new if new[sq] not in (BLANK_CHAR, UNSURE_CHAR) and all(sq in run for run in bad)]
    laid = Counter(new.values())
    out: dict[int, str] = {}
    board = list(cells)
    for sq in tried:
        read = board[sq]
        mine = [run for run in runs if sq in run]
        mends = []
        for letter in letters:
            if letter == read or laid[letter] + 1 > unseen.get(letter, 0):   # the move's own tiles of it count
                continue
            board[sq] = letter
            if all(spells(board, run, word_ok, letters) for run in mine):
                mends.append(letter)
        board[sq] = read
        if mends:
            words = " and ".join(_word(board, run) for run in bad)
            made = ", ".join(f"{_article(m)} {m} here makes "
                             f"{' and '.join(_word(board, run, sq, m) for run in bad)}" for m in mends[:MAX_MENDS])
            more = f" (or {len(mends) - MAX_MENDS} more letters)" if len(mends) > MAX_MENDS else ""
            out[sq] = f"letter {read}? the move reads {words}, not in the lexicon; {made}{more}"
    return out


def _article(letter: str) -> str:
    """"an" before a letter whose name begins with a vowel sound (A, E, F, H, I, L, M, N, O, R, S, X; Ä, Ö), else
    "a"."""
    return "an" if letter in "AEFHILMNORSXÄÖ" else "a"


def _word(cells: Sequence[str], run: Sequence[int], sq: int = -1, letter: str = "") -> str:
    """The run's characters as a word (``letter`` on square ``sq`` when given)."""
    return "".join(letter if s == sq else cells[s].upper() for s in run)
