"""``kiosk read-board IMAGE...``: read boards from photos and print them as 15 x 15 grids.

Per image, in the order given: 15 lines of 15 characters (row 1 first, column A first; ``.`` empty, the letter
of a tile, ``?`` a blank tile, ``#`` occluded or unsure), then one line ``# NAME: TOTAL ms, verdict ...`` with
the timing. ``--json`` prints one JSON list instead. ``--sequence`` reads the images in the order given as one
game (:class:`kiosk.vision.game.GameReader`): each usable reading is the prior of the next (its tiles known,
checked for presence and letter; what the pool or a move's shape rules out is settled or doubted), and what
changed on a known tile is named on stderr; without it each image is read alone. An unreadable image, one of
another size than the first with ``--corners`` (they are px of one camera's frames), or one in which no board is
found, is reported on stderr (naming it and why) and the others are still read; the exit code is then 2 (a file
that cannot be used) or 1 (no board read). Every image gets its 15 rows on stdout, in the order given (a tool
pairing boards with images by order, as ``../shared/checks/measure.py`` does, stays aligned): one without a board
read prints 15 rows of ``#`` (nothing read), its reason on stderr; one not read at all (a file that cannot be
decoded, one of another size than the --corners) prints 15 rows of ``#`` and ``# IMAGE: 0.0 ms; not read:
REASON``, its reason on stderr too; with ``--json`` the entry of either has ``"grid": null`` and ``"error"``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from kiosk.rules.counts import counted

if TYPE_CHECKING:
    from kiosk.vision.reading import BoardReading

NAME = "read-board"
NET_NEW_LETTER_P = 0.98  # --sequence with the shipped square network: a new tile's letter needs this confidence
HELP = "read Scrabble boards from camera images and print them as 15x15 grids"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("Prints per image 15 rows of 15 characters (row 1 first, column A first): '.' empty, a "
                     "letter, '?' a blank tile, '#' occluded or unsure; then '# IMAGE: TIME ms (stages); VERDICT' ('ok' "
                     "when the frame is usable). Problems go to stderr naming the image (with --sequence also "
                     "known tiles read gone or changed); the other images are still read, and an image without a "
                     "board read, or not read at all (a file that cannot be decoded), prints 15 rows of '#' "
                     "(with --json: \"grid\": null and \"error\"): one block per image, in the order given. Exit 0: all read; "
                     "1: an image without a board read; 2: an image or option that cannot be used.")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG ...)")
    parser.add_argument("--calibration", metavar="FILE", help="calibration profile (JSON) to use")
    parser.add_argument("--corners", metavar="'x,y x,y x,y x,y'",
                        help="the grid's outer corners in image px: A1, O1, O15, A15, clockwise as seen in the "
                             "image (may be rough: they are refined on the grid lines; corners that cannot be the "
                             "grid are refused, saying why: repeated points, three on a line, crossed sides, not convex, "
                             "mirrored, squares of a few px, mostly outside the image)")
    parser.add_argument("--tiles", default=None, metavar="english|german|FILE.toml",
                        help="tile set (default: the profile's, else english): its letters, values and counts; more "
                             "tiles of a kind read than it holds are all '#', and a letter whose printed value is "
                             "another is '#' (a board of a bigger set: give its .toml)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of grids")
    parser.add_argument("--sequence", action="store_true",
                        help="the images are the frames of one game in order: each is read with the previous "
                             "reading as its prior (without given corners, the board found first is kept)")
    parser.add_argument("--annotate", metavar="DIR",
                        help="also write DIR/NAME.read.png: the board as read, doubtful squares in red")


def run(args: argparse.Namespace) -> int:
    from kiosk.rules.board import square_name
    from kiosk.rules.tiles import load_tile_set
    from kiosk.vision.corners import corners_problem
    from kiosk.vision.images import NO_COLOUR, ImageError, is_greyscale_photo, read_image
    from kiosk.vision.mlp import ModelError
    from kiosk.vision.profile import ProfileError, load_profile
    from kiosk.vision.reader import BoardReader
    from kiosk.vision.reading import BoardReading

    corners = None
    if args.annotate is not None:   # before any image is read: a folder that cannot be written is said once
        from kiosk.files import InputError, check_output_folder
        try:
            check_output_folder(args.annotate, "annotated pictures")
        except InputError as exc:
            print(f"kiosk read-board: --annotate: {exc}", file=sys.stderr)
            return 2
    if args.corners is not None:
        from kiosk.vision.corners import CornersError, parse_corners

        try:
            corners = parse_corners(args.corners, "--corners")   # each frame checks them again, in its size
        except CornersError as exc:
            print(f"kiosk read-board: {exc}", file=sys.stderr)
            return 2
    try:
        profile = load_profile(args.calibration) if args.calibration else None
        reader = BoardReader(load_tile_set(args.tiles) if args.tiles else None, profile)
    except (ProfileError, ModelError, ValueError) as exc:
        print(f"kiosk read-board: {exc}", file=sys.stderr)
        return 2

    game = None
    if args.sequence:
        from kiosk.vision.game import GameReader
        # the shipped square network's wrong letters on a font it never saw came at 0.83-0.975 (scrabscrap
        # game02's V read Y, J read L); in a game a tile stays for many frames, so a new one waits for a sure read
        game = GameReader(reader.read, reader.tile_set, corners=corners,
                          new_letter_p=NET_NEW_LETTER_P if reader.squarenet is not None else 0.0)
    failed = unreadable = 0   # exit 1: a frame without a board read (a finding); 2: a file that cannot be used
    results: list[dict[str, object]] = []
    annotated: set[str] = set()
    size: tuple[int, ...] | None = None   # (h, w) px of the first frame read: the frames --corners are given for
    for path in args.images:
        try:
            img = read_image(path)
        except ImageError as exc:
            print(f"kiosk read-board: {exc}", file=sys.stderr)
            unreadable += 1
            _not_read(args, results, path, exc.reason)
            continue
        if corners is not None and size is not None and img.shape[:2] != size:
            # --corners are px of one camera's frames: through them a frame of another size reads wrong squares
            why = (f"{img.shape[1]}x{img.shape[0]} px, but --corners were given for the {size[1]}x{size[0]} px "
                   "frames read before it: not read (give its own corners in a run of its own)")
            print(f"kiosk read-board: {path}: {why}", file=sys.stderr)
            unreadable += 1
            _not_read(args, results, path, why)
            continue
        size = size or img.shape[:2]
        problem = None if corners is None else corners_problem(corners, img.shape)
        if problem is not None:   # corners that cannot be the grid in this image (the one check, naming the option)
            reading = BoardReading.unreadable(f"--corners: {problem}")
        elif game is not None:
            gr = game.read_game(img)
            reading = gr.reading
            for line in gr.anomalies:
                print(f"kiosk read-board: {path}: {line}", file=sys.stderr)
            game.accept(reading)
        else:
            reader.forget_board_pose()   # each image alone: nothing kept from the images before it
            reading = reader.read(img, corners)
        grid = reading.grid()
        no_board = not reading.quality.board_found or all(row == "#" * 15 for row in grid)
        no_board_why = ""
        if no_board:
            # no board, or one refused as a whole (grid uncertain, board turned): nothing of it was read
            why = reading.quality.verdict
            if corners is None and (profile is None or profile.board_mode != "fixed") and is_greyscale_photo(img):
                why = (f"{NO_COLOUR}: without markers the board is found by the colours of its squares; give a "
                       "colour photo, or the grid's corners with --corners")   # given corners read grey photos
            elif why == "no board found" and corners is None:   # the next step, as "grid uncertain" says it
                why = "no board found (without markers; give the corners with --corners or calibrate the camera)"
            print(f"kiosk read-board: {path}: no board read: {why}", file=sys.stderr)
            failed += 1
            no_board_why = f"no board read: {why}"
        if args.annotate:
            from pathlib import Path

            from kiosk.files import InputError
            from kiosk.vision.annotate import write_annotated_png
            name, n = Path(path).stem, 1
            while name in annotated:     # two images of one name from different folders: keep both pictures
                n += 1
                name = f"{Path(path).stem}-{n}"
            annotated.add(name)
            try:
                Path(args.annotate).mkdir(parents=True, exist_ok=True)
                write_annotated_png(img, reading, Path(args.annotate) / (name + ".read.png"))
            except OSError as exc:
                print(f"kiosk read-board: --annotate {args.annotate}: {exc.strerror or exc}"
                      + (f" ({exc.filename})" if exc.filename else ""), file=sys.stderr)
                unreadable += 1
            except InputError as exc:   # the picture's path cannot be written
                print(f"kiosk read-board: --annotate: {exc}", file=sys.stderr)
                unreadable += 1
        t = reading.timings_ms
        if args.json:
            results.append({
                "image": path, "grid": None if no_board else grid, "verdict": reading.quality.verdict,
                "quality": {"board_found": reading.quality.board_found, "sharp": reading.quality.sharp,
                            "glare": reading.quality.glare, "hand": reading.quality.hand},
                "timings_ms": t,
                "doubts": {square_name(sq): why for sq, why in sorted(reading.doubts.items())},
                "note": reading.note,
                **({"error": no_board_why} if no_board else {}),
            })
            continue
        _print_block(path, grid, reading)
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=1))
    return 2 if unreadable else 1 if failed else 0


def _not_read(args: argparse.Namespace, results: list[dict[str, object]], path: str, why: str) -> None:
    """An image that was not read at all (a file that cannot be decoded, a size the --corners do not fit): its
    JSON entry, or its block of 15 rows of '#' (nothing read) and a line saying why, so that the blocks stay one
    per image in the order given (``../shared/checks/measure.py`` pairs them with the images by order)."""
    if args.json:
        results.append({"image": path, "grid": None, "error": why})
        return
    from kiosk.vision.reading import BoardReading

    reading = BoardReading.unreadable(f"not read: {why}")
    _print_block(path, reading.grid(), reading)


def _print_block(path: str, grid: list[str], reading: BoardReading) -> None:
    """One image's block: its 15 rows, then ``# IMAGE: TIME ms (stages); VERDICT[; N unsure squares][; NOTE]``."""
    t = reading.timings_ms
    print("\n".join(grid))
    stages = ", ".join(f"{k} {v:.1f}" for k, v in t.items() if k != "total" and not k.startswith("locate_"))
    unsure = sum(row.count("#") for row in grid)
    print(f"# {path}: {t.get('total', 0.0):.1f} ms" + (f" ({stages})" if stages else "") + f"; {reading.quality.verdict}"
          + (f"; {counted(unsure, 'unsure square')}" if unsure else "") + (f"; {reading.note}" if reading.note else ""),
          flush=True)
