"""``kiosk run``: run one table with the backends its config file names (the Raspberry Pi kiosk)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kiosk.commands import seconds

NAME = "run"
HELP = "run a table: clock buttons, camera, board reader, referee, touchscreen, journal (config file)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, required=True, help="the table's config file (TOML)")
    parser.add_argument("--headless", action="store_true", help="no screen (buttons and camera only)")
    parser.add_argument("--seconds", type=seconds, help="stop after this many seconds (tests)")
    parser.add_argument("--check", action="store_true",
                        help="only check the config (the table, its rules, tile set, lexicon, calibration profile, "
                             "stream and devices) without opening the journal or any device: exit 0 when the "
                             "kiosk can start on it, 2 naming the mistake (the install script runs it)")


def run(args: argparse.Namespace) -> int:
    import logging

    from kiosk.app.config import ConfigError, load_config
    from kiosk.app.table import run_table
    from kiosk.files import check_text_file

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    check_text_file(args.config, "config file")
    try:
        cfg = load_config(args.config, open_lexicon=args.check)   # --check: the event's lexicon loads too
    except ConfigError as exc:
        print(f"kiosk run: {exc}", file=sys.stderr)
        return 2
    if args.check:
        return check_config(cfg)
    _sigterm_as_interrupt()
    try:
        return run_table(cfg, headless=args.headless, max_seconds=args.seconds)
    except KeyboardInterrupt:   # stopped while the table was still being set up: nothing to clean but the exit
        return 0


def check_config(cfg: Any) -> int:
    """What ``kiosk run`` checks at start before it opens the journal and the devices, on a config loaded with its
    ``[table]`` checked (:func:`kiosk.settings.table.check_table`: the players, the preset, the tile set, the
    event's lexicon, the PINs): the calibration profile and the devices' section (every key and value, no device
    opened: :func:`kiosk.devices.factory.check_devices_config`). Prints one line: ``CONFIG: config ok (...)``
    (exit 0) or ``kiosk run: CONFIG: ...`` naming the mistake on stderr (exit 2)."""
    from kiosk.devices.factory import DeviceConfigError, check_devices_config, devices_words

    where, table = cfg.source, cfg.table
    if cfg.profile:
        from kiosk.vision.profile import ProfileError, load_profile

        try:
            load_profile(cfg.profile)
        except ProfileError as exc:
            print(f"kiosk run: {where}: vision.profile: {exc}", file=sys.stderr)
            return 2
    try:
        devices = check_devices_config(cfg.devices)
    except DeviceConfigError as exc:
        print(f"kiosk run: {where}: {devices_words(exc)}", file=sys.stderr)
        return 2
    print(f"{where}: config ok ({' vs '.join(cfg.players)} under {table.rules}, tiles {table.tile_set}; {devices}; "
          f"journal {cfg.journal}, opened at start)")
    return 0


def _sigterm_as_interrupt() -> None:
    """SIGTERM (how systemd stops the kiosk) ends the table as Ctrl-C does: run_table's loop stops and its
    clean-up runs (vision worker, devices and clock displays, stream, the journal closed, "stopping" told to
    systemd), where the default action killed the process in the middle of it."""
    import signal

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)
