"""Subcommands of the ``kiosk`` command line (see :mod:`kiosk.cli`), and the argument types they share."""

from __future__ import annotations

import argparse
import math


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds >= 0 (``nan``, ``inf`` and negatives are refused by name:
    ``--timeout nan`` ended a wait at once and reported a game published that never left the machine)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got {text!r}")
    return v
