"""Players' names as every part of the kiosk takes them: printable text, no control characters, at most
:data:`NAME_MAX` characters.

A name travels into the journal, the screen, the GCG record (``#player1 NICK Full Name``), the desk's ``.t`` and CSV
exports and the stream. A line break in one adds lines to all of those (a GCG line of its own, a ``.t`` line that
reads as another player); a tab or an escape code garbles them. So a name holding a control character (Unicode
categories Cc, Zl and Zp: line and paragraph breaks, tab, escape, NUL ...) is refused wherever a name comes in:
the kiosk's config, a GCG record's ``#playerN`` line, a recording's ``game.ini`` (``name1``, ``name2``), selfplay's
``--names``, the desk's event file and its messages, each naming where it was written. Format characters
(Cf) are allowed (emoji sequences need the zero-width joiner, U+200D) except, in a name (:func:`name_problem`), the
bidirectional controls (U+202A-U+202E, U+2066-U+2069 and the marks U+200E, U+200F, U+061C), which reorder what a
scoresheet shows, and the invisible characters U+200B, U+200C, U+2060, U+FEFF, which make 'Ada' and 'Ada\u200b'
two players who read the same. A name has at most :data:`NAME_MAX` (100) characters: a GCG record's lines hold 512
(``kiosk.rules.gcg.MAX_LINE``), and its ``#player`` line holds the nickname and the name (selfplay writes a
nickname twice there), each move line the nickname (a 5,000-character one made a GCG whose own replay said 'a line
of 5,019 characters (GCG readers accept 512)'). A refusal shows a long name cut short (:func:`shown_name`).

The players of one game need names a scoresheet tells apart (:func:`clash`, as a tournament director would have
it): 'Ann' and 'ann', 'Ann Lee' and 'Ann  Lee', or 'Ann' and its full-width 'Ａnn' are one name on the scoresheet,
on the screen and in the GCG record, so they are refused as two players' names wherever the kiosk takes a game's
players (the config's ``table.players``, a recording's ``game.ini``, selfplay's ``--names``); the desk matches
its registered names without case and spacing too (``kiosk.desk.event.name_key``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

NAME_MAX = 100
"""The most characters a player's name (or GCG nickname) has, wherever it comes in."""
_CONTROL = frozenset({"Cc", "Zl", "Zp"})
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_INVISIBLE = frozenset("\u200b\u200c\u2060\ufeff")


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (line breaks, tab, escape ...; Unicode Cc, Zl, Zp)."""
    return any(unicodedata.category(c) in _CONTROL for c in text)


def shown_name(name: str) -> str:
    """``name`` as a refusal shows it: quoted with its escapes (``repr``), cut short after 20 characters when it has
    more than 40 (a 5,000-character name is not printed whole)."""
    return repr(name) if len(name) <= 40 else f"{name[:20]!r}..."


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's name (a sentence to follow the name), or None when it can: a name of more
    than :data:`NAME_MAX` characters ("has 5,000 characters; a GCG record's lines hold 512, so a name has at most
    100"), holding a control character ("holds a control character (a line break, tab or the like)"), a
    bidirectional control or an invisible character (the zero-width joiner of emoji sequences is allowed)."""
    if len(name) > NAME_MAX:
        return f"has {len(name):,} characters; a GCG record's lines hold 512, so a name has at most {NAME_MAX}"
    if has_control(name):
        return "holds a control character (a line break, tab or the like)"
    for c in name:
        if c in _BIDI:
            return f"holds a right-to-left or left-to-right control character (U+{ord(c):04X}), which reorders the text shown"
        if c in _INVISIBLE:
            return f"holds an invisible character (U+{ord(c):04X})"
    return None


_KEY_STEPS = (("letter case", str.casefold),
              ("spacing", lambda text: " ".join(text.split())),
              ("the form of a letter (full-width, a ligature)", lambda text: unicodedata.normalize("NFKC", text)))


def scoresheet_key(name: str, leave_out: str = "") -> str:
    """What a scoresheet shows of ``name``: its letters without case (``casefold``), compatibility forms (NFKC:
    full-width letters, ligatures) and runs of spaces (``'Ann  LEE'`` and ``'ann lee'`` -> ``'ann lee'``);
    ``leave_out``: one of these steps not taken (by its name in :data:`_KEY_STEPS`)."""
    key = name
    for what, step in reversed(_KEY_STEPS):   # NFKC first: it can make spaces and capitals (U+3000, U+FF21)
        key = key if what == leave_out else step(key)
    return key


def clash(names: Sequence[str]) -> tuple[int, int, str] | None:
    """The first two of a game's ``names`` that a scoresheet cannot tell apart (:func:`scoresheet_key`): their
    indexes ``i < j`` and a clause to follow "name1 and name2" ("are both 'Ann'", "are 'Ann' and 'ann', which
    differ only in letter case"), or None when every name is its own."""
    seen: dict[str, int] = {}
    for j, name in enumerate(names):
        i = seen.setdefault(scoresheet_key(name), j)
        if i == j:
            continue
        a = names[i]
        if a == name:
            return i, j, f"are both {shown_name(a)}"
        how = [what for what, _ in _KEY_STEPS if scoresheet_key(a, what) != scoresheet_key(name, what)] \
            or ["letter case"]
        return i, j, f"are {shown_name(a)} and {shown_name(name)}, which differ only in {' and '.join(how)}"
    return None
