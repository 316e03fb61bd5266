"""Realism levels of the synthetic camera: every knob in one place.

A :class:`RealismParams` holds ranges; each rendered frame draws its own values from them with the frame's
seed. Ranges are ``(low, high)`` tuples sampled uniformly; probabilities are per frame unless said per tile.

Levels:

* ``"easy"``: a straight overhead camera, even light, clean tiles; for geometry tests and first reader steps.
* ``"typical"``: a tournament hall with a fixed overhead camera (Raspberry Pi HQ/v2 class, 2028x1520): slight
  tilt and board rotation, mild lens distortion, ceiling-light gradients and colour casts, the occasional glare
  spot or body shadow, slight defocus, sensor noise, JPEG on half the frames, tiles a little off-centre and
  askew, now and then one upside down or sideways, the players' racks beside the board, rarely a hand over
  the board.
* ``"hard"``: a badly placed camera and a poor room: strong tilt, any board rotation, strong distortion,
  harsh light, glare, shadows, blur, noise, heavy JPEG, hands over the board often.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

HELD_OUT_BIT = 1 << 30
"""Seeds with this bit set are the benchmark's (``kiosk bench-vision``): train models on seeds below 2**30 only,
so the benchmark measures scenes no model has seen."""

Range = tuple[float, float]


@dataclass(frozen=True)
class RealismParams:
    """Ranges of every realism knob (see the module doc). Units in the field names: mm, deg, px, K."""

    name: str
    # camera (a pinhole with radial distortion above the board)
    camera_height_mm: Range = (450.0, 650.0)     # lens above the board plane
    tilt_deg: Range = (0.0, 6.0)                  # optical axis away from vertical
    board_rotation_deg: Range = (-4.0, 4.0)       # board's in-plane rotation in the image
    board_turn_prob: float = 0.0                  # chance the board is also turned by 90/180/270 degrees
    board_fill: Range = (0.80, 0.92)              # board's outer edge: fraction of the image's short side
    centre_offset_frac: float = 0.03              # board centre off the image centre (fraction of the image)
    distortion_k1: Range = (-0.10, 0.03)          # OpenCV radial k1 (barrel < 0 < pincushion)
    # tiles
    tile_offset_mm: float = 0.8                   # s.d. of a tile's centre from its square's centre (clipped at 2 s.d.)
    tile_rotation_deg: float = 3.0                # s.d. of a tile's small rotation (clipped at 2 s.d.)
    tile_turn_prob: float = 0.005                 # per tile: lies sideways or upside down (90/180/270)
    tile_thickness_mm: Range = (3.5, 4.8)         # tile height (parallax and visible sides)
    tile_shadow_mm: Range = (0.5, 1.5)            # how far a tile's shadow reaches beyond it (light direction random)
    tile_shadow_softness_mm: Range = (0.6, 1.0)   # s.d. of the shadow's edge blur
    tile_shadow_darkness: Range = (0.25, 0.4)
    tile_styles: tuple[str, ...] = ("wooden", "plastic", "tournament")
    fonts: tuple[str, ...] = ("sans", "hershey-simplex", "hershey-duplex", "hershey-triplex")
    board_styles: tuple[str, ...] = ("classic", "green")
    # light
    brightness: Range = (0.80, 1.10)              # overall exposure gain
    light_gradient: Range = (0.05, 0.20)          # peak-to-peak relative unevenness across the frame
    vignetting: Range = (0.0, 0.15)               # relative darkening at the image corners
    colour_temp_k: Range = (3300.0, 6500.0)       # light source; the camera's white balance removes most of it
    white_balance: Range = (0.70, 0.95)           # fraction of the colour cast the auto white balance removes
    flicker: Range = (0.0, 0.03)                  # rolling-shutter bands of mains-powered lights (relative depth)
    glare_prob: float = 0.2
    glare_spots: Range = (1, 1)
    glare_strength: Range = (0.15, 0.35)          # added light at the spot's centre, fraction of full scale
    glare_radius_mm: Range = (6.0, 14.0)
    shadow_prob: float = 0.2                      # a person's shadow over part of the board
    shadow_strength: Range = (0.15, 0.35)
    # optics and sensor
    defocus_sigma_px: Range = (0.5, 1.3)
    motion_blur_prob: float = 0.05
    motion_blur_px: Range = (2.0, 4.0)
    noise_sigma: Range = (2.0, 5.0)               # grey levels (0..255), before JPEG
    chroma_subsampling: bool = True               # YUV 4:2:0 from the camera pipeline: colour at half resolution
    jpeg_prob: float = 0.5
    jpeg_quality: Range = (70, 92)
    sharpen: Range = (0.2, 0.6)                   # the camera's own unsharp masking (amount), after the noise
    # people and things
    hand_prob: float = 0.03
    racks_prob: float = 0.6                       # the players' tile racks on the table beside the board

    def with_(self, **changes: Any) -> RealismParams:
        """A copy with some knobs changed (e.g. ``LEVELS["typical"].with_(hand_prob=1.0)``)."""
        return replace(self, **changes)


LEVELS: dict[str, RealismParams] = {
    "easy": RealismParams(
        name="easy",
        camera_height_mm=(550.0, 600.0),
        tilt_deg=(0.0, 2.0),
        board_rotation_deg=(-1.5, 1.5),
        board_fill=(0.85, 0.90),
        centre_offset_frac=0.01,
        distortion_k1=(-0.02, 0.0),
        tile_offset_mm=0.3,
        tile_rotation_deg=1.0,
        tile_turn_prob=0.0,
        tile_thickness_mm=(4.0, 4.0),
        tile_shadow_mm=(0.5, 1.0),
        tile_styles=("plastic", "wooden"),
        fonts=("sans",),
        board_styles=("classic",),
        brightness=(0.95, 1.05),
        light_gradient=(0.0, 0.05),
        vignetting=(0.0, 0.05),
        colour_temp_k=(5000.0, 6000.0),
        white_balance=(0.9, 1.0),
        flicker=(0.0, 0.0),
        glare_prob=0.0,
        shadow_prob=0.0,
        defocus_sigma_px=(0.3, 0.6),
        motion_blur_prob=0.0,
        noise_sigma=(1.0, 2.0),
        chroma_subsampling=False,
        jpeg_prob=0.0,
        sharpen=(0.0, 0.2),
        hand_prob=0.0,
        racks_prob=0.0,
    ),
    "typical": RealismParams(name="typical"),
    "hard": RealismParams(
        name="hard",
        camera_height_mm=(350.0, 800.0),
        tilt_deg=(4.0, 18.0),
        board_rotation_deg=(-45.0, 45.0),
        board_turn_prob=0.5,
        board_fill=(0.62, 0.95),
        centre_offset_frac=0.06,
        distortion_k1=(-0.25, 0.08),
        tile_offset_mm=1.5,
        tile_rotation_deg=6.0,
        tile_turn_prob=0.05,
        tile_thickness_mm=(3.5, 5.0),
        tile_shadow_mm=(0.5, 7.0),                # up to low sunlight through a window
        tile_shadow_softness_mm=(0.2, 1.0),
        tile_shadow_darkness=(0.3, 0.6),
        fonts=("sans", "hershey-simplex", "hershey-duplex", "hershey-triplex", "hershey-complex"),
        brightness=(0.35, 1.25),
        light_gradient=(0.2, 0.45),
        vignetting=(0.1, 0.35),
        colour_temp_k=(2700.0, 7500.0),
        white_balance=(0.4, 0.85),
        flicker=(0.02, 0.12),
        glare_prob=0.7,
        glare_spots=(1, 3),
        glare_strength=(0.4, 0.9),
        glare_radius_mm=(8.0, 25.0),
        shadow_prob=0.6,
        shadow_strength=(0.25, 0.55),
        defocus_sigma_px=(0.8, 2.2),
        motion_blur_prob=0.35,
        motion_blur_px=(3.0, 9.0),
        noise_sigma=(4.0, 9.0),
        jpeg_prob=1.0,
        jpeg_quality=(45, 85),
        sharpen=(0.3, 1.0),
        hand_prob=0.3,
        racks_prob=0.8,
    ),
}


def get_level(level: str | RealismParams) -> RealismParams:
    """The :class:`RealismParams` of a level name; a params object is returned unchanged.

    Raises:
        ValueError: unknown level name (the message lists the known ones).
    """
    if isinstance(level, RealismParams):
        return level
    try:
        return LEVELS[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown realism level {level!r} (known: {', '.join(LEVELS)})") from None
