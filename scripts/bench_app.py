#!/usr/bin/env python3
"""Benchmark: time from a clock press (board already still) to the scored move on the screen, in the demo.

The demo's whole pipeline: the simulated table renders the physical board with the synthetic camera ("typical"
level), the vision worker reads it with the board reader in its thread, the kiosk diffs, validates, scores and
journals the move, and the touchscreen (pygame, dummy video driver) draws the main view. For each tile play of
the built-in game without a blank: the hands place the tiles, the benchmark waits until the worker has read the
new board at least twice (the board is still), then presses the clock and stops the watch when the main view
showing the scored move has been drawn.

    .venv/bin/python scripts/bench_app.py [GAME.gcg ...] [--moves N] [--size 2028x1520] [--interval-ms 100]

(With several records, each is played until the kiosk stops agreeing with it - a misread - then the next.)

Prints one line per move and the median / 90th percentile / max in ms (bar: median <= 250 ms).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kiosk.app.kiosk import Kiosk  # noqa: E402
from kiosk.app.pin import PinGate  # noqa: E402
from kiosk.app.reader_setup import make_reader  # noqa: E402
from kiosk.app.record_demo import BUILTIN_GAME  # noqa: E402
from kiosk.app.record_players import plan_record  # noqa: E402
from kiosk.app.simtable import SimClock, SimulatedTable  # noqa: E402
from kiosk.app.vision_worker import VisionWorker  # noqa: E402
from kiosk.referee.simulate import tiles_for  # noqa: E402
from kiosk.rules.gcg import EventKind, read_gcg  # noqa: E402
from kiosk.store import GameSession  # noqa: E402


def bench_game(path: Path, size: tuple[int, int], interval_ms: int, want: int) -> list[float]:
    """Time the tile plays of one record (until ``want`` are timed or the kiosk stops agreeing with it)."""
    from kiosk.ui.app import KioskUI

    plan = plan_record(read_gcg(path))
    clock = SimClock(0, 0.0)
    table = SimulatedTable(plan.tile_set, clock, size=size)
    worker = VisionWorker(table, make_reader(plan.tile_set), interval_ms=interval_ms, clock=clock).start()
    session = GameSession.open(Path(tempfile.mkdtemp()) / "bench.sqlite")
    kiosk = Kiosk(session, worker, None, PinGate("1234"), clock)
    kiosk.start_game(plan.preset.to_dict(), plan.nicks)
    ui = KioskUI(kiosk, (800, 480))
    ui.draw()
    sides = ("left", "right")
    lat: list[float] = []
    try:
        for ev in plan.events:
            if len(lat) >= want or ev.kind != EventKind.PLAY:
                break
            p = plan.nicks.index(ev.nick)
            tiles = tiles_for(table.board().cells, str(ev.coordinate), ev.word)
            clock.advance(10_000)
            table.place(tiles)
            clock.advance(1_000)
            seen = worker.frames_read
            while worker.frames_read < seen + table.pool + 1:  # the camera streams the still board; read it
                time.sleep(0.005)
            clock.advance(500)  # the press comes after those frames
            before = len(kiosk.state.history)
            t0 = time.perf_counter()
            kiosk.press(sides[p])
            while kiosk.pending is not None:
                kiosk.poll()
                time.sleep(0.001)
            ui.draw()
            ms = (time.perf_counter() - t0) * 1000
            st = kiosk.state
            blank = any(c.islower() for c in ev.word)
            if st.phase == "designating":  # the blank's letter is a person's step: answer it, don't time it
                for sq in st.pending_blanks:
                    kiosk.act("designate", player=p, square=sq, letter=table.board().cells[sq].upper() or "E")
            scored = len(kiosk.state.history) > before
            line = f"{path.stem[:24]} {ev.nick}: {ev.coordinate} {ev.word}: {ms:.0f} ms"
            if not scored or blank:
                print(line + ("  (not timed: blank)" if blank else f"  (not scored: {kiosk.view.message})"))
                if not scored:
                    break
                continue
            lat.append(ms)
            print(line, flush=True)
    finally:
        worker.stop()
        session.close()
    return lat


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="*", type=Path, help="GCG records (default: the built-in game)")
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--size", default="2028x1520")
    ap.add_argument("--interval-ms", type=int, default=100, help="the worker's pause between idle frames")
    args = ap.parse_args()
    size = (int(args.size.split("x")[0]), int(args.size.split("x")[1]))
    import pygame

    pygame.display.init()
    lat: list[float] = []
    for path in args.games or [BUILTIN_GAME]:
        lat += bench_game(path, size, args.interval_ms, args.moves - len(lat))
        if len(lat) >= args.moves:
            break
    if not lat:
        print("no move timed")
        return 1
    lat.sort()
    p90 = lat[min(len(lat) - 1, int(0.9 * len(lat)))]
    print(f"{len(lat)} moves: median {statistics.median(lat):.0f} ms, p90 {p90:.0f} ms, max {lat[-1]:.0f} ms "
          f"(frame {size[0]}x{size[1]}, idle interval {args.interval_ms} ms; bar: median <= 250 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
