"""Calibration profile: one versioned JSON file describing a camera + board + tile set installation.

Format (``format`` = ``"kiosk-vision-profile"``, ``version`` = 1)::

    {
      "format": "kiosk-vision-profile", "version": 1,
      "tile_set": "english",                       # kiosk.rules.tiles.load_tile_set name
      "camera": {"matrix": [[fx,0,cx],[0,fy,cy],[0,0,1]] | null,      # pixels
                 "distortion": [k1,k2,p1,p2,k3] | null,                 # OpenCV model
                 "image_size": [width, height] | null},                 # px the matrix was measured at
      "board": {"mode": "markers" | "fixed" | "search",               # how to find the board
                "grid_corners_px": [[x,y] x4] | null,                   # A1,O1,O15,A15 outer corners (fixed mode)
                "homography": [[...] x3] | null,                        # image px -> canonical warp px (fixed)
                "image_size": [width, height] | null},                  # px of the frames the grid was measured on
      "camera_settings": {"exposure_us": int | null, "analogue_gain": float | null,
                          "awb_gains": [red, blue] | null, "auto_exposure": bool},
      "glyph_model": {"path": "file.npz" | null, "data": "<base64 npz>" | null},   # null both: none (the network reads alone)
      "occupancy_model": {"path": ... | null, "data": ... | null},
      "letter_templates": {"path": ... | null, "data": ... | null},  # the bag's tiles (kiosk.vision.bag_templates)
      "notes": "free text (how it was made)"
    }

``board.image_size`` is the frame size (px) the fixed grid (``grid_corners_px`` / ``homography``) was measured
at; every ``kiosk calibrate pose`` writes it. The reader (:meth:`CalibrationProfile.fixed_homography`) scales the
grid to frames of another size with the same aspect ratio (the same field of view at another camera mode) and
refuses frames of another aspect ratio. Older profiles without it still load: the reader then takes
``camera.image_size`` when set; a profile that records neither takes the size of the first frame read through
its grid (logged: :data:`NO_FRAME_SIZE`) and refuses any frame of another size after it, as a profile recording
that size refuses a frame it cannot be scaled to (before, its grid was laid in px on frames of any size and read
the wrong squares).

A relative ``path`` is resolved against the profile file's folder. :func:`load_profile` raises
:class:`ProfileError` for a missing or corrupt file, another format version, or bad fields (the message names
the file and the field): numbers are JSON numbers (``true`` is no 1, ``"1.5"`` no number) and finite; the version a
whole number; frame sizes whole px from 1 to :data:`MAX_IMAGE_PX`; the camera matrix a pinhole camera's (focal
lengths above 0, so invertible); the homography invertible; ``camera_settings`` of the kinds a Pi camera takes.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kiosk.rules.checked import Checker
from kiosk.vision import locate
from kiosk.vision.corners import CornersError, check_corners, corners_problem

FORMAT = "kiosk-vision-profile"
VERSION = 1
BOARD_MODES = ("markers", "fixed", "search")


MAX_IMAGE_PX = 20_000    # a frame side a profile may record, px (a 64 MP sensor's frames are 9248 px wide)
ASPECT_TOLERANCE = 0.01   # frames whose width/height is within this share of the calibration's are the same view
NO_FRAME_SIZE = ("the calibration records no frame size; taking {width}x{height} px from the first frame: calibrate "
                 "the pose again to record it")
"""Logged (warning) when a profile without ``board.image_size`` or ``camera.image_size`` takes its first frame's."""

log = logging.getLogger(__name__)


class ProfileError(ValueError):
    """A calibration profile cannot be used (message names the file and field)."""


class FrameSizeError(ValueError):
    """A frame cannot be read through a profile's fixed grid: its size is not the one the grid was measured at
    and cannot be scaled to it (the message is a sentence for the judge naming both sizes)."""


@dataclass
class ModelRef:
    """Where a trained model lives: a file path (relative to the profile) or embedded base64 data."""

    path: str | None = None
    data: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "data": self.data}


@dataclass
class CalibrationProfile:
    """An installation's calibration (see the module docstring for the JSON form and units)."""

    tile_set: str = "english"
    camera_matrix: np.ndarray | None = None        # 3x3 float64, px
    distortion: np.ndarray | None = None           # (5,) float64
    image_size: tuple[int, int] | None = None      # (width, height) px
    board_mode: str = "markers"
    grid_corners_px: np.ndarray | None = None      # 4x2 float32
    homography: np.ndarray | None = None           # 3x3 float64
    board_image_size: tuple[int, int] | None = None  # (width, height) px of the frames the fixed grid was measured on
    camera_settings: dict[str, Any] = field(default_factory=dict)
    glyph_model: ModelRef = field(default_factory=ModelRef)
    occupancy_model: ModelRef = field(default_factory=ModelRef)
    letter_templates: ModelRef = field(default_factory=ModelRef)
    notes: str = ""
    source: Path | None = None                     # the file it was loaded from (for relative model paths)
    taken_size: tuple[int, int] | None = field(default=None, compare=False)
    """(width, height) px of the first frame a profile recording no frame size read its grid on (never saved)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict of this profile."""
        def arr(a: np.ndarray | None) -> list | None:
            return None if a is None else np.asarray(a).tolist()
        return {
            "format": FORMAT,
            "version": VERSION,
            "tile_set": self.tile_set,
            "camera": {"matrix": arr(self.camera_matrix), "distortion": arr(self.distortion),
                       "image_size": list(self.image_size) if self.image_size else None},
            "board": {"mode": self.board_mode, "grid_corners_px": arr(self.grid_corners_px),
                      "homography": arr(self.homography),
                      "image_size": list(self.board_image_size) if self.board_image_size else None},
            "camera_settings": dict(self.camera_settings),
            "glyph_model": self.glyph_model.to_dict(),
            "occupancy_model": self.occupancy_model.to_dict(),
            "letter_templates": self.letter_templates.to_dict(),
            "notes": self.notes,
        }

    def fixed_homography(self, width: int, height: int) -> np.ndarray:
        """The fixed grid's homography (3x3 float64, image px -> canonical warp px) for a frame of ``width`` x
        ``height`` px (after undistortion).

        The grid belongs to frames of ``board_image_size`` (else ``camera.image_size``): a frame of that size
        gets it as stored; one of another size with the same aspect ratio (within ASPECT_TOLERANCE: the same
        field of view in another camera mode, 2028x1520 calibrated, 1014x760 or 4056x3040 read) gets it scaled
        to its pixels (pixel centres kept: binning 2x2 puts pixel x' over x = 2 x' + 0.5). A profile without
        either size takes the first frame's as its own (:attr:`taken_size`, logged: :data:`NO_FRAME_SIZE`) unless
        its corners cannot be the grid in that frame (:func:`kiosk.vision.corners.corners_problem`: mostly outside
        it, too small; refused, nothing taken); a later frame of another size is refused (it cannot know the
        field of view of the size it was measured at, so it scales nothing).

        Raises FrameSizeError (a sentence naming both sizes, or why the grid cannot lie in the frame) and
        ProfileError when the profile has no fixed grid.
        """
        if self.homography is not None:
            h = np.asarray(self.homography, np.float64)
        elif self.grid_corners_px is not None:
            h = locate.homography_from_grid_corners(self.grid_corners_px)
        else:
            raise ProfileError(f"{self.source or 'calibration profile'}: board mode 'fixed' needs grid_corners_px "
                               f"or homography")
        recorded = self.board_image_size or self.image_size
        size = recorded or self.taken_size
        if size is None:
            problem = corners_problem(locate.grid_corners_in_image(h), (height, width))
            if problem is not None:
                raise FrameSizeError(f"the camera's calibration cannot be the grid in its {width}x{height} px "
                                     f"frames ({problem}; the calibration does not record the frame size it was "
                                     f"measured at): calibrate the camera again")
            self.taken_size = (width, height)
            log.warning("%s", NO_FRAME_SIZE.format(width=width, height=height))
            return h
        cal_w, cal_h = size
        if (cal_w, cal_h) == (width, height):
            return h
        if recorded is None or abs((width / height) / (cal_w / cal_h) - 1) > ASPECT_TOLERANCE:
            raise FrameSizeError(f"the camera's frames are {width}x{height} px but its calibration was measured "
                                 f"at {cal_w}x{cal_h} px: calibrate the camera again")
        sx, sy = width / cal_w, height / cal_h
        to_calibrated = np.array([[1 / sx, 0, 0.5 / sx - 0.5], [0, 1 / sy, 0.5 / sy - 0.5], [0, 0, 1]])
        return h @ to_calibrated

    def to_json(self) -> str:
        """The profile as the JSON text a profile file holds."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the profile as JSON (UTF-8), atomically (:func:`kiosk.files.write_atomic`: a failed write leaves
        the old profile). Raises OSError naming the path."""
        from kiosk.files import write_atomic

        write_atomic(path, self.to_json())

    def resolve(self, ref: ModelRef) -> tuple[str, str | bytes] | None:
        """("data", base64 text) or ("file", bytes) for a model reference, None when it names none (the built-in
        occupancy model; no glyph model or letter templates).

        Raises ProfileError when a referenced file cannot be read.
        """
        if ref.data:
            return "data", ref.data
        if ref.path:
            p = Path(ref.path)
            if not p.is_absolute() and self.source is not None:
                p = self.source.parent / p
            try:
                return "file", _regular(p, f"model file of {self.source or 'the profile'}").read_bytes()
            except OSError as exc:
                raise ProfileError(f"{self.source or 'profile'}: model file {p}: {exc.strerror or exc}") from None
        return None


def _number(v: Any) -> bool:
    """``v`` is a JSON number: an int or a float, never a bool (``true`` is no 1)."""
    return isinstance(v, int | float) and not isinstance(v, bool)


def _size(value: Any, where: str) -> tuple[int, int] | None:
    """A frame size ``[width, height]`` (px, whole numbers 1..MAX_IMAGE_PX) or None; ProfileError naming ``where``."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_IMAGE_PX for v in value):
        raise ProfileError(f"{where}: expected [width, height] in px (two whole numbers from 1 to {MAX_IMAGE_PX}), "
                           f"got {json.dumps(value, default=str)}")
    return int(value[0]), int(value[1])


def _leaves(value: Any) -> list[Any]:
    """The items of nested JSON arrays (anything else: itself)."""
    return [x for v in value for x in _leaves(v)] if isinstance(value, list) else [value]


def _matrix(value: Any, shape: tuple[int, ...], where: str) -> np.ndarray | None:
    """``value`` (nested arrays of finite numbers of ``shape``) as float64, or None; ProfileError naming ``where``
    (a string or ``true`` among the numbers too: NumPy would take "1.5" and true as numbers)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ProfileError(f"{where}: expected an array of numbers, got {json.dumps(value, default=str)}")
    odd = [v for v in _leaves(value) if not _number(v)]
    if odd:
        raise ProfileError(f"{where}: expected an array of numbers, got {json.dumps(odd[0], default=str)} among them")
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):   # ragged rows
        raise ProfileError(f"{where}: expected numbers of shape {shape}, got rows of different lengths") from None
    if a.shape != shape:
        raise ProfileError(f"{where}: expected numbers of shape {shape}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ProfileError(f"{where}: holds NaN or infinity (expected finite numbers)")
    return a


def _camera_matrix(value: Any, where: str) -> np.ndarray | None:
    """A pinhole camera matrix ``[[fx, s, cx], [0, fy, cy], [0, 0, 1]]`` with fx, fy above 0 px (so invertible), or
    None; ProfileError naming ``where`` (a zero or singular matrix maps no pixel to a ray)."""
    k = _matrix(value, (3, 3), where)
    if k is not None and not (k[0, 0] > 0 and k[1, 1] > 0 and k[1, 0] == 0 and list(k[2]) == [0, 0, 1]):
        raise ProfileError(f"{where}: not a camera matrix: expected [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] with the "
                           f"focal lengths fx and fy above 0 px, got {json.dumps(k.tolist())}")
    return k




_SETTINGS = {"exposure_us": "a whole number of microseconds above 0", "analogue_gain": "a number above 0",
             "awb_gains": "[red, blue]: two numbers above 0", "auto_exposure": "true or false"}


def _setting_ok(key: str, v: Any) -> bool:
    """A ``camera_settings`` value of the kind a Pi camera takes (finite, above 0); other keys pass."""
    if key == "exposure_us":
        return isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 10**9
    if key == "analogue_gain":
        return _number(v) and 0 < v < float("inf")
    if key == "awb_gains":
        return isinstance(v, list) and len(v) == 2 and all(_number(g) and 0 < g < float("inf") for g in v)
    return isinstance(v, bool) if key == "auto_exposure" else True


def _settings(value: Any, origin: str) -> dict[str, Any]:
    """``camera_settings`` checked (:func:`_setting_ok`; null: not set); ProfileError naming the key."""
    settings = value or {}
    if not isinstance(settings, dict):
        raise ProfileError(f"{origin}: camera_settings: expected an object")
    for key, v in settings.items():
        if v is not None and not _setting_ok(key, v):
            raise ProfileError(f"{origin}: camera_settings.{key}: expected {_SETTINGS[key]}, got "
                               f"{json.dumps(v, default=str)}")
    return settings


_MODEL_REF = '{{"path": ..., "data": ...}}'
_MODEL_REF_CHECK = Checker(error=ProfileError, template="{path}: expected {what}",
                           unknown="{parent}: expected " + _MODEL_REF, not_object="{path}: expected " + _MODEL_REF)
"""A model reference's wording (:mod:`kiosk.rules.checked`): ``"<file>: glyph_model.path: expected a string or null"``."""


def _model_ref(value: Any, where: str) -> ModelRef:
    if value is None:
        return ModelRef()
    return _MODEL_REF_CHECK.build(ModelRef, value, where)


def _check_grid(corners: np.ndarray | None, hom: np.ndarray | None, origin: str) -> None:
    """The profile's fixed grid must be a board's grid (:func:`kiosk.vision.corners.check_corners`: not
    crossed, convex, clockwise, squares of a few px at least): ``board.grid_corners_px`` as given, and the
    corners ``board.homography`` puts in the image (so it is invertible: a singular one puts no grid there, a
    nearly singular one a grid far outside the image or of squares under a px). Raises ProfileError naming the file
    and the key."""
    try:
        if corners is not None:
            check_corners(corners, f"{origin}: board.grid_corners_px")
        if hom is not None:
            try:
                in_image = locate.grid_corners_in_image(hom)
            except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
                raise CornersError(f"{origin}: board.homography", "not invertible (it puts no grid in the image)") \
                    from None
            check_corners(in_image, f"{origin}: board.homography (the grid corners it puts in the image)")
    except CornersError as exc:
        raise ProfileError(str(exc)) from None


def profile_from_dict(d: Any, origin: str = "profile") -> CalibrationProfile:
    """Validate and convert a parsed JSON dict; raises ProfileError naming ``origin`` and the field."""
    if not isinstance(d, dict):
        raise ProfileError(f"{origin}: not a JSON object")
    if d.get("format") != FORMAT:
        raise ProfileError(f"{origin}: not a kiosk vision profile (format {d.get('format')!r})")
    version = d.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProfileError(f"{origin}: version: expected the format's version number, {VERSION}, got "
                           f"{json.dumps(version, default=str)}")
    if version != VERSION:
        raise ProfileError(f"{origin}: profile format version {d.get('version')!r}, this kiosk reads version "
                           f"{VERSION}; recalibrate or convert it")
    cam = d.get("camera") or {}
    board = d.get("board") or {}
    if not isinstance(cam, dict) or not isinstance(board, dict):
        raise ProfileError(f"{origin}: 'camera' and 'board' must be objects")
    dist = cam.get("distortion")
    dist_a = None
    if dist is not None:
        dist_a = _matrix(dist, (len(dist),) if isinstance(dist, list) else (5,), f"{origin}: camera.distortion")
        if dist_a is not None and len(dist_a) not in (4, 5, 8, 12, 14):
            raise ProfileError(f"{origin}: camera.distortion: expected 4, 5, 8, 12 or 14 coefficients")
    size = _size(cam.get("image_size"), f"{origin}: camera.image_size")
    board_size = _size(board.get("image_size"), f"{origin}: board.image_size")
    mode = board.get("mode", "markers")
    if mode not in BOARD_MODES:
        raise ProfileError(f"{origin}: board.mode {mode!r}: expected one of {', '.join(BOARD_MODES)}")
    corners = _matrix(board.get("grid_corners_px"), (4, 2), f"{origin}: board.grid_corners_px")
    hom = _matrix(board.get("homography"), (3, 3), f"{origin}: board.homography")
    if mode == "fixed" and corners is None and hom is None:
        raise ProfileError(f"{origin}: board.mode 'fixed' needs grid_corners_px or homography")
    _check_grid(corners, hom, origin)
    tile_set = d.get("tile_set", "english")
    if not isinstance(tile_set, str):
        raise ProfileError(f"{origin}: tile_set: expected a name")
    settings = _settings(d.get("camera_settings"), origin)
    return CalibrationProfile(
        tile_set=tile_set,
        camera_matrix=_camera_matrix(cam.get("matrix"), f"{origin}: camera.matrix"),
        distortion=dist_a,
        image_size=size,
        board_mode=mode,
        grid_corners_px=None if corners is None else corners.astype(np.float32),
        homography=hom,
        board_image_size=board_size,
        camera_settings=settings,
        glyph_model=_model_ref(d.get("glyph_model"), f"{origin}: glyph_model"),
        occupancy_model=_model_ref(d.get("occupancy_model"), f"{origin}: occupancy_model"),
        letter_templates=_model_ref(d.get("letter_templates"), f"{origin}: letter_templates"),
        notes=str(d.get("notes", "")),
    )


def _regular(p: Path, what: str) -> Path:
    """``p`` once it is a regular file (a FIFO or device would block the read, a folder cannot be read).
    Raises ProfileError naming ``what``; OSError when there is nothing at ``p``."""
    from kiosk.files import InputError, check_regular_file

    if not p.exists():
        raise FileNotFoundError(2, "No such file or directory", str(p))
    try:
        return check_regular_file(p, what)
    except InputError as exc:
        raise ProfileError(str(exc)) from None


def load_profile(path: str | Path) -> CalibrationProfile:
    """Read a profile file. Raises ProfileError (missing, unreadable, empty, binary, not UTF-8, not JSON, wrong
    version, bad field), naming it."""
    from kiosk.files import InputError, read_text

    p = Path(path)
    try:   # the one reader of a person's text file: a BOM (Windows editors) is no fault, binary data is refused
        text = read_text(p, "calibration profile")
    except InputError as exc:
        raise ProfileError(str(exc)) from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"{p}: corrupt profile, not valid JSON (line {exc.lineno}: {exc.msg})") from None
    prof = profile_from_dict(d, str(p))
    prof.source = p
    return prof
