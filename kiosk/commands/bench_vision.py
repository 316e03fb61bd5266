"""``kiosk bench-vision``: the board reader's accuracy on synthetic frames of real games' positions.

Renders ``--frames`` positions of ../shared/corpus/gcg games per realism level with the synthetic camera,
reads each with :class:`kiosk.vision.reader.BoardReader`, prints the vision issue's figures (occupancy, letter,
blank, whole-board accuracy, unsure share of errors) against the bars, and writes a confusion matrix PNG,
annotated PNGs of frames with errors and every frame's truth, reading and render details
(``frames-LEVEL.jsonl``) into ``--out``. Exit 0 when the bars are met.

``--fonts held-out`` draws the tiles in the system faces kept out of every model's training
(:mod:`kiosk.vision.synth.fonts`; Debian font packages): the figure that counts for a tile set the reader has
not learnt, against vision issue 22's bars. ``--fonts training`` draws the system faces trained on; the
default, ``level``, the level's own built-in fonts (the first vision issue's bars). ``--fonts validation`` draws
the faces never trained on that the reader's confidence rules were chosen on (measured against the same bars,
but not a result: the held-out faces are). ``--fonts held-out-2`` draws a second held-out batch, chosen by a rule
from the faces' declared names, weight, slant and character set and never drawn before (the six ``held-out``
faces had been looked at in four sittings); it is to be measured once. With system faces every level's figures
end with one line per face: its letters read right and its tiles read wrong silently.

``--games N`` watches N whole corpus games instead, each by one fixed camera in one face, read in order as the
kiosk reads them (:mod:`kiosk.vision.train.game_bench`: the game-aware reader, the board accepted before each move
as the prior); it scores the new tiles of each move and writes ``games-LEVEL.json``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections import Counter
from pathlib import Path

from kiosk.rules.counts import counted

NAME = "bench-vision"
FONT_CHOICES = ("level", "training", "validation", "held-out", "held-out-2", "validation-2", "held-out-3",
                "held-out-4", "held-out-5", "held-out-6", "held-out-7", "held-out-8", "display-training",
                "display-validation", "display-held-out", "display-held-out-2", "display-held-out-3")
"""``--fonts``: ``level`` and the roles of :mod:`kiosk.vision.synth.fonts` (not imported here: it would load the
renderer for every ``kiosk`` command; a test keeps the two lists equal)."""
HELP = "measure the board reader on synthetic frames of real games (accuracy figures, confusion matrix PNG)"


def _size(text: str) -> tuple[int, int]:
    from kiosk.vision.synth.render import MAX_SIDE, MIN_SIZE

    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r}: expected WIDTHxHEIGHT, e.g. 2028x1520") from None
    if not (MIN_SIZE[0] <= w <= MAX_SIDE and MIN_SIZE[1] <= h <= MAX_SIDE):
        raise argparse.ArgumentTypeError(f"size {text!r}: frames are drawn from {MIN_SIZE[0]}x{MIN_SIZE[1]} "
                                         f"to {MAX_SIDE}x{MAX_SIDE} px")
    return w, h


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("Prints each level's figures against its bars and writes to --out: confusion-LEVEL.png, "
                     "errors-LEVEL-N.png (frames with errors, annotated) and frames-LEVEL.jsonl (every frame's "
                     "truth and reading). Exit 0 when every bar is met, 1 when one is missed, 2 on bad input. "
                     "--fonts training / validation / held-out / held-out-2 draw Debian font packages (scripts/system-packages.txt), "
                     "validation-2 / held-out-3 / held-out-4 / held-out-5 / held-out-6 / held-out-7 / held-out-8 and display-training / display-validation / display-held-out / display-held-out-2 / display-held-out-3 Google Fonts faces (scripts/fetch_fonts.py); faces not installed are named and left out.")
    parser.add_argument("--level", nargs="+", default=["typical", "hard"], choices=["easy", "typical", "hard"],
                        help="realism levels to measure (default: typical hard)")
    parser.add_argument("--frames", type=int, default=500, help="frames per level (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="choice of positions and frames (default 0)")
    parser.add_argument("--size", type=_size, default=(2028, 1520), help="frame size WxH px (default 2028x1520)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--shared", type=Path, default=None,
                        help="shared data folder (default: ../shared from here, else beside the project)")
    parser.add_argument("--out", type=Path, default=Path("bench-vision-out"),
                        help="folder for the PNGs and the frame log (default bench-vision-out)")
    parser.add_argument("--tile-sets", nargs="+", default=["english", "german"], choices=["english", "german"],
                        help="games of these tile sets only (default: both; the German games are 4 of ~300)")
    parser.add_argument("--fonts", default="level", choices=FONT_CHOICES,
                        help="tile fonts: the level's own built-in fonts (default), or the installed system faces "
                             "trained on, or those never trained on that confidence rules are chosen on "
                             "(validation), or those held out of training (held-out: the figure that counts, but "
                             "looked at in four sittings), or the second held-out batch (held-out-2: never drawn "
                             "before; chosen by a rule from the faces' declared names, weight, slant and "
                             "characters; measure it once), or the Google Fonts faces never trained on (validation-2, where choices "
                             "may be made; held-out-3, a third batch, chosen by a hash of their "
                             "names: measure it once; held-out-4, a fourth, once the third had been looked at; "
                             "held-out-5, a fifth, once the fourth had been looked at: no shipped network trained "
                             "on it since the eighth session; the value network before did; held-out-6, a sixth, taken out of training "
                             "in the ninth session before a network was trained on the Google faces; held-out-7, a "
                             "seventh, taken out of training in the eleventh session before any of its frames was "
                             "drawn: the value network values.onnx had them as training faces, the shipped letter network "
                             "never drew them; held-out-8, an eighth, taken out of training in the twelfth "
                             "session before any of its frames was drawn and before the letter network "
                             "letters_*.onnx was trained: only the value network had them). "
                             "With system faces the figures are also printed per "
                             "face")
    parser.add_argument("--games", type=int, default=0, metavar="N",
                        help="instead of single positions, watch N whole games, each by one fixed camera in one "
                             "font, read in order as the kiosk reads them (its game-aware reader, the board "
                             "accepted before each move as the prior): the new tiles of each move are scored")
    parser.add_argument("--lexicon", choices=("none", "corpus"), default="none",
                        help="with --games: 'corpus' reads each game with a lexicon, the words its corpus's games "
                             "spell (and ENABLE's for English), standing in for the event's: a new letter that "
                             "spells a word the lexicon lacks where one other letter makes one is a doubt "
                             "(default none: no word check)")
    parser.add_argument("--calibrate", type=int, default=0, metavar="K",
                        help="read each frame calibrated, as an event with an unfamiliar tile set is told to: its "
                             "installation (the frame's camera, board, tiles and face) first photographs the bag "
                             "laid out K times and trains its glyph model from them (kiosk calibrate glyphs; "
                             "calibration/bench.py); default 0: uncalibrated")
    parser.add_argument("--samples", type=int, default=8, help="annotated error frames to save per level (default 8)")
    parser.add_argument("--speed", type=int, default=0, metavar="N",
                        help="only time render_board over N frames per level (no reader needed)")
    parser.add_argument("--sheet", type=int, default=0, metavar="N",
                        help="only write a contact sheet of the first N frames per level (no reader needed)")


def run(args: argparse.Namespace) -> int:
    import json
    import multiprocessing as mp
    import time

    from kiosk.files import atomic_output
    from kiosk.vision.train import bench

    if args.frames < 1 or args.workers < 1:
        print("kiosk bench-vision: --frames and --workers must be at least 1", file=sys.stderr)
        return 2
    if args.workers > bench.max_workers():
        print(f"kiosk bench-vision: --workers {args.workers}: at most {bench.max_workers()} on this machine "
              f"({os.cpu_count()} cores)", file=sys.stderr)
        return 2
    if min(args.seed, args.samples, args.speed, args.sheet, args.games, args.calibrate) < 0:
        print("kiosk bench-vision: --seed, --samples, --speed, --sheet, --games and --calibrate must be at least 0",
              file=sys.stderr)
        return 2
    if args.calibrate and (args.games or args.speed or args.sheet):
        print("kiosk bench-vision: --calibrate reads single positions: not with --games, --speed or --sheet",
              file=sys.stderr)
        return 2
    if args.games and (args.speed or args.sheet):
        print("kiosk bench-vision: --games watches whole games; --speed and --sheet time or draw single positions: "
              "give one of them", file=sys.stderr)
        return 2
    if args.lexicon != "none" and not args.games:
        print("kiosk bench-vision: --lexicon checks the words of a game's moves: give --games N", file=sys.stderr)
        return 2
    if args.shared is None:
        here = Path("../shared")
        args.shared = here if here.is_dir() else Path(__file__).resolve().parents[2] / ".." / "shared"
    from kiosk.vision.train import game_bench

    games: list[game_bench.GameSample] = []
    samples: list[bench.Sample] = []
    try:   # whole games (--games), or single positions
        if args.games:
            games = game_bench.corpus_games(args.shared, args.games, args.seed, tuple(args.tile_sets))
        else:
            samples = bench.corpus_samples(args.shared, args.speed or args.sheet or args.frames, args.seed,
                                           tuple(args.tile_sets))
    except FileNotFoundError as exc:
        print(f"kiosk bench-vision: --shared {args.shared}: {exc}", file=sys.stderr)
        return 2
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"kiosk bench-vision: --out {args.out}: cannot create: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        for level in args.level:
            bench.level_params(level, args.fonts)
        bench.check_faces(args.fonts)
    except ValueError as exc:
        print(f"kiosk bench-vision: --fonts {args.fonts}: {exc}", file=sys.stderr)
        return 2
    if args.fonts != "level":
        from kiosk.vision.synth import fonts as font_table
        absent = font_table.missing(args.fonts)
        if absent:   # the figure is over the faces installed: say which of the role it leaves out
            print(f"kiosk bench-vision: --fonts {args.fonts}: {counted(len(absent), 'face')} not installed, left "
                  f"out of these figures: {', '.join(f.name for f in absent)} (apt-get install "
                  f"{' '.join(sorted({f.package for f in absent}))})", file=sys.stderr)
    if args.games:
        return _games(games, args)
    if args.speed:
        for level in args.level:
            _speed(samples, level, args)
        return 0
    if args.sheet:
        for level in args.level:
            path = args.out / f"sheet-{_tag(level, args)}.png"
            bench.contact_sheet(samples, level, args.seed, path, args.size, fonts=args.fonts)
            print(f"{level}: {len(samples)} frames -> {path}")
        return 0
    try:
        from kiosk.vision.reader import BoardReader
    except ImportError as exc:
        print(f"kiosk bench-vision: the board reader is not available ({exc}); nothing to measure", file=sys.stderr)
        return 2
    for ts in {s.tile_set.name: s.tile_set for s in samples}.values():  # fail early and clearly if a reader cannot be built
        try:
            BoardReader(ts)
        except Exception as exc:  # noqa: BLE001 - report, don't trace back
            print(f"kiosk bench-vision: cannot build a BoardReader for the {ts.name} tile set: {exc}", file=sys.stderr)
            return 2
    all_ok = True
    ctx = mp.get_context("fork")
    for level in args.level:
        tasks = [(i, s.board.cells, s.tile_set.name, level, args.size, args.seed, args.fonts)
                 + ((args.calibrate,) if args.calibrate else ()) for i, s in enumerate(samples)]
        read = bench.read_one
        if args.calibrate:
            from calibration.bench import read_one_calibrated as read
        tally, ok_only = bench.Tally(), bench.Tally()
        failed: list[bench.FrameResult] = []
        calibrations: list[dict] = []
        t0 = time.perf_counter()
        with atomic_output(args.out / f"frames-{_tag(level, args)}.jsonl", what="frame log") as log, \
                ctx.Pool(args.workers) as pool:
            for n, fr in enumerate(pool.imap_unordered(read, tasks, chunksize=2), 1):
                tally.add(fr)
                if "calibration" in fr.meta:
                    calibrations.append(fr.meta["calibration"])
                log.write(json.dumps({"index": fr.index, "source": samples[fr.index].source, "verdict": fr.verdict,
                                      "truth": fr.truth, "read": fr.read, "occluded": sorted(fr.occluded),
                                      "wrong": fr.wrong_squares(), "read_ms": round(fr.read_ms, 1),
                                      "meta": fr.meta}, default=str) + "\n")
                if fr.verdict == "ok":
                    ok_only.add(fr)
                if fr.wrong_squares():
                    failed.append(fr)
                if n % 25 == 0 or n == len(tasks):
                    f = tally.figures()
                    print(f"  {level}: {n}/{len(tasks)} frames, letters {f['letters']:.2f}%, "
                          f"exact boards {f['exact_boards']:.1f}%, {time.perf_counter() - t0:.0f} s",
                          file=sys.stderr, flush=True)
        all_ok &= _report(level, tally, failed, samples, args)
        if calibrations:
            _calibrations(calibrations)
        f = ok_only.figures()
        print(f"  (only the {ok_only.frames} frames the reader called 'ok': " +
              ", ".join(f"{k} {v:.3f}%" if not math.isnan(v) else f"{k} n/a" for k, v in f.items()) + ")")
    return 0 if all_ok else 1


def _calibrations(calibrations: list[dict]) -> None:
    """Print how the installations' calibrations went (``meta["calibration"]`` of each frame read calibrated)."""
    import numpy as np

    done = [c for c in calibrations if not c["failure"]]
    failed = Counter(c["kind"] for c in calibrations if c["failure"])
    line = f"  calibrations: {len(done)} of {len(calibrations)} installations calibrated"
    if done:
        line += (f", median {np.median([c['seconds'] for c in done]):.1f} s (photos rendered and glyph model "
                 f"trained), {np.median([c['tiles'] for c in done]):.0f} tiles learnt from")
    if failed:
        line += "; failed: " + "; ".join(f"{why} ({n})" for why, n in failed.most_common())
    print(line)


GAME_BARS = {"typical": (99.5, 0.1), "easy": (99.5, 0.1)}
"""Level -> (new letters read right >= %, new tiles read wrong silently <= %) in ``--games``: issue 22's held-out
bars; the hard level's is the share of errors that are ``#`` (>= 95%)."""


def _games(games: list, args: argparse.Namespace) -> int:
    """``--games N``: :mod:`kiosk.vision.train.game_bench` over the N corpus ``games`` per level; prints each
    level's figures and writes them to ``games-LEVEL.json`` in ``--out`` (``games-LEVEL-lexicon.json`` with
    ``--lexicon corpus``). Exit 0 when the bars are met."""
    import json
    import multiprocessing as mp
    import time

    from kiosk.files import write_atomic
    from kiosk.vision.train import game_bench

    all_ok = True
    if args.lexicon == "corpus":   # built once here: the forked workers share it
        for name in sorted({g.tile_set.name for g in games}):
            game_bench.corpus_lexicon(str(args.shared), name)
    for level in args.level:
        tally, t0 = game_bench.GameTally(), time.perf_counter()
        tasks = game_bench.game_tasks(games, level, args.size, args.seed, args.fonts,
                                      str(args.shared) if args.lexicon == "corpus" else None)
        with mp.get_context("fork").Pool(args.workers) as pool:
            for n, moves in enumerate(pool.imap_unordered(game_bench.read_game, tasks), 1):
                tally.games += 1
                for mv in moves:
                    tally.add(mv)
                print(f"  {level}: {n}/{len(tasks)} games, {tally.moves} moves, new letters "
                      f"{tally.letters_right}/{tally.letters}, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr, flush=True)
        words = ", the corpus's words as the lexicon" if args.lexicon == "corpus" else ""
        print("\n".join(tally.lines(f"{level}, fonts {args.fonts}, {len(games)} games (seed {args.seed}){words}")))
        f = tally.figures()
        if level in GAME_BARS:
            letters, silent = GAME_BARS[level]
            ok = f["letters"] >= letters and f["silent_tile_errors"] <= silent
            print(f"  bars: new letters >= {letters}%, silent <= {silent}%: {'met' if ok else 'NOT met'}")
        else:
            ok = math.isnan(f["unsure_share_of_errors"]) or f["unsure_share_of_errors"] >= 95.0
            print(f"  bar: >= 95% of errors '#': {'met' if ok else 'NOT met'}")
        all_ok &= ok
        path = args.out / f"games-{_tag(level, args)}{'-lexicon' if args.lexicon == 'corpus' else ''}.json"
        write_atomic(path, json.dumps({"level": level, "fonts": args.fonts, "seed": args.seed, "games": len(games),
                                    "lexicon": args.lexicon,
                                    "moves": tally.moves, "figures": f, "lines": tally.lines(level)}, indent=1))
    return 0 if all_ok else 1


def _speed(samples: list, level: str, args: argparse.Namespace) -> None:
    """Print render_board times (ms): a new scene per frame; one fixed camera with a new position per frame
    (a demo after each move); one fixed camera re-shooting the same position (a demo between moves)."""
    import time

    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    def timed(fn) -> list[float]:
        out = []
        for i, s in enumerate(samples):
            t0 = time.perf_counter()
            fn(i, s)
            out.append(1000 * (time.perf_counter() - t0))
        return sorted(out)

    seed0 = bench.frame_seed(level, 0, args.seed)
    params = bench.level_params(level, args.fonts)
    render_board(samples[0].board, seed=seed0, level=params, tile_set=samples[0].tile_set, size=args.size)  # warm-up
    runs = {
        "new scene per frame": timed(lambda i, s: render_board(s.board, seed=bench.frame_seed(level, i, args.seed),
                                                                level=params, tile_set=s.tile_set, size=args.size)),
        "fixed camera, new position": timed(lambda i, s: render_board(s.board, seed=i, scene_seed=seed0, level=params,
                                                                       tile_set=s.tile_set, size=args.size)),
        "fixed camera, same position": timed(lambda i, s: render_board(samples[0].board, seed=i, scene_seed=seed0,
                                                                        level=params, tile_set=samples[0].tile_set,
                                                                        size=args.size)),
    }
    w, h = args.size
    for name, ms in runs.items():
        ms = sorted(ms)   # (in the order rendered, the median and 90th percentile were any two frames)
        print(f"{level} {w}x{h} {name:28s} median {ms[len(ms) // 2]:6.1f} ms, 90th pct {ms[int(0.9 * (len(ms) - 1))]:6.1f} ms"
              f" ({len(ms)} frames)")


_NOTHING = {"unsure_share_of_errors": "no tile errors", "blanks": "no blanks in these frames"}
_FONT_TITLES = {"level": "the level's own fonts (trained on)",
                "training": "system fonts trained on",
                "validation": "validation fonts (never trained on; the rules were chosen on these)",
                "held-out": "fonts held out of training: the figure that counts",
                "held-out-2": "second batch of fonts held out of training (first measured in the fourth session)",
                "validation-2": "Google Fonts faces never trained on (choices may be made on these)",
                "held-out-3": "third batch of fonts held out of training (Google Fonts; first measured in the fifth session)",
                "held-out-4": "fourth batch of fonts held out of training (Google Fonts; first measured in the sixth session)",
                "held-out-5": "fifth batch of fonts held out of training (Google Fonts; first measured in the "
                              "seventh session, when the value network then shipped had them)",
                "held-out-6": "sixth batch of fonts held out of training (Google Fonts; taken out of training in the "
                              "ninth session)",
                "held-out-7": "seventh batch of fonts held out of training (Google Fonts; taken out of training in the "
                              "eleventh session)",
                "held-out-8": "eighth batch of fonts held out of training (Google Fonts; taken out of training in the "
                              "twelfth session)",
                "display-training": "display lettering trained on (pixel, dot, LED, scan-line, stencil, inline, hairline, "
                                    "condensed and techno faces)",
                "display-validation": "display lettering never trained on (choices may be made on these)",
                "display-held-out": "display lettering held out of training (pixel, dot and scan-line faces; "
                                    "the figure that counts)",
                "display-held-out-2": "a second batch of display lettering held out of training (hairline, "
                                      "outline, neon-tube and techno faces)",
                "display-held-out-3": "a third batch of display lettering held out of training (hairline, thin, "
                                      "condensed and techno faces, thin weights of never-trained text families)"}


def _per_face(tally) -> None:
    """Print each system face's letters read right and tiles read wrong silently (worst letters first)."""
    print("  per face (letters read right; tiles read wrong without doubt):")
    for name, face in sorted(tally.by_face.items(), key=lambda kv: (
            kv[1].letters_right / kv[1].letters if kv[1].letters else 1.0, kv[0])):
        print("    " + face.line(name))


def _tag(level: str, args: argparse.Namespace) -> str:
    """``LEVEL``, ``LEVEL-FONTS``, plus ``-calK`` when read calibrated: the stem of a level's output files."""
    tag = level if args.fonts == "level" else f"{level}-{args.fonts}"
    return tag + (f"-cal{args.calibrate}" if args.calibrate else "")


def _report(level: str, tally, failed: list, samples: list, args: argparse.Namespace) -> bool:
    import numpy as np

    from kiosk.vision.synth.render import render_board
    from kiosk.vision.train import bench

    f = tally.figures()
    own = args.fonts == "level"
    bars = (bench.BARS if own else bench.FONT_BARS).get(level, {})
    ceilings = {} if own else bench.FONT_CEILINGS.get(level, {})
    calibrated = (f", each read calibrated from {counted(args.calibrate, 'photo')} of its installation's bag"
                  if args.calibrate else "")
    print(f"== {level}, {_FONT_TITLES[args.fonts]}{calibrated}: {tally.frames} frames of real-game positions "
          f"({tally.letters} lettered tiles, {tally.blanks} blanks, {tally.squares} visible squares)")
    ok = True
    for key, label in (("occupancy", "occupancy"), ("occupancy_sure", "occupancy, '#' a miss too"),
                       ("letters", "letter accuracy"), ("blanks", "blanks read as blank"),
                       ("exact_boards", "whole-board exact"), ("unsure_share_of_errors", "unsure share of tile errors"),
                       ("silent_tile_errors", "tiles read wrong silently")):
        bar, ceiling = bars.get(key), ceilings.get(key)
        if math.isnan(f[key]):   # nothing to count (no blanks, no tile errors): no share, and no bar to miss
            print(f"  {label:30s}     n/a  ({_NOTHING.get(key, 'nothing to count')})")
            continue
        verdict = "" if bar is None else ("  ok" if f[key] >= bar else f"  BELOW the {bar}% bar")
        if ceiling is not None:
            verdict = "  ok" if f[key] <= ceiling else f"  ABOVE the {ceiling}% bar"
        ok &= (bar is None or f[key] >= bar) and (ceiling is None or f[key] <= ceiling)
        print(f"  {label:30s} {f[key]:7.3f}%{verdict}")
    print(f"  tile errors: {tally.tile_errors} ({tally.tile_errors_unsure} unsure); empty squares read unsure: "
          f"{tally.empty_read_unsure}; frames not 'ok': {tally.not_ok_frames}")
    print("  frame verdicts: " + "; ".join(f"{k}: {n}" for k, n in tally.verdicts.most_common()))
    median, p95 = np.percentile(tally.read_ms, [50, 95])
    print(f"  reader time per frame: median {median:.0f} ms, 95th pct {p95:.0f} ms")
    print("  tile accuracy by style: " + ", ".join(f"{k} {100 * r / n:.2f}% of {n}" for k, (n, r) in sorted(tally.by_key.items())))
    worst = sorted(((n, t, r) for (t, r), n in tally.confusion.items() if t != r), reverse=True)[:10]
    if worst:
        print("  most frequent confusions (truth>read x n): " + ", ".join(f"{t}>{r} x{n}" for n, t, r in worst))
    if tally.error_causes:
        print("  tile errors by frame condition: " + "; ".join(f"{k}: {n}" for k, n in tally.error_causes.most_common()))
    if not own:
        _per_face(tally)
    png = args.out / f"confusion-{_tag(level, args)}.png"
    figs = ", ".join(f"{k} {v:.2f}%" for k, v in f.items() if not math.isnan(v))
    bench.confusion_png(tally, png, f"{_tag(level, args)}: {tally.frames} frames; {figs}")
    print(f"  confusion matrix: {png}")
    for fr in sorted(failed, key=lambda r: -len(r.wrong_squares()))[:args.samples]:
        s = samples[fr.index]
        frame = render_board(s.board, seed=bench.frame_seed(level, fr.index, args.seed),
                             level=bench.level_params(level, args.fonts), tile_set=s.tile_set, size=args.size)
        path = args.out / f"errors-{_tag(level, args)}-{fr.index:04d}.png"
        bench.annotated_png(frame.image, frame.grid_corners_px, fr, path)
        print(f"  errors in frame {fr.index} ({s.source}; {fr.meta.get('tile_style')}/{fr.meta.get('font')}/"
              f"{fr.meta.get('board_style')}, verdict {fr.verdict!r}): {len(fr.wrong_squares())} squares -> {path}")
    return ok
