"""Where calibration results meet the reader's calibration profile (:mod:`kiosk.vision.profile`, owned by the
vision reader engineer): this module only maps results onto that API and defines no format of its own.

Each ``kiosk calibrate`` step updates the profile in place: a missing file starts a new profile; a corrupt
file or one of another format version is refused (never overwritten).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from calibration import CalibrationError, CalibrationInputError
from kiosk.files import atomic_output


def load_or_new(path: Path | None) -> Any:
    """The profile at ``path`` (a new one when there is no file yet). CalibrationInputError (a CalibrationError)
    for a bad file."""
    from kiosk.vision.profile import CalibrationProfile, ProfileError, load_profile

    if path is None or not Path(path).exists():
        return CalibrationProfile()
    try:
        return load_profile(path)
    except ProfileError as exc:
        raise CalibrationInputError(f"{exc} (the file was left as it is)") from None


def _note(profile: Any, text: str) -> None:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [ln for ln in profile.notes.splitlines() if ln.strip()]
    profile.notes = "\n".join(lines + [f"{stamp} {text}"])


def apply_result(profile: Any, kind: str, result: Any) -> str:
    """Write one result into ``profile`` (kiosk.vision.profile.CalibrationProfile); returns a one-line note.

    intrinsics -> camera matrix, distortion, image size; pose -> board mode, fixed homography / grid
    corners and the frame size they were measured at (``board.image_size``); exposure -> camera_settings (exposure_us, analogue_gain, awb_gains, auto_exposure False);
    glyphs -> embedded glyph model, letter templates (a few of the photos' tiles per letter) and tile set.
    """
    from kiosk.vision.bag_templates import BagTemplates
    from kiosk.vision.profile import ModelRef

    if kind == "intrinsics":
        profile.camera_matrix = np.asarray(result.K, np.float64)
        profile.distortion = np.asarray(result.dist, np.float64)
        profile.image_size = tuple(int(v) for v in result.image_size)
        return f"intrinsics: RMS reprojection error {result.rms_px:.3f} px over {len(result.per_view_px)} photos"
    if kind == "pose":
        profile.board_mode = result.mode
        profile.homography = np.asarray(result.homography, np.float64)
        profile.grid_corners_px = np.asarray(result.grid_corners_px, np.float32)
        size = getattr(result, "image_size", None)
        profile.board_image_size = None if size is None else (int(size[0]), int(size[1]))
        return f"pose from {result.method}, board mode {result.mode}"
    if kind == "exposure":
        if result.exposure_us is None:
            raise CalibrationError("this camera's exposure is not set through libcamera: nothing to lock "
                                   "(the measurement above says whether the light is usable)")
        profile.camera_settings = {"exposure_us": int(result.exposure_us), "analogue_gain": float(result.analogue_gain),
                                   "awb_gains": [float(g) for g in result.colour_gains], "auto_exposure": False}
        return (f"exposure locked: {result.exposure_us} us, gain {result.analogue_gain:.2f}, "
                f"red {result.colour_gains[0]:.3f} blue {result.colour_gains[1]:.3f}")
    if kind == "glyphs":
        if result.model is None or not hasattr(result.model, "to_text"):
            raise CalibrationError("no trained glyph model to save")
        profile.glyph_model = ModelRef(data=result.model.to_text())
        templates = BagTemplates.from_samples(result.samples)   # the photos' tiles, kept as letter templates
        profile.letter_templates = ModelRef(data=templates.to_text()) if templates.letters else ModelRef()
        if getattr(result.model, "tile_set_name", ""):
            profile.tile_set = result.model.tile_set_name
        return (f"glyph model from {len(result.samples)} tiles, cross-validated accuracy {100 * result.cv_accuracy:.1f} %"
                f"; {len(templates.letters)} of them kept as letter templates")
    raise ValueError(f"unknown calibration result kind {kind!r}")


def save_result(path: Path, kind: str, result: Any) -> None:
    """Merge one calibration result into the profile at ``path`` (written atomically)."""
    profile = load_or_new(path)
    _note(profile, apply_result(profile, kind, result))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # readable by all (the kiosk's service user reads a profile root wrote); a failed write leaves nothing behind
    with atomic_output(path, what="calibration profile") as fh:
        fh.write(profile.to_json())


def undistort(frame: np.ndarray, profile: Any) -> np.ndarray:
    """``frame`` undistorted with the profile's intrinsics exactly as the reader does it (same camera matrix
    as the new one, scaled to the frame's size), so a pose measured on it matches the reader's frames."""
    import cv2

    if profile is None or profile.camera_matrix is None or profile.distortion is None:
        return frame
    h, w = frame.shape[:2]
    k = np.array(profile.camera_matrix, np.float64)
    if profile.image_size and tuple(profile.image_size) != (w, h):
        k[0] *= w / profile.image_size[0]
        k[1] *= h / profile.image_size[1]
    m1, m2 = cv2.initUndistortRectifyMap(k, profile.distortion, None, k, (w, h), cv2.CV_16SC2)
    return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR)


def glyph_trainer(tile_set: str = "english", folds: int = 4) -> Callable[[Sequence[tuple[np.ndarray, str]]],
                                                                         tuple[Any, float]]:
    """The reader's trainer (:func:`kiosk.vision.glyph_model.build_glyph_classifier`) for ``(tile crop, letter)``
    samples; blanks ("?") are left out (they carry no glyph). Returns (classifier, cross-validated accuracy)."""
    from kiosk.vision.glyph_model import build_glyph_classifier
    from kiosk.vision.mlp import ModelError

    def train(samples: Sequence[tuple[np.ndarray, str]]) -> tuple[Any, float]:
        lettered = [(img, lab) for img, lab in samples if lab != "?"]
        try:
            return build_glyph_classifier(lettered, folds=folds, tile_set_name=tile_set)
        except ModelError as exc:
            raise CalibrationError(f"training the tile classifier failed: {exc}") from None

    return train
