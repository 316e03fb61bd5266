"""``kiosk demo``: the kiosk refereeing a recorded game at a simulated (or recorded) table."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

NAME = "demo"
HELP = "referee a recorded game end to end: simulated players, synthetic camera, board reader, journal"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", type=Path, help="GCG record to play (default: the built-in game)")
    parser.add_argument("--calibration", type=Path, default=None,
                        help="calibration profile for the reader (default for --recording: built once from the "
                             "recording's letter images beside it)")
    parser.add_argument("--recording", type=Path,
                        help="a recorded real game (frames + game.csv + game.ini) to re-referee")
    parser.add_argument("--headless", action="store_true", help="no window (default when there is no display)")
    parser.add_argument("--journal", type=Path, help="journal file; an unfinished game of this record resumes")
    parser.add_argument("--speed", type=float, default=None,
                        help="game time runs N times faster than the wall clock (default: headless as fast as "
                             "possible, windowed 30)")
    parser.add_argument("--size", default="2028x1520", help="synthetic camera frame WxH px (default 2028x1520)")
    parser.add_argument("--level", default="typical", help="synthetic camera realism: easy, typical, hard")
    parser.add_argument("--screen", default="800x480", help="window size WxH px (default 800x480)")


def _size(text: str, what: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SystemExit(f"kiosk demo: {what}: expected WxH in px, e.g. 800x480, got {text!r}") from None
    if not (160 <= w <= 10000 and 120 <= h <= 10000):
        raise SystemExit(f"kiosk demo: {what}: {w}x{h} px is outside 160x120 .. 10000x10000")
    return w, h


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and \
        os.environ.get("SDL_VIDEODRIVER") != "dummy"


def run(args: argparse.Namespace) -> int:
    if args.recording is not None:
        from kiosk.app.recording import run_recording

        return run_recording(args.recording, journal=args.journal, calibration=args.calibration)
    from kiosk.app.record_demo import BUILTIN_GAME, DemoOptions, run_demo

    if args.level not in ("easy", "typical", "hard"):
        print(f"kiosk demo: --level: expected easy, typical or hard, got {args.level!r}")
        return 2
    if args.speed is not None and args.speed < 0:
        print("kiosk demo: --speed: must be >= 0")
        return 2
    headless = args.headless or not _has_display()
    opts = DemoOptions(game=args.game or BUILTIN_GAME, journal=args.journal, level=args.level,
                       size=_size(args.size, "--size"))
    if headless:
        opts.speed = args.speed or 0.0
        return run_demo(opts).code
    from kiosk.ui.window import DemoWindow

    opts.speed = args.speed if args.speed is not None else 30.0
    window = DemoWindow(_size(args.screen, "--screen"))
    try:
        opts.ui = window.frame
        return run_demo(opts).code
    finally:
        window.close()
