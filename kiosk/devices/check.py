"""Device check for installers: ``python -m kiosk.devices.check [CONFIG.toml] [--seconds 20] [--frame out.png]``.

Builds the devices from the ``[devices]`` table of the kiosk's config file (or, without a file, the demo
defaults), prints each one's health, counts the clock down on the display, prints every button press as it
comes for ``--seconds``, and saves one camera frame as a PNG. Exit code 0 when every configured device is
ok (and the frame asked for is saved), 1 otherwise (the failing ones are named; a frame not saved is said on
stderr, never "saved"), 2 for a bad config or a ``--frame`` path that cannot take a picture (a folder, a
missing folder, a suffix of no image format: checked before the watch).
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from kiosk.devices.camera import CameraError
from kiosk.devices.factory import DeviceConfigError, build_devices
from kiosk.devices.health import DeviceHealth, monotonic_ms


def load_devices_config(path: Path | None) -> dict[str, Any]:
    """The ``[devices]`` table of a kiosk config TOML (or the whole file when it has none); {} without a path.
    Raises DeviceConfigError naming the file."""
    if path is None:
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DeviceConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DeviceConfigError(f"{path}: not valid TOML: {exc}") from None
    devices = data.get("devices", data)
    if not isinstance(devices, dict):
        raise DeviceConfigError(f"{path}: [devices] must be a table")
    return devices


def _empty_board() -> Any:
    """The board a synthetic camera renders during the check: empty (no game runs)."""
    from kiosk.rules.board import Board

    return Board()


def _line(h: DeviceHealth) -> str:
    counters = ", ".join(f"{k} {v}" for k, v in sorted(h.counters.items()) if v)
    return f"{h.device:10s} {h.backend:10s} {h.state:8s} {h.detail}" + (f" [{counters}]" if counters else "")


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
    try:   # a synthetic camera shows the board the kiosk keeps: here, with no game, an empty board
        devices = build_devices(load_devices_config(args.config), board=_empty_board)
    except DeviceConfigError as exc:
        print(f"device config: {exc}", file=sys.stderr)
        return 2
    try:
        print(f"watching the buttons for {args.seconds:g} s; the display counts down", flush=True)
        end = time.monotonic() + args.seconds
        start = monotonic_ms()
        while time.monotonic() < end:
            left = int((end - time.monotonic()) * 1000)
            devices.display.show(left, left - 5_000)  # right side runs into overtime: minus and flag
            for press in devices.buttons.poll():
                print(f"  press {press.side:6s} at {press.timestamp_ms - start} ms", flush=True)
            time.sleep(0.02)
        unsaved = None
        if args.frame:
            from kiosk.files import InputError
            from kiosk.vision.images import write_image

            try:
                _, frame = devices.camera.capture()
                write_image(args.frame, frame, "camera frame")
                print(f"camera frame {frame.shape[1]}x{frame.shape[0]} px saved to {args.frame}")
            except CameraError as exc:
                unsaved = f"--frame: no camera frame saved to {args.frame}: the camera gave none ({exc})"
            except InputError as exc:
                unsaved = f"--frame: no camera frame saved: {exc}"
            if unsaved is not None:
                print(unsaved, file=sys.stderr)
        health = devices.health()
        for h in health:
            print(_line(h))
        bad = [h for h in health if h.state in ("down", "degraded")]
        if bad:
            print("not working: " + ", ".join(f"{h.device} ({h.backend})" for h in bad))
        return 1 if bad or unsaved else 0
    finally:
        devices.close()


if __name__ == "__main__":
    sys.exit(main())
