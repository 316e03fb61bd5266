"""Device check for installers: ``python -m kiosk.devices.check [CONFIG.toml] [--seconds 20] [--frame out.png]``.

Builds the devices from the ``[devices]`` table of the kiosk's config file, read as ``kiosk run`` reads it (its
``[table]`` values checked as ``kiosk run --check`` checks them, in the same sentences; a kiosk config without
``[devices]``: the default devices, said first; a file of device tables only, ``buttons``, ``display``,
``camera`` and ``serial`` at the top, is read as the table; without a file: the demo defaults),
prints each one's health, counts the clock down on the display, prints every button press as it comes for
``--seconds``, and saves one camera frame as a PNG. Each device is judged by its state at the end of
the watch (:mod:`kiosk.devices.watch`): one lost for a while that came back works, and what happened is said
("clock-link (serial) works; it was lost once for 2.3 s during the check (why)."). Exit code 0 when every
configured device works at the end (and the frame asked for is saved), 1 otherwise (the failing ones are
named: "down", or "degraded" by errors of its own; a frame not saved is said on stderr, never "saved"), 2 for
a bad config or a ``--frame`` path that cannot take a picture (a folder, a missing folder, a suffix of no
image format: checked before the watch).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from kiosk.devices.camera import CameraError
from kiosk.devices.factory import DeviceConfigError, Devices, build_devices, check_devices_config, devices_words
from kiosk.devices.health import DeviceHealth, monotonic_ms
from kiosk.devices.watch import HealthWatch
from kiosk.files.config_layout import DEVICE_TABLES


def read_devices_config(path: Path | None) -> tuple[dict[str, Any], str | None]:
    """The devices table of the config file at ``path`` and, when it is not the file's ``[devices]`` table, what
    is checked instead (said in the output): {} and "the demo defaults" without a path, {} and "no [devices]
    table: the default devices" for a kiosk config without one, the whole file for a file of device tables only
    (``buttons``, ``display``, ``camera``, ``serial`` at the top, said: ``kiosk run`` reads them only under
    ``[devices]``). Any other file is read as ``kiosk run`` reads it, by the same reader with the same sentences
    (:func:`kiosk.files.config_layout.read_config_file`'s checks: missing, empty, UTF-16, binary or not TOML, a section or
    key out of its place: ``players belongs in [table]: ...``, a device table outside ``[devices]``), and its
    ``[table]`` values, where it has one, by ``kiosk run --check``'s check (:func:`kiosk.settings.table.check_table`:
    ``table.judge_pin: expected 4 to 8 digits 0-9``, a preset or lexicon that does not load, ...).

    Raises:
        DeviceConfigError: naming the file.
    """
    from kiosk.files import InputError, read_toml
    from kiosk.files.config_layout import layout_problem

    if path is None:
        return {}, "no config file: the demo defaults"
    try:
        data = read_toml(path, "config file")   # as read_config_file reads it, with a file of device tables too
    except InputError as exc:
        raise DeviceConfigError(str(exc)) from None
    if data and set(data) <= set(DEVICE_TABLES):
        return data, "device tables only, read as the [devices] table (kiosk run reads them only under [devices])"
    if (problem := layout_problem(data)) is not None:
        raise DeviceConfigError(f"{path}: {problem}")
    if "table" in data:   # its values as kiosk run --check checks them, in its sentences
        from kiosk.settings.table import TableError, check_table

        try:
            check_table(path, data["table"], open_lexicon=True)
        except TableError as exc:
            raise DeviceConfigError(str(exc)) from None
    if "devices" not in data:
        return {}, "no [devices] table: the default devices"
    return data["devices"], None


def load_devices_config(path: Path | None) -> dict[str, Any]:
    """The devices table of the config file at ``path`` ({} without a path): :func:`read_devices_config`."""
    return read_devices_config(path)[0]


def _empty_board() -> Any:
    """The board a synthetic camera renders during the check: empty (no game runs)."""
    from kiosk.rules.board import Board

    return Board()


def _line(h: DeviceHealth) -> str:
    counters = ", ".join(f"{k} {v}" for k, v in sorted(h.counters.items()) if v)
    return f"{h.device:10s} {h.backend:10s} {h.state:8s} {h.detail}" + (f" [{counters}]" if counters else "")


SETTLE_S = 1.0
"""How long the watch first waits for a serial clock link's handshake (a few ms on a working clock), so its
coming up is no trouble to report."""


def _watch(devices: Devices, seconds: float) -> HealthWatch:
    """Count the clock down on the display and print each press for ``seconds``, looking at every device's
    health at each round."""
    print(f"watching the buttons for {seconds:g} s; the display counts down", flush=True)
    end = time.monotonic() + seconds
    start = monotonic_ms()
    if devices.serial_link is not None:
        devices.serial_link.wait_connected(min(SETTLE_S, seconds))
    watch = HealthWatch(start)
    while True:
        watch.look(devices.health(), monotonic_ms())
        if time.monotonic() >= end:
            return watch
        left = int((end - time.monotonic()) * 1000)
        devices.display.show(left, left - 5_000)  # right side runs into overtime: minus and flag
        for press in devices.buttons.poll():
            print(f"  press {press.side:6s} at {press.timestamp_ms - start} ms", flush=True)
        time.sleep(0.02)


def _save_frame(devices: Devices, path: Path) -> str | None:
    """Save one camera frame at ``path``; None, or why none was saved (said on stderr)."""
    from kiosk.files import InputError
    from kiosk.vision.images import write_image

    try:
        _, frame = devices.camera.capture()
        write_image(path, frame, "camera frame")
    except CameraError as exc:
        return f"--frame: no camera frame saved to {path}: the camera gave none ({exc})"
    except InputError as exc:
        return f"--frame: no camera frame saved: {exc}"
    print(f"camera frame {frame.shape[1]}x{frame.shape[0]} px saved to {path}")
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kiosk.devices.check", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", type=Path, help="kiosk config TOML with a [devices] table")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to watch the buttons (default 10)")
    parser.add_argument("--frame", type=Path, help="save one camera frame here (PNG)")
    args = parser.parse_args(argv)
    if args.frame is not None:   # checked before the watch: a frame that cannot be saved is known at once
        from kiosk.files import InputError
        from kiosk.vision.images import check_image_output

        try:
            check_image_output(args.frame, "camera frame")
        except InputError as exc:
            print(f"--frame: {exc}", file=sys.stderr)
            return 2
    try:
        config, instead = read_devices_config(args.config)
    except DeviceConfigError as exc:   # names the file
        print(f"device config: {exc}", file=sys.stderr)
        return 2
    if instead is not None:   # said, so that a forgotten [devices] table is not taken for the installed devices
        print(f"{args.config or 'device config'}: {instead} ({check_devices_config(config)})", flush=True)
    try:   # a synthetic camera shows the board the kiosk keeps: here, with no game, an empty board
        devices = build_devices(config, board=_empty_board)
    except DeviceConfigError as exc:   # names the key: the file is said here
        print(f"device config: {args.config or 'the demo defaults'}: {devices_words(exc)}", file=sys.stderr)
        return 2
    try:
        watch = _watch(devices, args.seconds)
        unsaved = _save_frame(devices, args.frame) if args.frame else None
        if unsaved is not None:
            print(unsaved, file=sys.stderr)
        health = devices.health()
        end = monotonic_ms()
        watch.look(health, end)
        for h in health:
            print(_line(h))
        for sentence in watch.sentences(end):
            print(sentence)
        bad = watch.failing(health)
        if bad:
            print("not working: " + ", ".join(f"{h.device} ({h.backend})" for h in bad))
        return 1 if bad or unsaved else 0
    finally:
        devices.close()


if __name__ == "__main__":
    sys.exit(main())
