"""The calibrated benchmark's installation: the bag photographed by the frame's own scene, a glyph model trained
from it, the frame read with that profile; a calibration that fails leaves the frame unread, with the reason."""

from __future__ import annotations

import pytest

from calibration import CalibrationError
from calibration.bench import calibrate_scene, read_one_calibrated
from kiosk.rules.board import Board
from kiosk.vision.train.bench import frame_seed

ROWS = ["." * 15] * 7 + ["....QUIZ.JAB...", ".....N....X....", ".....K....E...."] + ["." * 15] * 5
SIZE = (1280, 960)


def test_the_installation_calibrates_on_its_bag_and_reads_its_frame() -> None:
    cal = calibrate_scene("english", "easy", "level", frame_seed("easy", 0, 3), photos=1, size=SIZE)
    assert cal.profile is not None and cal.profile.glyph_model.data and cal.failure == ""
    assert 95 <= cal.tiles <= 98 and cal.seconds > 0      # the bag's 98 lettered tiles, less any without ink
    fr = read_one_calibrated((0, Board.from_rows(ROWS).cells, "english", "easy", SIZE, 3, "level", 1))
    assert fr.verdict == "ok" and fr.meta["calibration"]["failure"] == ""
    assert fr.read == fr.truth == ROWS


def test_a_failed_calibration_reads_nothing_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import calibration.glyphs

    def fails(*args: object, **kwargs: object) -> None:
        raise CalibrationError("no tile of E showed its letter in any photo")

    def breaks(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the renderer ran out of memory")

    for capture, why, kind in ((fails, "no tile of E showed its letter in any photo", "a letter never seen with ink"),
                               (breaks, "RuntimeError: the renderer ran out of memory",
                                "calibration raised RuntimeError")):
        monkeypatch.setattr(calibration.glyphs, "capture_glyphs", capture)
        fr = read_one_calibrated((0, Board.from_rows(ROWS).cells, "english", "easy", SIZE, 3, "level", 1))
        assert fr.verdict == "calibration failed" and fr.read == ["#" * 15] * 15
        assert fr.meta["calibration"]["failure"] == why and fr.meta["calibration"]["kind"] == kind
    with pytest.raises(ValueError, match="photos 0: at least 1"):
        calibrate_scene("english", "easy", "level", 1, photos=0)
