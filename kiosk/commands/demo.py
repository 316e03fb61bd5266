"""``kiosk demo``: the kiosk refereeing a recorded game at a simulated (or recorded) table."""

from __future__ import annotations

import argparse
import os
import sys
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
    parser.add_argument("--journal", type=Path, help="journal file; an unfinished game of this record resumes "
                        "(--recording: refereed from its first move into a journal without an unfinished game; "
                        "default: a temporary one, removed when the demo ends)")
    parser.add_argument("--fresh", action="store_true",
                        help="play the record from its start: an unfinished game of it in the journal is closed "
                             "with the scores as they stand (its events stay in the journal)")
    parser.add_argument("--speed", type=_speed, default=None,
                        help=f"game time runs N times faster than the wall clock, N from {MIN_SPEED:g} to "
                             f"{MAX_SPEED:g}, or 0: as fast as possible (default: headless 0, windowed 30)")
    parser.add_argument("--size", type=_size, default=(2028, 1520), help="synthetic camera frame WxH px (default 2028x1520)")
    parser.add_argument("--level", default="typical", choices=("easy", "typical", "hard"),
                        help="synthetic camera realism (default typical)")
    parser.add_argument("--screen", type=_size, default=(800, 480), help="window size WxH px (default 800x480)")


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH in px, e.g. 800x480, got {text!r}") from None
    if not (160 <= w <= 10000 and 120 <= h <= 10000):
        raise argparse.ArgumentTypeError(f"{w}x{h} px is outside 160x120 .. 10000x10000")
    return w, h


MIN_SPEED, MAX_SPEED = 0.1, 1000.0   # 1000: a 25-minute clock in 1.5 s; 0.1: a 1 s wait takes 10 s


def _speed(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if v != 0 and not MIN_SPEED <= v <= MAX_SPEED:
        raise argparse.ArgumentTypeError(f"expected 0 (as fast as possible) or a number from {MIN_SPEED:g} to "
                                         f"{MAX_SPEED:g}, got {text!r}")
    return v


def _out(line: str) -> None:
    """The demo's lines: moves and the final on stdout, its errors and warnings on stderr (``kiosk demo: ...``)."""
    if line.startswith("error: "):
        print(f"kiosk demo: {line[len('error: '):]}", file=sys.stderr, flush=True)
    elif line.startswith("warning: "):
        print(f"kiosk demo: {line}", file=sys.stderr, flush=True)
    else:
        print(line, flush=True)


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and \
        os.environ.get("SDL_VIDEODRIVER") != "dummy"


def _signals_as_interrupt() -> None:
    """SIGTERM stops the demo as Ctrl-C does (KeyboardInterrupt: the demo prints where it stopped and how to
    resume), and SDL installs no signal handlers of its own, which turned both into a window-close request
    that the screen refresh during clock waits read and dropped: windowed and headless stop alike."""
    import signal

    os.environ["SDL_NO_SIGNAL_HANDLERS"] = "1"

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)


def run(args: argparse.Namespace) -> int:
    _signals_as_interrupt()
    if args.recording is not None:
        from kiosk.app.recording import run_recording
        from kiosk.files import InputError, check_output

        if not args.recording.is_dir():
            why = "no such folder" if not args.recording.exists() else "not a folder"
            raise InputError(f"{args.recording}: {why} (a recording is a folder of game.ini, game.csv and "
                             "image-N.jpg)")
        if args.journal is not None:
            check_output(args.journal, "journal")

        return run_recording(args.recording, journal=args.journal, calibration=args.calibration, out=_out)
    from kiosk.app.record_demo import BUILTIN_GAME, DemoOptions, run_demo
    from kiosk.files import check_output, check_text_file

    if args.game is not None:
        check_text_file(args.game, "GCG record")
    if args.calibration is not None:
        check_text_file(args.calibration, "calibration profile")
    if args.journal is not None:
        check_output(args.journal, "journal")   # its folder must exist: a typo must not run a whole game
    headless = args.headless or not _has_display()
    opts = DemoOptions(game=args.game or BUILTIN_GAME, journal=args.journal, level=args.level, size=args.size,
                       calibration=args.calibration, fresh=args.fresh)
    if headless:
        opts.speed = args.speed or 0.0
        return run_demo(opts, out=_out).code
    from kiosk.ui.window import DemoWindow

    opts.speed = args.speed if args.speed is not None else 30.0
    window = DemoWindow(args.screen)
    try:
        opts.ui = window.frame
        return run_demo(opts, out=_out).code
    finally:
        window.close()
