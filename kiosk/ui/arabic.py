"""Arabic letters in their joined forms, for a renderer without text shaping.

Apt's pygame 2.1 cannot ask SDL_ttf for right-to-left shaping: depending on how SDL_ttf was built, Arabic is
drawn either in isolated forms or joined as if it ran left to right (each letter in the wrong form once the
line is put in visual order). :func:`join_forms` replaces each letter by its contextual form from Unicode's
presentation-form blocks (isolated, final, initial, medial; lam-alef ligatures), which every renderer draws as
they are; :func:`kiosk.ui.fonts.visual_order` then puts them right to left. Covers Arabic, Persian and Urdu
letters that have presentation forms; marks (harakat) are kept on their letters.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_FORMS = ("<isolated>", "<final>", "<initial>", "<medial>")
_LAM = "\u0644"


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, dict[str, str]], dict[tuple[str, str], dict[str, str]]]:
    """(letter -> {form tag: presentation form}, (lam, alef) -> {form tag: ligature}), from Unicode's own
    decompositions of the presentation forms (U+FB50-U+FEFF)."""
    letters: dict[str, dict[str, str]] = {}
    ligatures: dict[tuple[str, str], dict[str, str]] = {}
    for code in range(0xFB50, 0xFF00):
        tag, *bases = unicodedata.decomposition(chr(code)).split() or [""]
        if tag not in _FORMS:
            continue
        chars = "".join(chr(int(b, 16)) for b in bases)
        if len(chars) == 1:
            letters.setdefault(chars, {}).setdefault(tag, chr(code))
        elif len(chars) == 2 and chars[0] == _LAM and unicodedata.name(chars[1], "").startswith("ARABIC LETTER ALEF"):
            ligatures.setdefault((chars[0], chars[1]), {}).setdefault(tag, chr(code))
    return letters, ligatures


def _joins_next(ch: str | None) -> bool:
    """Whether ``ch`` joins the letter after it (dual-joining: it has an initial form)."""
    return ch is not None and "<initial>" in _tables()[0].get(ch, {})


def _joins_prev(ch: str | None) -> bool:
    """Whether ``ch`` joins the letter before it (it has a final form)."""
    return ch is not None and "<final>" in _tables()[0].get(ch, {})


def _neighbour(text: str, i: int, step: int) -> str | None:
    """The nearest letter before (``step`` -1) or after (+1) index ``i``, skipping marks; None at an end."""
    j = i + step
    while 0 <= j < len(text) and unicodedata.category(text[j]) == "Mn":
        j += step
    return text[j] if 0 <= j < len(text) else None


def join_forms(text: str) -> str:
    """``text`` (logical order) with each Arabic letter replaced by its contextual presentation form and
    lam + alef by their ligature; text without Arabic letters is returned unchanged."""
    letters, ligatures = _tables()
    if not any(ch in letters for ch in text):
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        forms = letters.get(ch)
        if forms is None:
            out.append(ch)
            i += 1
            continue
        prev = _neighbour(text, i, -1)
        nxt = _neighbour(text, i, 1)
        after_prev = _joins_next(prev) and _joins_prev(ch)
        lig = ligatures.get((ch, nxt)) if ch == _LAM and nxt is not None else None
        if lig is not None and text[i + 1] == nxt:  # lam-alef (no mark between them)
            out.append(lig.get("<final>" if after_prev else "<isolated>", ch + nxt))
            i += 2
            continue
        before_next = _joins_next(ch) and _joins_prev(nxt)
        tag = {(True, True): "<medial>", (True, False): "<final>", (False, True): "<initial>"}.get(
            (after_prev, before_next), "<isolated>")
        out.append(forms.get(tag) or forms.get("<isolated>") or ch)
        i += 1
    return "".join(out)
