"""Where calibration results meet the reader's calibration profile (kiosk.vision.profile, owned by the vision
reader engineer): this module only maps results onto that API, it defines no format of its own."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from calibration import CalibrationError


def _profile_module() -> ModuleType:
    try:
        import kiosk.vision.profile as profile
    except ImportError as exc:
        raise CalibrationError("the calibration profile format (kiosk.vision.profile) is not available in this "
                               f"build ({exc}); the result was not saved") from None
    return profile


def save_result(path: Path, kind: str, result: Any) -> None:
    """Merge one calibration result (kind: intrinsics | pose | exposure | glyphs) into the profile at ``path``."""
    _profile_module()
    raise CalibrationError(f"saving {kind} results into a profile is not wired to kiosk.vision.profile yet")


def glyph_trainer() -> Any:
    """The reader's glyph-classifier trainer: samples [(glyph image, letter)] -> (model, cross-validated accuracy)."""
    _profile_module()
    raise CalibrationError("the reader's glyph-classifier trainer is not available yet")
