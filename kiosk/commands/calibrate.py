"""``kiosk calibrate STEP``: marker sheet, camera intrinsics, board pose, exposure lock, tile glyphs.
The steps live in :mod:`calibration.cli`."""

from __future__ import annotations

import argparse

NAME = "calibrate"
HELP = "calibration tools: markers, intrinsics, pose, exposure, glyphs (writes the calibration profile)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from calibration.cli import add_arguments as add

    add(parser)


def run(args: argparse.Namespace) -> int:
    from calibration.cli import run as run_step

    return run_step(args)
