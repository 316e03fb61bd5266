"""Clock faces for 4-digit 7-segment displays: time formatting and segment encoding.

Segment bits (HT16K33 datasheet / Adafruit backpack wiring): a=0x01 (top), b=0x02, c=0x04, d=0x08 (bottom),
e=0x10, f=0x20, g=0x40 (middle), dp=0x80.
"""

from __future__ import annotations

from dataclasses import dataclass

FONT: dict[str, int] = {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D, "7": 0x07, "8": 0x7F,
    "9": 0x6F, "-": 0x40, " ": 0x00, "E": 0x79, "r": 0x50, "o": 0x5C, "n": 0x54, "P": 0x73, "A": 0x77,
    "U": 0x3E, "S": 0x6D, "_": 0x08,
}
DP = 0x80
MAX_CLOCK_S = 99 * 60 + 59


@dataclass(frozen=True)
class ClockFace:
    """What one side's display shows: 4 characters, the centre colon, and the overtime flag (the last
    digit's decimal point)."""

    text: str
    colon: bool
    flag: bool

    def __str__(self) -> str:
        t = self.text
        s = f"{t[:2]}:{t[2:]}" if self.colon else t
        return s + ("." if self.flag else "")

    def segments(self) -> bytes:
        """The 4 digit segment bytes, left to right (dp of the last digit = flag)."""
        try:
            seg = [FONT[c] for c in self.text]
        except KeyError as exc:
            raise ValueError(f"no 7-segment glyph for {exc.args[0]!r} in {self.text!r}") from None
        if self.flag:
            seg[3] |= DP
        return bytes(seg)


def clock_face(ms: int, overtime: bool = False) -> ClockFace:
    """Face for a clock at ``ms`` remaining (ms; negative = overtime).

    In time: whole seconds rounded up (a clock shows 0:01 until it reaches 0) as "MM:SS" (leading blank
    below 10 minutes, clamped at 99:59). In overtime (``overtime`` flag or ``ms < 0``): elapsed overtime
    rounded down, "-M:SS" below 10 minutes, "-MM" minutes from then on (clamped at 99), flag lit.
    """
    if not isinstance(ms, int) or isinstance(ms, bool):
        raise ValueError(f"clock time must be int ms, got {ms!r}")
    if overtime or ms < 0:
        s = abs(ms) // 1000
        if s < 600:
            return ClockFace(f"-{s // 60}{s % 60:02d}", True, True)
        return ClockFace(f"-{min(s // 60, 99):2d} ", False, True)
    s = min(-(-ms // 1000), MAX_CLOCK_S)
    return ClockFace(f"{s // 60:2d}{s % 60:02d}", True, False)


def text_face(text: str) -> ClockFace:
    """A 4-character message (e.g. "Err ", "PAUS"); raises ValueError for characters the font lacks."""
    face = ClockFace(f"{text:<4}"[:4], False, False)
    face.segments()
    return face
