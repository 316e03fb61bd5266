"""A player's side of the table (:class:`Side`): the clock button he presses to end his turn, and his clock face.

Sides are numbered by seat, in the order of the game's players (seat 0 is the first player named at the start).
A two-player chess clock calls its sides "left" (seat 0) and "right" (seat 1), as the clock buttons' devices and
the device config do; further seats are "seat 3", "seat 4" (one-based, as players count them).
"""

from __future__ import annotations

from dataclasses import dataclass

SIDE_NAMES: tuple[str, ...] = ("left", "right")
"""The names of the first seats' sides, as the clock's buttons report them."""


@dataclass(frozen=True, order=True)
class Side:
    """The side of the player in ``seat`` (0-based index into the game's players).

    Raises:
        ValueError: ``seat`` is not a whole number >= 0.
    """

    seat: int

    def __post_init__(self) -> None:
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < 0:
            raise ValueError(f"side: seat {self.seat!r} is not a seat number (0, 1, 2, ...)")

    @property
    def name(self) -> str:
        """"left", "right", then "seat 3", "seat 4" ..."""
        return SIDE_NAMES[self.seat] if self.seat < len(SIDE_NAMES) else f"seat {self.seat + 1}"

    @classmethod
    def named(cls, name: str) -> Side:
        """The side called ``name`` ("left", "right", "seat 3" ...).

        Raises:
            ValueError: no side has that name (the message names it).
        """
        if name in SIDE_NAMES:
            return cls(SIDE_NAMES.index(name))
        word, _, number = name.partition(" ")
        if word == "seat" and number.isdigit() and int(number) > len(SIDE_NAMES):
            return cls(int(number) - 1)
        raise ValueError(f"unknown side {name!r}: expected {', '.join(SIDE_NAMES)} or 'seat N'")

    def __str__(self) -> str:
        return self.name


LEFT = Side(0)
RIGHT = Side(1)
