"""The supported set-up for an unfamiliar tile set, measured: the installation photographs its bag laid out
(``kiosk calibrate glyphs``), and the reader reads its games with that calibration.

For ``kiosk bench-vision --calibrate K``: each benchmark frame is its own installation (its scene: camera, board,
tile style and face, :func:`kiosk.vision.synth.render.make_scene`). Before the frame is read, ``K`` photos of the
whole bag laid out from A1 (:func:`calibration.glyphs.default_layout`) are rendered by the same installation, at
the frame's level but without a hand, racks, glare, a body's shadow or motion blur (a director calibrates with
the board clear and the camera still), each in its own light (its own render seed). :func:`capture_glyphs` crops
and labels the tiles from the markers and trains the glyph model, as the command does; the frame is then read by a
``BoardReader`` with that profile. A calibration that fails (no photo shows the markers, no tile's ink found) is
recorded as the frame's verdict with every square ``#``: the event could not calibrate, so nothing is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kiosk.rules.board import Board
from kiosk.rules.tiles import load_tile_set
from kiosk.vision.train.bench import FrameResult, frame_seed, level_params, read_frame, unread_frame

if TYPE_CHECKING:
    from kiosk.vision.profile import CalibrationProfile

PHOTO_SEED_STEP = 104_729
"""Render seed of calibration photo ``k`` of a frame: the frame's seed + (k + 1) times this (another light)."""
CLEAR = {"hand_prob": 0.0, "racks_prob": 0.0, "glare_prob": 0.0, "shadow_prob": 0.0, "motion_blur_prob": 0.0}
"""Realism knobs of the calibration photos: the board clear, the camera still (the scene itself is the frame's)."""


FAILURE_KINDS = (("no photo showed", "no photo showed the board's markers"),
                 ("no ink found", "lettering the camera cannot see"),
                 ("no tile of", "a letter never seen with ink"),
                 ("training the tile classifier failed", "the glyph model could not be trained"))
"""(start of a CalibrationError's message, the kind it is counted as) for the benchmark's report."""


def failure_kind(message: str) -> str:
    """The kind (:data:`FAILURE_KINDS`) of a calibration failure's message; its first clause when unknown."""
    return next((kind for start, kind in FAILURE_KINDS if message.startswith(start)), message.split(":")[0])


@dataclass(frozen=True)
class Calibrated:
    """One installation's calibration: the profile (None when it failed), why it failed (the message and its kind,
    :func:`failure_kind`), the lettered tiles it learnt from and the seconds it took (rendering the photos
    included)."""

    profile: CalibrationProfile | None
    failure: str = ""
    tiles: int = 0
    seconds: float = 0.0
    kind: str = ""


def calibrate_scene(ts_name: str, level: str, fonts: str, scene_seed: int, photos: int,
                    size: tuple[int, int] = (2028, 1520)) -> Calibrated:
    """Calibrate the installation of ``scene_seed`` (at ``level`` with ``fonts``, as the benchmark renders it) from
    ``photos`` renders of its bag laid out. Never raises for a calibration that fails: see :class:`Calibrated`.

    Raises:
        ValueError: ``photos`` below 1.
    """
    import time

    from calibration import CalibrationError
    from calibration.glyphs import capture_glyphs, default_layout
    from calibration.profile_io import apply_result, glyph_trainer
    from kiosk.vision.profile import CalibrationProfile
    from kiosk.vision.synth.levels import get_level
    from kiosk.vision.synth.render import render_board

    if photos < 1:
        raise ValueError(f"photos {photos}: at least 1")
    t0 = time.perf_counter()
    ts = load_tile_set(ts_name)
    params = level_params(level, fonts)
    params = (get_level(params) if isinstance(params, str) else params).with_(**CLEAR)
    layout = default_layout(ts_name)
    bag = Board.from_rows([row.replace("?", "a") for row in layout])    # a blank: a lower-case letter, no glyph
    frames = [render_board(bag, seed=scene_seed + (k + 1) * PHOTO_SEED_STEP, scene_seed=scene_seed, level=params,
                           tile_set=ts, size=size).image for k in range(photos)]
    try:
        result = capture_glyphs(frames, layout, train=glyph_trainer(ts_name, folds=0), tile_set=ts_name)
        profile = CalibrationProfile()
        apply_result(profile, "glyphs", result)
    except CalibrationError as exc:
        return Calibrated(None, str(exc), seconds=time.perf_counter() - t0, kind=failure_kind(str(exc)))
    return Calibrated(profile, "", sum(label != "?" for _, label in result.samples), time.perf_counter() - t0)


def read_one_calibrated(task: tuple) -> FrameResult:
    """:func:`kiosk.vision.train.bench.read_one` for a calibrated installation: ``task`` = (index, board cells,
    tile-set name, level, (w, h), seed, fonts, photos). The frame's ``meta`` gains ``calibration``: the tiles
    learnt from and the seconds, or why it failed and its kind (then the verdict is "calibration failed" and every
    square ``#``; a calibration that raises anything is such a failure too, never the end of the run)."""

    from kiosk.vision.reader import BoardReader
    from kiosk.vision.synth.render import render_board

    index, cells, ts_name, level, size, seed, fonts, photos = task
    ts = load_tile_set(ts_name)
    scene_seed = frame_seed(level, index, seed)
    try:
        cal = calibrate_scene(ts_name, level, fonts, scene_seed, photos, size)
    except Exception as exc:  # noqa: BLE001 - the benchmark reports a calibration that raised, it does not stop
        cal = Calibrated(None, f"{type(exc).__name__}: {exc}", kind=f"calibration raised {type(exc).__name__}")
    frame = render_board(Board(cells), seed=scene_seed, level=level_params(level, fonts), tile_set=ts, size=size)
    meta = {"calibration": {"tiles": cal.tiles, "seconds": round(cal.seconds, 2), "failure": cal.failure,
                            "kind": cal.kind}}
    if cal.profile is None:
        return unread_frame(frame, index, "calibration failed", meta)
    return read_frame(BoardReader(ts, cal.profile), frame, index, meta)
