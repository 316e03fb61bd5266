#!/usr/bin/env python3
"""Measure the reader on the failure kinds of issue 22 (item 5) over synthetic frames; prints one line a kind.

    PYTHONPATH=. python scripts/vision_failure_kinds.py [--first 0] [--scenes 20] [--kinds exposure,ramp,hand,slide]

* exposure: scenes FIRST..FIRST+N-1 (30 English tiles, two of them blanks, a "typical" frame without a hand), each frame
  taken at gains 0.4-1.6 (the whole image scaled and clipped, as a camera's exposure): blank readings read
  empty in a frame judged ok;
* ramp: the same scenes, each a still board under a 20-frame auto-exposure ramp (gain 0.5 -> 1.7) read in
  order by one reader: frames judged ok with a still tile read empty; empty squares read as tiles or doubts;
* hand: 90 typical frames with a hand from HAND_FIRST (boards 1000+i, alternately English and German): a tile read on an empty
  square in a frame judged ok (no hand found);
* slide: one tile of a 20-tile board slid half a square (and 0.4, 0.6) towards its empty right neighbour:
  read as two tiles in a frame judged ok, read as no tile, read as another letter, both squares doubted (scenes
  0..19: the ones the slid-tile rule was made on).
"""

from __future__ import annotations

import argparse

from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.vision.reader import BoardReader
from kiosk.vision.reading import EMPTY_CHAR
from kiosk.vision.synth import render as rd
from kiosk.vision.synth.boards import random_board
from kiosk.vision.synth.failure_scenes import EXPOSURES, RAMP, scene_with_slid_tile, scene_with_two_blanks, with_gain
from kiosk.vision.synth.levels import get_level


def exposure(scenes: range) -> str:
    reader, n, lost = BoardReader(ENGLISH), 0, 0
    for s in scenes:
        image, truth = scene_with_two_blanks(s)
        reader.forget_board_pose()
        for g in EXPOSURES:
            r = reader.read(with_gain(image, g))
            got = "".join(r.grid())
            for sq in (i for i, c in enumerate(truth) if c == "?"):
                n += 1
                lost += r.quality.ok and got[sq] == EMPTY_CHAR
    return f"exposure: {n} blank readings, {lost} read empty in a frame judged ok"


def ramp(scenes: range) -> str:
    reader = BoardReader(ENGLISH)
    frames = not_ok = vanished = as_tiles = as_doubts = 0
    for s in scenes:
        image, truth = scene_with_two_blanks(s)
        reader.forget_board_pose()
        for g in RAMP:
            r = reader.read(with_gain(image, float(g)))
            got = "".join(r.grid())
            frames += 1
            if not r.quality.ok:
                not_ok += 1
                continue
            vanished += any(t != EMPTY_CHAR and x == EMPTY_CHAR for t, x in zip(truth, got))
            as_tiles += sum(t == EMPTY_CHAR and x not in (EMPTY_CHAR, "#") for t, x in zip(truth, got))
            as_doubts += sum(t == EMPTY_CHAR and x == "#" for t, x in zip(truth, got))
    return (f"ramp: {frames} frames ({not_ok} not judged ok): {vanished} judged ok with a still tile read empty; "
            f"empty squares read as tiles {as_tiles}, as doubts {as_doubts}")


def hand(frames: range) -> str:
    readers = {ts.name: BoardReader(ts) for ts in (ENGLISH, GERMAN)}
    n = not_found = bad = 0
    for s in frames:
        ts = (ENGLISH, GERMAN)[s % 2]
        board = random_board(1000 + s, n_tiles=10 + (s * 7) % 50, tile_set=ts)
        fr = rd.render_board(board, seed=7_000_000 + s, level=get_level("typical").with_(hand_prob=1.0), tile_set=ts)
        if not fr.meta["hand"]:
            continue
        reader = readers[ts.name]
        reader.forget_board_pose()
        r = reader.read(fr.image)
        truth, got = "".join(rd.truth_grid(board)), "".join(r.grid())
        n += 1
        not_found += not r.quality.hand
        bad += r.quality.ok and any(t == EMPTY_CHAR and x not in (EMPTY_CHAR, "#") for t, x in zip(truth, got))
    return f"hand: {n} hand frames, hand not found in {not_found}; a tile read on an empty square, judged ok: {bad}"


def slide(scenes: range, frac: float) -> str:
    reader = BoardReader(ENGLISH)
    n = twice = none = wrong = doubted = 0
    for s in scenes:
        made = scene_with_slid_tile(s, frac)
        if made is None:
            continue
        image, truth_grid, target = made
        reader.forget_board_pose()
        r = reader.read(image)
        got = "".join(r.grid())
        a, b = got[target], got[target + 1]
        truth = truth_grid[target]
        n += 1
        twice += r.quality.ok and a not in (EMPTY_CHAR, "#") and b not in (EMPTY_CHAR, "#")
        none += a == EMPTY_CHAR and b == EMPTY_CHAR
        wrong += any(x not in (EMPTY_CHAR, "#", truth) for x in (a, b))
        doubted += a == "#" and b == "#"
    return (f"slide {frac}: {n} slid tiles: read as two tiles (judged ok) {twice}, as no tile {none}, "
            f"as another letter {wrong}, both squares doubted {doubted}")


KINDS = ("exposure", "ramp", "hand", "slide")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--first", type=int, default=0, help="first scene (0..19: the scenes the rules were made on)")
    ap.add_argument("--scenes", type=int, default=20)
    ap.add_argument("--hand-first", type=int, default=0, help="first hand frame (0..89: the frames the rule was made on)")
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)} (default: all)")
    args = ap.parse_args()
    kinds = args.kinds.split(",")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        ap.error(f"--kinds: unknown {', '.join(map(repr, unknown))} (known: {', '.join(KINDS)})")
    if args.scenes < 1 or args.first < 0 or args.hand_first < 0:
        ap.error("--scenes must be at least 1, --first and --hand-first at least 0")
    if "exposure" in kinds:
        print(exposure(range(args.first, args.first + args.scenes)), flush=True)
    if "ramp" in kinds:
        print(ramp(range(args.first, args.first + args.scenes)), flush=True)
    if "hand" in kinds:
        print(hand(range(args.hand_first, args.hand_first + 90)), flush=True)
    if "slide" in kinds:
        for frac in (0.4, 0.5, 0.6):
            print(slide(range(args.first, args.first + args.scenes), frac), flush=True)


if __name__ == "__main__":
    main()
