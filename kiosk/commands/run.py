"""``kiosk run``: run one table with the backends its config file names (the Raspberry Pi kiosk)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kiosk.commands import seconds

NAME = "run"
HELP = "run a table: clock buttons, camera, board reader, referee, touchscreen, journal (config file)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, required=True, help="the table's config file (TOML)")
    parser.add_argument("--headless", action="store_true", help="no screen (buttons and camera only)")
    parser.add_argument("--seconds", type=seconds, help="stop after this many seconds (tests)")


def run(args: argparse.Namespace) -> int:
    import logging

    from kiosk.app.config import ConfigError, load_config
    from kiosk.app.table import run_table
    from kiosk.files import check_text_file

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    check_text_file(args.config, "config file")
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(f"kiosk run: {exc}", file=sys.stderr)
        return 2
    _sigterm_as_interrupt()
    try:
        return run_table(cfg, headless=args.headless, max_seconds=args.seconds)
    except KeyboardInterrupt:   # stopped while the table was still being set up: nothing to clean but the exit
        return 0


def _sigterm_as_interrupt() -> None:
    """SIGTERM (how systemd stops the kiosk) ends the table as Ctrl-C does: run_table's loop stops and its
    clean-up runs (vision worker, devices and clock displays, stream, the journal closed, "stopping" told to
    systemd), where the default action killed the process in the middle of it."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)
