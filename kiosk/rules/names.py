"""Players' names as every part of the kiosk takes them: printable text, no control characters.

A name travels into the journal, the screen, the GCG record (``#player1 NICK Full Name``), the desk's ``.t`` and CSV
exports and the stream. A line break in one adds lines to all of those (a GCG line of its own, a ``.t`` line that
reads as another player); a tab or an escape code garbles them. So a name holding a control character (Unicode
categories Cc, Zl and Zp: line and paragraph breaks, tab, escape, NUL ...) is refused wherever a name comes in:
the kiosk's config, a GCG record's ``#playerN`` line, the desk's event file and its messages. Format characters
(Cf) are allowed: emoji sequences need the zero-width joiner.
"""

from __future__ import annotations

import unicodedata

_CONTROL = frozenset({"Cc", "Zl", "Zp"})


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (line breaks, tab, escape ...; Unicode Cc, Zl, Zp)."""
    return any(unicodedata.category(c) in _CONTROL for c in text)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's name (a sentence to follow the name), or None when it can: a name holding
    a control character ("holds a control character (a line break, tab or the like)")."""
    if has_control(name):
        return "holds a control character (a line break, tab or the like)"
    return None
