"""Tile glyph capture: lay out a known set of tiles on the board, photograph it, cut out every tile, label it
from the layout, and train the reader's tile classifier on the samples (its trainer reports the
cross-validated accuracy).

Layout: 15 lines of 15 characters as the reader writes boards: ``.`` empty square, an upper-case letter for a
lettered tile, ``?`` for a blank. The default lays the whole English bag out from A1, row by row, in
alphabetical order with the two blanks last.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import CalibrationError, CalibrationInputError
from kiosk.files import InputError, read_text
from kiosk.rules.counts import counted
from kiosk.vision.geometry import SIZE
from kiosk.vision.images import write_image

Sample = tuple[np.ndarray, str]  # (BGR crop of one square in the canonical warp, label)
MAX_NO_INK_SHARE = 0.01
"""A calibration fails when more than this share of the layout's lettered tiles (and more than one) show no ink
the glyph model finds in any photo: a tile under glare is left out, but lettering the camera cannot see (hairline
or outline letters, low contrast) gives no glyph model worth having, and the event must hear that its camera does
not see the lettering (it once taught the glyph path to read those tiles as empty squares:
kiosk/vision/models/README.md, "Calibrated on faces never seen")."""


def photo_problem(image: np.ndarray) -> str | None:
    """Why ``image`` cannot be a photo of the laid-out tiles (a clause: too small to hold the board's tiles, one flat
    colour all over), or None. A tile's letter needs :data:`~kiosk.vision.glyph_model.MIN_LETTER_IMAGE_PX` px at
    least, so the board's 15 squares need 15 times that on each side. The caller names the file."""
    from kiosk.vision.glyph_model import MIN_LETTER_IMAGE_PX

    h, w = image.shape[:2]
    least = SIZE * MIN_LETTER_IMAGE_PX
    if min(h, w) < least:
        return (f"{w}x{h} px is too small to hold the board's tiles (a photo of the laid-out tiles is at least "
                f"{least}x{least} px: 15 squares of {MIN_LETTER_IMAGE_PX} px or more)")
    if int(image.min()) == int(image.max()):
        return "one flat colour all over: no board in it"
    return None


def default_layout(tile_set: str = "english") -> list[str]:
    """The whole bag of ``tile_set`` laid out from A1 row by row (letters A..Z, then the blanks)."""
    from kiosk.rules.tiles import load_tile_set

    ts = load_tile_set(tile_set)
    tiles = "".join(letter * n for letter, n in sorted(ts.counts.items())) + "?" * ts.blanks
    if len(tiles) > SIZE * SIZE:
        raise CalibrationError(f"{len(tiles)} tiles do not fit on the board")
    tiles = tiles.ljust(SIZE * SIZE, ".")
    return [tiles[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)]


def load_layout(path: Path) -> list[str]:
    """Read (:func:`kiosk.files.read_text`: UTF-8, a byte-order mark read past) and check a layout file;
    CalibrationInputError (a CalibrationError) names the file, and the line and column of a bad character."""
    try:
        text = read_text(path, "layout file")
    except InputError as exc:
        raise CalibrationInputError(str(exc)) from None
    rows = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if len(rows) != SIZE:
        raise CalibrationInputError(f"{path}: expected {SIZE} rows of {SIZE} characters, got {len(rows)} rows")
    for r, row in enumerate(rows, 1):
        if len(row) != SIZE:
            raise CalibrationInputError(f"{path}: row {r} has {len(row)} characters, expected {SIZE}")
        for c, ch in enumerate(row, 1):
            if not (ch == "." or ch == "?" or (ch.isalpha() and ch.isupper())):
                raise CalibrationInputError(f"{path}: row {r} column {c}: {ch!r} is not '.', '?' or an upper-case letter")
    if all(ch == "." for row in rows for ch in row):
        raise CalibrationInputError(f"{path}: the layout has no tiles")
    return rows


def crop_tiles(image: np.ndarray, homography: np.ndarray, layout: Sequence[str]) -> list[Sample]:
    """Cut out each laid-out tile as the reader sees it: ``image`` warped with ``homography`` (image px ->
    canonical warp px) onto the reader's canvas, every occupied square's cell grown by the reader's margin,
    labelled from ``layout``."""
    from kiosk.vision.cells import cell_crop, warp_canvas
    from kiosk.vision.reader import GLYPH_GROW_PX

    canvas, _ = warp_canvas(image, homography)
    out: list[Sample] = []
    for r, row in enumerate(layout):
        for c, ch in enumerate(row):
            if ch != ".":
                out.append((cell_crop(canvas, r * SIZE + c, GLYPH_GROW_PX).copy(), ch))
    return out


def _tile_names(layout: Sequence[str]) -> list[str]:
    """The squares of the layout's tiles (``H8``), in the order :func:`crop_tiles` cuts them."""
    from kiosk.rules.board import square_name

    return [square_name(r * SIZE + c) for r, row in enumerate(layout) for c, ch in enumerate(row) if ch != "."]


def _without_ink(crops: Sequence[Sample]) -> set[int]:
    """Indices of the lettered crops whose ink the glyph model cannot find (glare over the tile, a shadow,
    lettering too faint for the light): they are left out of training rather than ending the calibration. Blanks
    (``?``) carry no ink and are never counted."""
    from kiosk.vision.glyph_model import as_glyph

    return {k for k, (crop, label) in enumerate(crops) if label != "?" and as_glyph(crop) is None}


def contact_sheet(samples: Sequence[Sample], marked: Collection[int] = (), columns: int = 20) -> np.ndarray:
    """A PNG-ready grid of the tile crops, each with its label underneath, so a person can check the labels; the
    crops of ``marked`` (indices: tiles left out, no ink found) are framed and labelled in red ("A: no ink")."""
    if not samples:
        raise CalibrationError("no tile samples to show")
    ch, cw = samples[0][0].shape[:2]
    rows = (len(samples) + columns - 1) // columns
    sheet = np.full((rows * (ch + 18), columns * (cw + 4), 3), 255, np.uint8)
    for i, (crop, label) in enumerate(samples):
        y, x = (i // columns) * (ch + 18), (i % columns) * (cw + 4)
        sheet[y:y + ch, x:x + cw] = crop
        colour, text = ((0, 0, 255), f"{label}: no ink") if i in marked else ((0, 0, 200), label)
        if i in marked:
            cv2.rectangle(sheet, (x, y), (x + cw - 1, y + ch - 1), colour, 2)
        cv2.putText(sheet, text, (x + 2 if i in marked else x + cw // 2 - 5, y + ch + 14), cv2.FONT_HERSHEY_SIMPLEX,
                    0.4 if i in marked else 0.45, colour, 1, cv2.LINE_AA)
    return sheet


@dataclass
class GlyphCapture:
    """``samples`` (crop, label); ``frames``: photos used; ``cv_accuracy``: the trainer's cross-validated
    accuracy (0..1) or None when no trainer ran; ``model``: what the trainer returned (goes to the profile);
    ``skipped``: photos not used (index: why); ``no_ink``: lettered tiles left out because no ink was found on them
    (glare, a shadow, lettering too faint), each as ``photo N: H8 (A)``."""

    samples: list[Sample]
    frames: int
    cv_accuracy: float | None = None
    model: Any = None
    skipped: dict[int, str] = field(default_factory=dict)
    no_ink: list[str] = field(default_factory=list)

    def summary(self) -> str:
        counts = Counter(label for _, label in self.samples)
        text = (f"{counted(len(self.samples), 'tile sample')} of {counted(len(counts), 'label')} from "
                f"{counted(self.frames, 'photo')}")
        if self.skipped:
            text += f"; {counted(len(self.skipped), 'photo')} skipped"
        if self.no_ink:
            shown = ", ".join(self.no_ink[:5]) + (" ..." if len(self.no_ink) > 5 else "")
            text += f"; {counted(len(self.no_ink), 'tile')} left out, no ink found on them ({shown})"
        if self.cv_accuracy is not None:
            text += f"; cross-validated accuracy {100 * self.cv_accuracy:.1f} %"
        return text


Trainer = Callable[[list[Sample]], tuple[Any, float]]


def capture_glyphs(frames: Iterable[np.ndarray] | None, layout: Path | Sequence[str] | None = None,
                   camera: str | None = None, count: int = 5, progress: Callable[[str], None] | None = None,
                   sheet_png: Path | None = None, train: Trainer | None = None,
                   tile_set: str = "english") -> GlyphCapture:
    """Collect labelled tile samples from ``frames`` (or ``count`` captures of ``camera``), locating the board
    by its markers in each, write the contact sheet, then train with ``train(samples) -> (model, cv
    accuracy)``. Raises CalibrationError when no photo shows the board."""
    from calibration.pose import pose_from_markers

    rows = default_layout(tile_set) if layout is None else (load_layout(layout) if isinstance(layout, Path) else list(layout))
    if frames is None:
        frames = _capture(camera, count, progress)
    samples: list[Sample] = []
    no_ink: list[str] = []
    dry_in: Counter[str] = Counter()    # square name -> photos in which its tile showed no ink
    sheet: tuple[list[Sample], set[int]] | None = None     # the first photo's crops, those without ink
    used = 0
    skipped: dict[int, str] = {}
    names = _tile_names(rows)
    for i, frame in enumerate(frames):
        try:
            pose = pose_from_markers(frame)
        except CalibrationError as exc:
            skipped[i] = str(exc)
            if progress:
                progress(f"photo {i + 1}: skipped: {exc}")
            continue
        crops = crop_tiles(frame, pose.homography, rows)
        dry = _without_ink(crops)
        samples += [c for k, c in enumerate(crops) if k not in dry]
        no_ink += [f"photo {i + 1}: {names[k]} ({crops[k][1]})" for k in sorted(dry)]
        dry_in.update(names[k] for k in dry)
        sheet = sheet or (crops, dry)
        used += 1
        if progress:
            progress(f"photo {i + 1}: {len(crops) - len(dry)} tiles" +
                     (f", {len(dry)} without ink found left out" if dry else ""))
    if not used:
        reasons: dict[str, list[int]] = {}
        for i, why in skipped.items():
            reasons.setdefault(why, []).append(i + 1)
        raise CalibrationError("no photo showed the board's markers: " + "; ".join(
            f"photo{'s' if len(ps) > 1 else ''} {', '.join(map(str, ps))}: {why}" for why, ps in reasons.items()))
    lettered = sum(ch not in ".?" for row in rows for ch in row)
    never = [name for name in names if dry_in[name] == used]     # in the layout's order
    if len(never) > max(1.0, MAX_NO_INK_SHARE * lettered):
        raise CalibrationError(f"no ink found in any photo on {len(never)} of the {lettered} lettered tiles "
                               f"({', '.join(never[:5])}{' ...' if len(never) > 5 else ''}): the camera does not "
                               "see this tile set's lettering in this light; light the board evenly, without glare, "
                               "and photograph again")
    missing = sorted({ch for row in rows for ch in row if ch not in ".?"} - {label for _, label in samples})
    if missing:
        raise CalibrationError(f"no tile of {', '.join(missing)} showed its letter in any photo (no ink found on "
                               f"it: {', '.join(no_ink[:5])}{' ...' if len(no_ink) > 5 else ''}): light the "
                               "board evenly, without glare, and check the layout")
    result = GlyphCapture(samples, used, skipped=skipped, no_ink=no_ink)
    if sheet_png is not None and sheet is not None:
        try:
            write_image(sheet_png, contact_sheet(*sheet), "contact sheet")
        except InputError as exc:
            raise CalibrationError(f"could not write the contact sheet: {exc}") from None
    trainer = train or _vision_trainer(tile_set)
    if progress:
        progress(f"training on {len(samples)} samples ...")
    result.model, result.cv_accuracy = trainer(samples)
    return result


def _capture(camera: str | None, count: int, progress: Callable[[str], None] | None) -> list[np.ndarray]:
    if camera is None:
        raise CalibrationError("give photos (--images) or a camera (--camera)")
    from kiosk.devices import CameraError, build_camera

    cam = build_camera({"camera": {"backend": camera}})
    frames = []
    try:
        for i in range(count):
            frames.append(cam.capture()[1])
            if progress:
                progress(f"captured {i + 1}/{count}")
    except CameraError as exc:
        raise CalibrationError(f"camera: {exc}") from exc
    finally:
        cam.close()
    return frames


def _vision_trainer(tile_set: str) -> Trainer:
    """The board reader's glyph-classifier trainer (kiosk.vision.glyph_model.build_glyph_classifier)."""
    from calibration.profile_io import glyph_trainer

    return glyph_trainer(tile_set)
