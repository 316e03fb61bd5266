#!/usr/bin/env python3
"""Speed of the board reader on one core: median ms per reading of a 2028 x 1520 frame, and diff + hand-over.

    .venv/bin/python scripts/bench_vision_speed.py [--frames 20] [--mode markers|fixed|grid|corners]

Frames come from the synthetic camera (``kiosk.vision.synth``, level "typical", boards of 20-90 tiles).
Modes: ``markers`` (default: ArUco localisation every frame, searched where the markers were in the previous
frame -- a steady kiosk camera; ``--cold`` searches the whole frame), ``fixed`` (calibrated homography reused, the
fixed-camera mode), ``grid`` (marker-less search), ``corners`` (given corners, refined on the grid lines).
``--steady``: the kiosk's steady state, one camera watching one game: consecutive positions of one synthetic game
(a few tiles added between frames, each frame its own light, glare and noise), each read once after the one before
(the first position read WARM_UP_READS times untimed), judged against the previous position; ``--full``: positions
of 90-99 tiles.
Without ``--steady`` each frame is its own scene, read twice (a warm-up, then the timed read).
Budgets: <= 80 ms here per reading; a Raspberry Pi 5 is about 2-3x slower, so the Pi budget is <= 250 ms.
Prints the per-stage medians too, the process's own CPU time per reading (``time.thread_time``: on a loaded machine
wall time waits for the core, this less), and the square network's time for 60 and for 225 squares. Runs on one
core (OpenCV and BLAS threads set to 1).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


WARM_UP_READS = 4  # --steady: reads of the first position before the timed ones


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--mode", choices=("markers", "fixed", "grid", "corners"), default="markers")
    ap.add_argument("--cold", action="store_true",
                    help="markers mode: search the whole frame every time (no tracking from the last frame)")
    ap.add_argument("--full", action="store_true", help="full boards (90-99 tiles) instead of 20-90 tiles")
    ap.add_argument("--steady", action="store_true",
                    help="the kiosk's steady state: one camera (one scene) watching one game, the frames its "
                         "consecutive positions (a few tiles added between frames, each frame's own light and "
                         "noise), each reading judged against the previous position by "
                         "kiosk.vision.game.apply_prior, timed with it; a first position is read untimed before")
    ap.add_argument("--real", metavar="DIR",
                    help="time a real recording instead (DIR: a scrabscrap game folder; its warp-coord corners, "
                         "the game-aware reader over its frames in order): first reading and steady median")
    ap.add_argument("--calibration", metavar="FILE",
                    help="with --real: read through this calibration profile (its glyph model and letter "
                         "templates as the network's second readers) instead of the shipped models alone")
    args = ap.parse_args()
    if args.frames < 1:
        ap.error(f"--frames {args.frames}: at least 1")
    if args.real:
        try:
            return _real(args.real, args.calibration)
        except ValueError as exc:    # a folder that is no recording, an unreadable frame: named, no traceback
            print(f"bench_vision_speed: --real {args.real}: {exc}", file=sys.stderr)
            return 2

    import cv2

    cv2.setNumThreads(1)
    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision import locate
    from kiosk.vision.game import apply_prior, prior_from_board
    from kiosk.vision.gating import ReadingGate
    from kiosk.vision.profile import CalibrationProfile
    from kiosk.vision.reader import BoardReader
    from kiosk.vision.reading import BoardReading
    from kiosk.vision.synth import render_board
    from kiosk.vision.synth.boards import random_board

    frames = []
    boards = _game_positions(args.frames + 1, args.full) if args.steady else \
        [random_board(100 + i, 90 + i % 10 if args.full else 20 + (i * 7) % 70, ENGLISH) for i in range(args.frames)]
    for i, board in enumerate(boards):
        # steady: one scene (camera pose, board, tile style) for the whole game, a new frame seed per position
        frames.append(render_board(board, seed=100 + i, level="typical", scene_seed=100 if args.steady else None))
        print(f"rendered {i + 1}/{len(boards)}", end="\r", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    reader = BoardReader(ENGLISH)
    per_stage: dict[str, list[float]] = {}
    totals: list[float] = []
    cpu: list[float] = []      # the process's own CPU time (a loaded machine inflates wall time, less this)
    right = squares = 0
    previous: list[str] | None = None
    for fr in frames:
        corners = None
        if args.mode == "fixed":
            reader.profile = CalibrationProfile(board_mode="fixed",
                                                homography=locate.homography_from_grid_corners(fr.grid_corners_px),
                                                board_image_size=(fr.image.shape[1], fr.image.shape[0]))
        elif args.mode == "corners":
            corners = fr.grid_corners_px
        elif args.mode == "grid":
            reader.profile = CalibrationProfile(board_mode="search")
        img = fr.image
        if args.steady:
            if previous is None:
                # the position before the first timed one, read untimed as a kiosk reads its camera between moves
                # (several frames: a grid found from given corners is settled by a few refits, still.GridTracker)
                for _ in range(WARM_UP_READS):
                    reader.read(img, corners)
                previous = fr.truth
                continue
            prior = prior_from_board(list("".join(previous)), ENGLISH)
            previous = fr.truth
        else:
            reader.read(img, corners)           # warm-up (caches; a steady camera's marker windows)
            prior = None
        if args.cold:
            reader._last_markers = None
        t0, c0 = time.perf_counter(), time.thread_time()
        r = reader.read(img, corners, None if prior is None else prior.board)   # the game's known tiles, as GameReader
        if prior is not None:
            r = apply_prior(r, prior).reading
        totals.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
        for k, v in r.timings_ms.items():
            per_stage.setdefault(k, []).append(v)
        grid = r.grid()
        right += sum(a == b for tr, rr in zip(fr.truth, grid) for a, b in zip(tr, rr))
        squares += 225
    print(f"reading, mode {args.mode}{' (cold)' if args.cold else ''}{' steady' if args.steady else ''}"
          f"{' full boards' if args.full else ''}: median {statistics.median(totals):.1f} ms per 2028x1520 frame "
          f"(min {min(totals):.1f}, max {max(totals):.1f}; {len(totals)} frames; {right}/{squares} squares right); "
          f"CPU time median {statistics.median(cpu):.1f} ms")
    print("  stages (median ms): " + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in per_stage.items()
                                              if k != "total"))
    # the square network alone (letters, blanks, occupancy doubts): real crops of the last frame
    if reader.squarenet is not None:
        import numpy as np

        from kiosk.vision.cells import cell_crop, warp_canvas
        from kiosk.vision.reader import SQUARE_GROW_PX
        canvas, _ = warp_canvas(frames[-1].image, locate.from_corners(frames[-1].image, frames[-1].grid_corners_px))
        grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
        crops = [np.ascontiguousarray(cell_crop(grey, sq, SQUARE_GROW_PX)) for sq in range(225)]
        for n in (60, 225):
            ts = []
            for _ in range(20):
                t0 = time.perf_counter()
                reader.squarenet.predict(crops[:n])
                ts.append((time.perf_counter() - t0) * 1000)
            print(f"square network (OpenCV dnn): median {statistics.median(ts):.1f} ms for {n} squares")
    # diff + hand-over: the gate diffing a crowded new reading against the previous accepted board
    prev = BoardReading.from_grid(frames[-1].truth)
    new_rows = [row.replace(".", "E", 1) if i % 3 == 0 else row for i, row in enumerate(frames[-1].truth)]
    new = BoardReading.from_grid(new_rows)
    times = []
    for i in range(500):
        gate = ReadingGate(stable_ms=0, start=prev.grid())
        gate.press(i)
        t0 = time.perf_counter()
        acc = gate.feed(i, new)
        times.append((time.perf_counter() - t0) * 1000)
        assert acc is not None
    print(f"diff + hand-over: median {statistics.median(times):.3f} ms, max {max(times):.3f} ms (bar 5 ms)")
    return 0


def _game_positions(n: int, full: bool):  # -> list[Board]
    """``n`` consecutive positions of one synthetic game (scene 100): each holds the tiles of the one before and a
    few more (1-7 between positions), the last a full board (99 tiles). ``full``: all of them 90 tiles or more;
    else from 20 tiles on. Built from ``random_board(100, k)`` for growing k, each position kept to the squares
    the later ones hold alike (the boards of a growing k are nearly, not exactly, each other's start)."""
    from kiosk.rules.board import Board
    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision.synth.boards import random_board

    first = 90 if full else 20
    counts = [round(first + (99 - first) * i / max(n - 1, 1)) for i in range(n)]
    cells = [list(random_board(100, k, ENGLISH).cells) for k in counts]
    for i in range(n - 2, -1, -1):      # a position keeps only the tiles the next one holds alike
        cells[i] = [c if c and c == nxt else "" for c, nxt in zip(cells[i], cells[i + 1])]
    return [Board(c) for c in cells]


def _real(folder: str, calibration: str | None = None) -> int:
    """First reading from the given corners and the steady median over a recording's frames (one core), and the
    time the reader took to be made (models loaded, one-time costs paid); read through the profile file
    ``calibration`` when given (ProfileError, a ValueError, for a bad one).

    Raises ValueError (ImageError, WarpCoordError too) naming what is wrong: no folder, no game.ini with a
    ``warp-coord`` of 4 points (:func:`kiosk.vision.scrabscrap.read_warp_coord`), fewer than 2 frames
    ``image-N.jpg``, a frame that cannot be read."""
    import re
    from pathlib import Path

    from kiosk.rules.tiles import GERMAN
    from kiosk.vision.game import GameReader
    from kiosk.vision.images import read_image
    from kiosk.vision.profile import load_profile
    from kiosk.vision.reader import BoardReader
    from kiosk.vision.scrabscrap import read_warp_coord

    d = Path(folder)
    if not d.is_dir():
        raise ValueError("not a folder")
    corners = read_warp_coord(d / "game.ini")    # the first reading is timed from them: needed
    paths = sorted(d.glob("image-*.jpg"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    if len(paths) < 2:
        raise ValueError(f"{len(paths)} {'frame' if len(paths) == 1 else 'frames'} image-N.jpg: a first reading and at least one more are timed")
    frames = [read_image(p) for p in paths]
    t0 = time.perf_counter()
    # its making pays the fit's one-time costs (locate.prepare), as a kiosk's start
    reader = BoardReader(GERMAN, load_profile(calibration) if calibration else None)
    made_ms = (time.perf_counter() - t0) * 1000
    game = GameReader(reader.read, GERMAN, corners=corners)
    times, cpu = [], []
    for img in frames:
        t0, c0 = time.perf_counter(), time.thread_time()
        res = game.read_game(img)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
        game.accept(res.reading)
    h, w = frames[0].shape[:2]
    models = f"calibrated by {calibration}" if calibration else "shipped models"
    print(f"real {d.name} ({w}x{h}, {len(frames)} frames, {models}): first reading {times[0]:.1f} ms, "
          f"then median {statistics.median(times[1:]):.1f} ms (min {min(times[1:]):.1f}, max {max(times[1:]):.1f}); "
          f"CPU time: first {cpu[0]:.1f} ms, then median {statistics.median(cpu[1:]):.1f} ms; reader made in "
          f"{made_ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
