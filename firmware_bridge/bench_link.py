"""Benchmark of the clock link over the pty simulator (not a test): press latency, timestamp error, display
round trip, and link-loss detection time.

    .venv/bin/python -m firmware_bridge.bench_link [--presses 50]

Press latency = from the simulated button going down to the host's poll() returning it (includes the 20 ms
debounce); timestamp error = the press's host timestamp minus the host time the button went down.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path

from firmware_bridge.host import SerialClockLink, wait_until
from firmware_bridge.simulator import FirmwareSimulator
from kiosk.devices.health import monotonic_ms


def _shows(sim: FirmwareSimulator, text: str) -> bool:
    """True once the simulated clock's left face shows ``text``."""
    return bool(sim.display_text(0) == text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=50)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "clock"
        sim = FirmwareSimulator(path)
        sim.plug()
        link = SerialClockLink(str(path), reconnect_ms=100).start()
        t0 = time.monotonic()
        if not link.wait_connected(5):
            print("no connection:", link.health().detail)
            return 1
        print(f"handshake: {1000 * (time.monotonic() - t0):.0f} ms")
        time.sleep(1.2)  # a heartbeat for the clock offset
        latency, error = [], []
        for i in range(args.presses):
            down = monotonic_ms()
            sim.press(("left", "right")[i % 2], hold_ms=40)
            while not (got := link.poll()):
                time.sleep(0.0005)
            latency.append(monotonic_ms() - down)
            error.append(got[0].timestamp_ms - down)
            time.sleep(0.08)
            print(f"\rpresses {i + 1}/{args.presses}", end="", file=sys.stderr)
        print(file=sys.stderr)
        print(f"press latency ms: median {statistics.median(latency):.0f}, max {max(latency)}")
        print(f"timestamp error ms: median {statistics.median(error):+.0f}, min {min(error):+d}, max {max(error):+d}")
        disp = link.display()
        rtt: list[float] = []
        for s in range(20):
            t = time.monotonic()
            disp.show(60_000 + 1000 * s, 0)
            want = f"{(60 + s) // 60:2d}:{(60 + s) % 60:02d}"
            wait_until(functools.partial(_shows, sim, want), 2, 0.0005)
            rtt.append(1000 * (time.monotonic() - t))
        print(f"display update to shown ms: median {statistics.median(rtt):.1f}, max {max(rtt):.1f}")
        sim.hang()
        t = time.monotonic()
        wait_until(lambda: not link.connected, 5, 0.005)
        print(f"silent clock declared lost after {1000 * (time.monotonic() - t):.0f} ms (limit 3000)")
        sim.hang(False)
        sim.unplug()
        t = time.monotonic()
        sim.plug()
        wait_until(lambda: link.connected, 5, 0.005)
        print(f"reconnected {1000 * (time.monotonic() - t):.0f} ms after replug")
        recoveries: list[float] = []
        for i in range(5):  # controller resets with the clock running (a face every 100 ms), then a press
            time.sleep(0.33)
            boot = 0x5EED_0000 + i
            sim.reboot(boot)
            t = time.monotonic()
            while not (link.connected and link.boot_id == boot) and time.monotonic() - t < 5:
                disp.show(60_000 - 100 * len(recoveries), 0)
                time.sleep(0.1)
            recoveries.append(1000 * (time.monotonic() - t))
            sim.press("left", hold_ms=40)
            wait_until(lambda: bool(link.poll()), 2, 0.001)
        print(f"controller reset recovered after ms: {', '.join(f'{r:.0f}' for r in recoveries)} (limit 3000)")
        print("counters:", link.health().counters)
        link.close()
        sim.unplug()
    return 0


if __name__ == "__main__":
    sys.exit(main())
