"""``kiosk calibrate ...`` subcommands. Heavy imports (OpenCV, pygame) stay inside the handlers.

Every handler returns an exit code: 0 done, 1 the calibration was refused (reason printed), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from calibration import CalibrationError, CalibrationInputError
from kiosk.files import InputError, atomic_output, check_output, check_output_folder, describe_os_error
from kiosk.rules.counts import counted

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def _pattern(text: str) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"pattern {text!r}: expected COLSxROWS inner corners, e.g. 9x6") from None
    if min(cols, rows) < 3:
        raise argparse.ArgumentTypeError(f"pattern {text!r}: a chessboard has at least 3x3 inner corners")
    return cols, rows


def _positive(text: str) -> float:
    """A positive finite number (mm, px) for argparse."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: must be above 0")
    return value


def _screen_px(text: str) -> int:
    """One side of the touchscreen, px (160..10000) for argparse: pygame fails with a traceback on 0, negative or
    huge sizes."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of pixels") from None
    if not 160 <= value <= 10000:
        raise argparse.ArgumentTypeError(f"{value} px: a screen side is 160 to 10000 px")
    return value


def _corners(text: str) -> Any:
    """--corners "x,y x,y x,y x,y" (A1 O1 O15 A15), checked (:func:`kiosk.vision.corners.parse_corners`): 4x2
    float32 px; argparse says what is wrong."""
    from kiosk.vision.corners import CornersError, parse_corners

    try:
        return parse_corners(text, "--corners")
    except CornersError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None   # argparse names the option


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _read_image(path: Path) -> Any:
    from kiosk.vision.images import ImageError, read_image

    try:
        return read_image(path)
    except ImageError as exc:   # a photo given that cannot be read: bad input (exit 2), not a refusal
        raise InputError(str(exc)) from None


def _frame(args: argparse.Namespace) -> Any:
    """One frame from --image or from --camera (a kiosk camera backend)."""
    if args.image:
        return _read_image(args.image)
    from kiosk.devices import CameraError, build_camera

    cfg: dict[str, Any] = {"backend": args.camera}
    if args.camera == "opencv" and args.device is not None:
        cfg["device"] = int(args.device) if args.device.isdigit() else args.device
    cam = build_camera({"camera": cfg})
    try:
        return cam.capture()[1]
    except CameraError as exc:
        raise CalibrationError(f"camera: {exc}") from exc
    finally:
        cam.close()


def _add_source(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", type=Path, help="a photo of the board to use")
    src.add_argument("--camera", choices=["picamera2", "opencv"], help="take the frame from this camera")
    p.add_argument("--device", help="opencv camera index or path (default 0)")


def _write_png(path: Path, image: Any) -> None:
    from kiosk.vision.images import write_image

    path.parent.mkdir(parents=True, exist_ok=True)
    write_image(path, image, "report picture")   # atomic: a failed write leaves nothing behind
    _say(f"wrote {path}")


# ---------------------------------------------------------------- markers

def cmd_markers(args: argparse.Namespace) -> int:
    from calibration.markers import render_marker_sheet
    from calibration.printing import real_size_bytes

    if args.out.suffix.lower() not in (".png", ".pdf"):
        raise InputError(f"{args.out}: the marker sheet is written as .png or .pdf, not "
                         f"{args.out.suffix or 'a name without a suffix'!r}")
    check_output(args.out, "marker sheet")   # before rendering it
    sheet = render_marker_sheet(dpi=args.dpi, paper=args.paper)
    with atomic_output(args.out, "wb", "marker sheet") as fh:
        fh.write(real_size_bytes(args.out.suffix, sheet.image, sheet.dpi, sheet.width_mm, sheet.height_mm))
    print(f"wrote {args.out}: {args.paper.upper()} at {args.dpi:g} dpi; print at 100 % (no 'fit to page') and "
          "check the 100 mm scale bar")
    return 0


# ---------------------------------------------------------------- intrinsics

def _photos(paths: list[Path]) -> list[Path]:
    """The photos named, a folder's image files in name order; each named photo must decode (InputError)."""
    from kiosk.files import check_regular_file

    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                raise InputError(f"{p}: no photos in the folder ({', '.join(IMAGE_SUFFIXES)})")
            out += found
        else:
            check_regular_file(p, "photo or folder")
            _read_image(p)
            out.append(p)
    return out


def cmd_intrinsics(args: argparse.Namespace) -> int:
    from calibration.intrinsics import calibrate_intrinsics, report_image
    from kiosk.vision.images import ImageError, read_image

    paths = _photos(args.photos)

    def photos() -> Any:
        for i, p in enumerate(paths, 1):
            _say(f"[{i}/{len(paths)}] {p.name}")
            try:
                yield p.name, read_image(p)
            except ImageError as exc:
                _say(f"  {exc}")
                yield p.name, None     # calibrate_intrinsics lists it as rejected

    result = calibrate_intrinsics(photos(), args.pattern, args.square_mm, args.max_rms, progress=lambda s: _say("  " + s))
    k = result.K
    print(f"RMS reprojection error {result.rms_px:.3f} px over {len(result.per_view_px)} photos "
          f"(limit {args.max_rms:g} px); fx {k[0, 0]:.1f} fy {k[1, 1]:.1f} cx {k[0, 2]:.1f} cy {k[1, 2]:.1f}; "
          f"dist {' '.join(f'{d:+.4f}' for d in result.dist)}")
    for name, why in result.rejected.items():
        print(f"  not used: {name}: {why}")
    if args.report:
        first = next(iter(result.corners))
        _write_png(args.report, report_image(result, _read_image(next(p for p in paths if p.name == first))))
    _save(args, "intrinsics", result)
    return 0


# ---------------------------------------------------------------- pose

def cmd_pose(args: argparse.Namespace) -> int:
    import numpy as np

    from calibration.pose import no_screen, overlay_image, pose_from_corners, pose_from_markers, tap_corners
    from calibration.profile_io import load_or_new, undistort

    if args.tap and (why := no_screen()) is not None:   # at once: no tap would ever come
        raise InputError(why)
    profile = load_or_new(args.profile) if args.profile else None
    frame = _frame(args)
    if profile is not None and profile.camera_matrix is not None:
        frame = undistort(frame, profile)  # the reader locates the board on undistorted frames
        _say("frame undistorted with the profile's intrinsics")
    k = dist = None
    if profile is not None and profile.camera_matrix is not None:
        k = np.array(profile.camera_matrix, np.float64)
        h, w = frame.shape[:2]
        if profile.image_size and tuple(profile.image_size) != (w, h):
            k[0] *= w / profile.image_size[0]
            k[1] *= h / profile.image_size[1]
        dist = np.zeros(5)  # the frame is undistorted already
    if args.corners is not None:
        pose = pose_from_corners(frame, args.corners, K=k, dist=dist, where="--corners")
    elif args.tap:
        pose = pose_from_corners(frame, tap_corners(frame, tuple(args.screen)), K=k, dist=dist,
                                 where="the corners tapped")
    else:
        pose = pose_from_markers(frame, K=k, dist=dist)
    if args.mode:
        pose.mode = args.mode
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in pose.grid_corners_px)
    print(f"board pose from {pose.method}: grid corners A1 O1 O15 A15 at {corners} px; reader mode {pose.mode}")
    if pose.camera_height_mm is not None:
        print(f"camera {pose.camera_height_mm:.0f} mm above the board, tilted {pose.tilt_deg:.1f} deg")
    if args.report:
        _write_png(args.report, overlay_image(frame, pose))
    _save(args, "pose", pose)
    return 0


# ---------------------------------------------------------------- exposure

def cmd_exposure(args: argparse.Namespace) -> int:
    from calibration.exposure import check_frame_white, lock_picamera2
    from kiosk.vision.images import NO_COLOUR, is_greyscale_photo

    if args.camera == "picamera2":
        from kiosk.devices.camera_picamera2 import Picamera2Camera

        cam = Picamera2Camera()
        if cam.health().state != "ok":
            raise CalibrationError(f"camera: {cam.health().detail}")
        try:
            lock = lock_picamera2(cam, progress=_say)
        finally:
            cam.close()
        gains = (f"colour gains red {lock.colour_gains[0]:.3f} blue {lock.colour_gains[1]:.3f}"
                 if lock.colour_gains is not None else "colour gains not fixed")
        print(f"locked: exposure {lock.exposure_us} us, analogue gain {lock.analogue_gain:.2f}, {gains}")
    else:
        frame = _frame(args)
        if args.image and is_greyscale_photo(frame):   # said for the file given, as bad input
            raise InputError(f"{args.image}: {NO_COLOUR}: the exposure step measures the white balance on the "
                             "marker paper, which needs a colour photo of the board")
        lock = check_frame_white(frame)
    m = lock.measure
    if m is not None:
        print(f"paper white B,G,R {m.white_bgr[0]:.0f},{m.white_bgr[1]:.0f},{m.white_bgr[2]:.0f} on "
              f"{counted(m.markers, 'marker')}, {100 * m.clipped:.1f} % clipped")
    for note in lock.notes:
        print(f"  note: {note}")
    if lock.exposure_us is None:
        print("light is usable; exposure is locked into the profile only on a Pi camera (--camera picamera2)")
        return 0
    _save(args, "exposure", lock)
    return 0


# ---------------------------------------------------------------- glyphs

def cmd_glyphs(args: argparse.Namespace) -> int:
    from calibration.glyphs import capture_glyphs, load_layout, photo_problem
    from calibration.profile_io import glyph_trainer

    layout = load_layout(args.layout) if args.layout else None   # before the photos: a wrong file is said first
    frames = None
    if args.images:
        frames = []
        for path in _photos(args.images):
            frames.append(_read_image(path))
            problem = photo_problem(frames[-1])
            if problem is not None:   # a tester's 1x1 black image was "skipped: fewer than 3 markers"
                raise InputError(f"{path}: not a photo of the laid-out tiles: {problem}")
    if frames is None and args.camera is None:
        raise CalibrationInputError("give photos of the laid-out tiles (--images) or a camera (--camera)")
    result = capture_glyphs(frames, layout, camera=args.camera, count=args.count, progress=_say,
                            sheet_png=args.report, tile_set=args.tile_set,
                            train=glyph_trainer(args.tile_set, folds=args.folds))
    print(result.summary())
    _save(args, "glyphs", result)
    return 0


# ---------------------------------------------------------------- the profile

def _save(args: argparse.Namespace, kind: str, result: Any) -> None:
    if args.profile is None:
        _say("no --profile given: result not saved")
        return
    from calibration.profile_io import save_result

    save_result(args.profile, kind, result)
    print(f"saved {kind} into {args.profile}")


SUBCOMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "markers": ("print the ArUco marker sheet at real size (PNG or PDF)", cmd_markers),
    "intrinsics": ("camera intrinsics from chessboard photos (refused above --max-rms px)", cmd_intrinsics),
    "pose": ("board pose from the markers, --corners or --tap (touchscreen)", cmd_pose),
    "exposure": ("lock exposure and white balance on the marker paper", cmd_exposure),
    "glyphs": ("capture a laid-out tile set, label it and train the tile classifier", cmd_glyphs),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="calibrate_step", metavar="STEP")
    for name, (help_text, _) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name != "markers":
            p.add_argument("--profile", type=Path, help="calibration profile to update")
        if name == "markers":
            p.add_argument("--out", type=Path, default=Path("markers.pdf"), help="PNG or PDF file (default markers.pdf)")
            p.add_argument("--dpi", type=float, default=300, help="resolution (default 300)")
            p.add_argument("--paper", choices=["a4", "letter"], default="a4")
        elif name == "intrinsics":
            p.add_argument("photos", nargs="+", type=Path, help="chessboard photos or folders of them")
            p.add_argument("--pattern", type=_pattern, default=(9, 6), help="inner corners COLSxROWS (default 9x6)")
            p.add_argument("--square-mm", type=_positive, default=25.0, help="chessboard square side, mm (default 25)")
            p.add_argument("--max-rms", type=_positive, default=1.0, help="refuse above this RMS error, px (default 1)")
            p.add_argument("--report", type=Path, help="write a PNG of the result")
        elif name == "pose":
            _add_source(p)
            how = p.add_mutually_exclusive_group()
            how.add_argument("--corners", type=_corners, help="grid corners 'x,y x,y x,y x,y' (A1 O1 O15 A15), px")
            how.add_argument("--tap", action="store_true", help="tap the 4 grid corners on the touchscreen")
            p.add_argument("--screen", type=_screen_px, nargs=2, default=(800, 480), metavar=("W", "H"),
                           help="the touchscreen's size for --tap, px (default 800 480)")
            p.add_argument("--mode", choices=["markers", "fixed"],
                           help="how the reader finds the board later (default: markers when found by them, "
                                "fixed for given corners)")
            p.add_argument("--report", type=Path, help="write a PNG with the grid drawn over the frame")
        elif name == "exposure":
            _add_source(p)
        elif name == "glyphs":
            p.add_argument("--images", nargs="+", type=Path, help="photos of the laid-out tiles (else --camera)")
            p.add_argument("--camera", choices=["picamera2", "opencv"], help="capture from this camera")
            p.add_argument("--count", type=int, default=5, help="frames to capture from the camera (default 5)")
            p.add_argument("--layout", type=Path, help="tile layout file (default: the whole bag from A1, row by row)")
            p.add_argument("--tile-set", default="english", help="tile set name (default english)")
            p.add_argument("--folds", type=int, default=4, help="cross-validation folds (default 4)")
            p.add_argument("--report", type=Path, help="write a contact sheet PNG of the labelled tiles")


def run(args: argparse.Namespace) -> int:
    step = getattr(args, "calibrate_step", None)
    if step is None:
        print("kiosk calibrate: choose a step: " + ", ".join(SUBCOMMANDS), file=sys.stderr)
        return 2
    try:
        profile = getattr(args, "profile", None)
        if profile is not None:   # checked before the work: a tester's /proc/x.json was refused only after it
            check_output_folder(profile.parent, "calibration profile's folder")
            check_output(profile, "calibration profile")
        return SUBCOMMANDS[step][1](args)
    except (InputError, CalibrationInputError) as exc:
        print(f"kiosk calibrate {step}: {exc}", file=sys.stderr)
        return 2
    except CalibrationError as exc:
        print(f"kiosk calibrate {step}: refused: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"kiosk calibrate {step}: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    except ValueError as exc:  # includes kiosk.vision.profile.ProfileError
        print(f"kiosk calibrate {step}: {exc}", file=sys.stderr)
        return 2
