"""Board pose from markers and from tapped corners, and the exposure / white-balance lock, on frames from the
synthetic camera whose true grid corners are known."""

from __future__ import annotations

import os
from functools import cache

import numpy as np
import pytest

from calibration import CalibrationError
from calibration.exposure import check_frame_white, lock_picamera2, measure_white
from calibration.pose import overlay_image, pose_from_corners, pose_from_markers, tap_corners
from kiosk.rules.board import Board


@cache
def frame(seed: int = 3):
    from kiosk.vision.synth import render_board

    return render_board(Board(), seed=seed, level="easy", size=(1024, 768))


def test_pose_from_markers_matches_the_true_corners() -> None:
    f = frame()
    pose = pose_from_markers(f.image)
    assert pose.method == "markers"
    assert np.abs(pose.grid_corners_px - f.grid_corners_px).max() < 1.5
    out = overlay_image(f.image, pose)
    assert out.shape[0] == f.image.shape[0] and out.shape[1] > f.image.shape[1]


def test_pose_with_intrinsics_gives_camera_height() -> None:
    f = frame()
    cam = f.meta["camera"]
    focal = cam["focal_px"]
    K = np.array([[focal, 0, 512], [0, focal, 384], [0, 0, 1.0]])
    pose = pose_from_markers(f.image, K=K, dist=np.array([cam["k1"], 0, 0, 0, 0]))
    assert abs(pose.camera_height_mm - cam["height_mm"]) < 0.08 * cam["height_mm"]
    assert pose.tilt_deg < 5 and pose.reprojection_px < 2


def test_pose_from_rough_tapped_corners_is_refined() -> None:
    f = frame()
    rough = f.grid_corners_px + np.random.default_rng(1).normal(0, 3, (4, 2)).astype(np.float32)
    pose = pose_from_corners(f.image, rough)
    assert np.abs(pose.grid_corners_px - f.grid_corners_px).max() < 1.5


def test_bad_corners_and_no_markers() -> None:
    f = frame()
    with pytest.raises(CalibrationError, match="clockwise"):
        pose_from_corners(f.image, f.grid_corners_px[::-1])
    with pytest.raises(CalibrationError, match="covers only .*move the camera closer"):
        pose_from_corners(f.image, np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32))
    with pytest.raises(CalibrationError, match="4 points"):
        pose_from_corners(f.image, [[1, 2], [3, 4]])
    with pytest.raises(CalibrationError, match="markers"):
        pose_from_markers(np.full((480, 640, 3), 90, np.uint8))


def test_tap_corners_on_the_touchscreen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    f = frame()
    scale = 800 / 1024
    want = f.grid_corners_px
    clicks = [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(int(x * scale), int(y * scale)), button=1)
              for x, y in want]
    script = [[clicks[0]], [clicks[1]], [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_BACKSPACE)],
              [clicks[1]], [clicks[2], clicks[3]]]
    got = tap_corners(f.image, (800, 600), events=lambda: script.pop(0) if script else [])
    assert np.abs(got - want).max() < 2 / scale
    with pytest.raises(CalibrationError, match="cancelled"):
        tap_corners(f.image, (800, 600), events=lambda: [pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE)])


def test_white_measure_on_the_marker_paper() -> None:
    img = frame().image.astype(np.float32)
    tinted = np.clip(img * np.array([1.05, 1.0, 0.8]), 0, 255).astype(np.uint8)  # bluish light (BGR)
    m = measure_white(tinted)
    assert m.markers == 4
    assert m.gains[0] == pytest.approx(1 / 0.8, rel=0.05) and m.gains[1] == pytest.approx(1 / 1.05, rel=0.03)
    assert any("tinted" in n for n in check_frame_white(tinted).notes)
    with pytest.raises(CalibrationError, match="too dark"):
        check_frame_white((img * 0.4).astype(np.uint8))
    with pytest.raises(CalibrationError, match="too bright"):
        check_frame_white(np.clip(img * 1.6, 0, 255).astype(np.uint8))


class SimPiCamera:
    """A Pi camera over a synthetic scene: the frame scales with exposure time and the colour gains, the
    auto algorithms settle on a slightly wrong answer (as real ones do under tinted light)."""

    def __init__(self) -> None:
        self.scene = frame().image.astype(np.float32) * np.array([1.2, 1.0, 0.85]) / 255  # bluish light
        self.controls = {"ExposureTime": 20000, "AnalogueGain": 1.0, "ColourGains": (1.0, 1.0)}

    def set_controls(self, c: dict) -> None:
        self.controls.update(c)

    def metadata(self) -> dict:
        return {"ExposureTime": 9000, "AnalogueGain": 2.0, "ColourGains": (1.1, 0.9)}

    def capture(self) -> tuple[int, np.ndarray]:
        if self.controls.get("AeEnable", True):
            e, g, (r, b) = 9000, 2.0, (1.1, 0.9)
        else:
            e, g, (r, b) = self.controls["ExposureTime"], self.controls["AnalogueGain"], self.controls["ColourGains"]
        img = self.scene * (e * g / 18000) * 230 * np.array([b, 1.0, r])
        return 0, np.clip(img, 0, 255).astype(np.uint8)


def test_picamera2_lock_fixes_and_neutralises() -> None:
    cam = SimPiCamera()
    lock = lock_picamera2(cam, settle_frames=2)
    assert cam.controls["AeEnable"] is False and cam.controls["AwbEnable"] is False
    w = lock.measure.white_bgr
    assert max(w) / min(w) < 1.04  # neutral paper
    assert abs(np.mean(w) - 215) < 15
    assert lock.exposure_us == cam.controls["ExposureTime"] and lock.colour_gains == cam.controls["ColourGains"]


def test_a_greyscale_frame_is_said_to_have_no_colour_for_the_white_balance(tmp_path, capsys) -> None:
    """The exposure step balances the white of the marker paper: a greyscale photo's white is neutral in any
    light, and it was measured as usable. It is refused as having no colour (a file given: bad input, exit 2)."""
    import cv2

    from kiosk.cli import main

    grey = cv2.cvtColor(cv2.cvtColor(frame().image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    with pytest.raises(CalibrationError, match=r"^the frame is greyscale \(it has no colour\): white balance is "
                                               r"measured on a colour frame; set the camera to colour$"):
        measure_white(grey)
    assert pose_from_markers(grey).method == "markers"    # the pose needs no colour: found as before
    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), grey)
    assert main(["calibrate", "exposure", "--image", str(path)]) == 2
    assert capsys.readouterr().err == (f"kiosk calibrate exposure: {path}: the photo is greyscale (it has no colour): "
                                       "the exposure step measures the white balance on the marker paper, which needs "
                                       "a colour photo of the board\n")
