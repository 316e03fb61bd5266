"""A count and its noun as a person reads them: "1 move", "2 moves", "0 moves".

One function for every place that joins a number and a noun for a person (the touchscreen, the command line's
output, the desk, the demo's and the calibration's reports), so that none says "1 minutes" or "1 tile(s)". It lives
in the pure rules core so that the referee may use it too; :mod:`kiosk.control.words` (the words shown to players)
re-exports it.
"""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None, *, fmt: str = "") -> str:
    """``n`` and ``noun``, the noun in the plural unless ``n`` is 1 or -1: ``counted(1, "move")`` is "1 move",
    ``counted(0, "move")`` "0 moves", ``counted(2, "match", "matches")`` "2 matches" (``plural``: an irregular
    plural, by default ``noun + "s"``). ``fmt`` formats the number (``"+d"``: "+1 point", "-3 points"; ``","``:
    "1,024 letters")."""
    return f"{n:{fmt}} {noun if abs(n) == 1 else plural if plural is not None else noun + 's'}"
