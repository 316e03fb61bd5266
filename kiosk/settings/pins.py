"""The rule of a PIN a person writes in a settings file: the judge PIN and the director's recovery code of the
kiosk's config (``table.judge_pin``, ``table.director_code``), the desk's ``director_pin`` (``event.toml``).

PINs are 4-8 ASCII digits (the pad takes 8); the recovery code 6-8 ASCII digits, not the PIN. A PIN written as a
number (``judge_pin = 2468``) is refused with the quoted form to write (a number loses its leading zeros).
"""

from __future__ import annotations

import re

PIN_RE = re.compile(r"[0-9]{4,8}")
RECOVERY_RE = re.compile(r"[0-9]{6,8}")


def _number_given(value: object, what: str, rule: re.Pattern[str], rule_words: str) -> None:
    """Raises ``ValueError`` for a PIN or code given as a number (TOML ``judge_pin = 2468``): a PIN is text, and
    a number loses its leading zeros; the sentence shows the quoted form (``what``: the key, e.g.
    ``table.judge_pin``) and the rule when the number's digits break it too."""
    if isinstance(value, int) and not isinstance(value, bool):
        key = what.rsplit(".", 1)[-1]
        also = "" if rule.fullmatch(str(value)) else f"; and it must be {rule_words}"
        raise ValueError(f'{what} = {value}: a PIN is text, so write it in quotes: {key} = "{value}" (a number '
                         f"would lose its leading zeros){also}")


def check_pin(pin: object, what: str = "judge PIN") -> str:
    """``pin`` if it is 4-8 ASCII digits; raises ``ValueError`` naming ``what`` otherwise (also for "١٢٣٤", and
    for a number, ``judge_pin = 2468``: the sentence shows it in quotes)."""
    _number_given(pin, what, PIN_RE, "4 to 8 digits 0-9")
    if not isinstance(pin, str) or not PIN_RE.fullmatch(pin):
        raise ValueError(f"{what}: expected 4 to 8 digits 0-9, e.g. \"2468\"")
    return pin


def check_recovery_code(code: object, pin: str, what: str = "director's recovery code") -> str:
    """``code`` if it is 6-8 ASCII digits and not the PIN; raises ``ValueError`` naming ``what`` otherwise (a
    number, ``director_code = 90817263``, too: the sentence shows it in quotes)."""
    _number_given(code, what, RECOVERY_RE, "6 to 8 digits 0-9 (the pad takes 8)")
    if not isinstance(code, str) or not RECOVERY_RE.fullmatch(code):
        raise ValueError(f"{what}: expected 6 to 8 digits 0-9 (the pad takes 8)")
    if code == pin:
        raise ValueError(f"{what}: must differ from the judge PIN")
    return code
