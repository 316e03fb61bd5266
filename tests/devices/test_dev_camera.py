"""Camera backends: picamera2 through a fake module, VideoCapture through a fake capture, replay from files,
the synthetic adapter, and the camera that is not there."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from dev_fakes import FakePicamera2, fake_picamera2_module

from kiosk.devices.camera import Camera, CameraError, UnavailableCamera, check_frame
from kiosk.devices.camera_opencv import OpenCVCamera
from kiosk.devices.camera_picamera2 import Picamera2Camera, picamera2_controls
from kiosk.devices.camera_replay import ReplayCamera
from kiosk.devices.camera_synthetic import SyntheticCamera


@pytest.fixture(autouse=True)
def _reset_fake() -> None:
    FakePicamera2.instances.clear()
    FakePicamera2.fail_start = False


def test_picamera2_fixed_exposure_and_white_balance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    cam = Picamera2Camera((640, 480), "still", exposure_us=10_000, analogue_gain=1.5, colour_gains=(2.0, 1.6))
    assert isinstance(cam, Camera)
    fake = FakePicamera2.instances[-1]
    assert fake.kind == "still" and fake.config["main"] == {"size": (640, 480), "format": "RGB888"}
    assert fake.controls == {"AeEnable": False, "ExposureTime": 10_000, "AnalogueGain": 1.5,
                             "AwbEnable": False, "ColourGains": (2.0, 1.6)}
    t, frame = cam.capture()
    assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8 and frame[0, 0, 0] == 255
    assert cam.health().state == "ok" and "locked" in cam.health().detail
    assert cam.metadata()["ExposureTime"] == 8000


def test_picamera2_preview_mode_and_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    Picamera2Camera((320, 240), "preview")
    assert FakePicamera2.instances[-1].kind == "preview" and FakePicamera2.instances[-1].controls == {}


def test_picamera2_capture_failure_then_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    cam = Picamera2Camera((64, 48))
    FakePicamera2.instances[-1].fail_capture = True
    with pytest.raises(CameraError, match="timed out"):
        cam.capture()
    assert cam.health().state == "down"
    cam.capture()  # restarted on the next capture
    assert cam.health().state == "ok" and len(FakePicamera2.instances) == 2


def test_picamera2_missing_sensor_and_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    FakePicamera2.fail_start = True
    cam = Picamera2Camera()
    assert cam.health().state == "down"
    with pytest.raises(CameraError, match="did not start"):
        cam.capture()
    monkeypatch.setitem(sys.modules, "picamera2", None)
    cam = Picamera2Camera()
    assert "python3-picamera2" in cam.health().detail


@pytest.mark.parametrize("kw,match", [({"exposure_us": 0}, "exposure_us"),
                                      ({"exposure_us": 100, "analogue_gain": 0.5}, "analogue_gain"),
                                      ({"colour_gains": (0, 1)}, "colour_gains")])
def test_bad_controls(kw: dict, match: str) -> None:
    args = {"exposure_us": None, "analogue_gain": None, "colour_gains": None} | kw
    with pytest.raises(ValueError, match=match):
        picamera2_controls(**args)


class FakeCapture:
    def __init__(self, frames: list[np.ndarray | None], opened: bool = True) -> None:
        self.frames = frames
        self.opened = opened
        self.props: dict[int, float] = {}

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self.frames:
            return False, None
        f = self.frames.pop(0)
        return f is not None, f

    def release(self) -> None:
        self.opened = False


def test_opencv_camera_sets_controls_and_recovers_after_unplug() -> None:
    img = np.full((48, 64, 3), 7, np.uint8)
    caps = [FakeCapture([img, img, None]), FakeCapture([img, img])]
    cam = OpenCVCamera(0, (64, 48), exposure=-6, wb_temperature=4500, warmup_frames=1, retry_ms=0,
                       capture_factory=lambda dev: caps.pop(0))
    first = cam._cap
    assert first.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 1 and first.props[cv2.CAP_PROP_WB_TEMPERATURE] == 4500
    assert cam.capture()[1].shape == (48, 64, 3)
    with pytest.raises(CameraError, match="unplugged"):
        cam.capture()
    assert cam.health().state == "down"
    assert cam.capture()[1][0, 0, 0] == 7
    assert cam.health().state == "ok"


def test_opencv_camera_that_never_opens() -> None:
    cam = OpenCVCamera(3, capture_factory=lambda dev: FakeCapture([], opened=False), retry_ms=60_000)
    assert cam.health().state == "down"
    with pytest.raises(CameraError, match="could not be opened"):
        cam.capture()


def test_replay_folder_loops_and_names_bad_files(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), np.full((10, 12, 3), i * 50, np.uint8))
    (tmp_path / "03.png").write_bytes(b"not a png")
    (tmp_path / "notes.txt").write_text("ignored")
    cam = ReplayCamera(tmp_path)
    assert len(cam) == 4
    values = [int(cam.capture()[1][0, 0, 0]) for _ in range(3)]
    assert values == [0, 50, 100]
    with pytest.raises(CameraError, match="03.png"):
        cam.capture()
    assert int(cam.capture()[1][0, 0, 0]) == 0  # looped
    once = ReplayCamera(tmp_path, loop=False)
    for _ in range(3):
        once.capture()
    with pytest.raises(CameraError):
        once.capture()
    with pytest.raises(CameraError, match="end of replay"):
        once.capture()


def test_replay_health_says_a_folder_of_garbage_is_down_and_a_bad_file_degraded(tmp_path: Path) -> None:
    """A replay folder whose every image is unreadable was "ok" in health after hundreds of failed captures, so
    the screen never said the camera was not working; one bad image among good ones is "degraded" until the
    next image reads."""
    for i in range(3):
        (tmp_path / f"{i:02d}.jpg").write_bytes(b"\xff\xd8 truncated")
    cam = ReplayCamera(tmp_path)
    for _ in range(2):
        with pytest.raises(CameraError):
            cam.capture()
        assert cam.health().state == "degraded"
    with pytest.raises(CameraError):
        cam.capture()
    health = cam.health()
    assert health.state == "down" and "no image in" in health.detail and str(tmp_path) in health.detail
    cv2.imwrite(str(tmp_path / "01.jpg"), np.full((10, 12, 3), 90, np.uint8))   # a good image appears
    with pytest.raises(CameraError):
        cam.capture()                       # 00.jpg again (looped): still garbage
    frame = cam.capture()[1]                # 01.jpg now reads
    assert frame.shape == (10, 12, 3) and cam.health().state == "ok"


def test_replay_video(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (32, 24))
    if not w.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG/AVI")
    for i in range(4):
        w.write(np.full((24, 32, 3), 40 * i, np.uint8))
    w.release()
    cam = ReplayCamera(path)
    shades = [int(cam.capture()[1][12, 16, 1]) for _ in range(6)]
    assert shades[:4] == sorted(shades[:4]) and abs(shades[4] - shades[0]) < 8  # looped to the start


def test_replay_missing_or_empty(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="does not exist"):
        ReplayCamera(tmp_path / "nope")
    with pytest.raises(CameraError, match="no images"):
        ReplayCamera(tmp_path)


def test_synthetic_adapter_passes_board_seed_and_level() -> None:
    calls = []

    class Frame:
        def __init__(self, image: np.ndarray) -> None:
            self.image = image

    def render(board, seed, scene_seed, level):
        calls.append((board, seed, scene_seed, level))
        return Frame(np.zeros((5, 6, 3), np.uint8))

    boards = iter(["b1", "b2"])
    cam = SyntheticCamera(lambda: next(boards), seed=10, level="hard", render=render)
    cam.capture()
    cam.capture()
    assert calls == [("b1", 10, 10, "hard"), ("b2", 11, 10, "hard")]


def test_synthetic_render_error_is_a_camera_error() -> None:
    def broken(board, seed, scene_seed):
        raise ZeroDivisionError("oops")

    cam = SyntheticCamera(lambda: None, render=broken)
    with pytest.raises(CameraError, match="oops"):
        cam.capture()
    assert cam.health().state == "down"


def test_synthetic_with_the_real_renderer() -> None:
    from kiosk.rules.board import Board

    cam = SyntheticCamera(Board, seed=1, level="easy", size=(640, 480))
    t, frame = cam.capture()
    assert frame.shape == (480, 640, 3) and frame.std() > 5


def test_check_frame_and_unavailable() -> None:
    assert check_frame(np.zeros((4, 4), np.uint8), "x").shape == (4, 4, 3)
    assert check_frame(np.zeros((4, 4, 4), np.uint8), "x").shape == (4, 4, 3)
    with pytest.raises(CameraError, match="uint8"):
        check_frame(np.zeros((4, 4, 3), np.float32), "x")
    with pytest.raises(CameraError, match="no image"):
        check_frame(None, "x")
    cam = UnavailableCamera("no camera configured", "none", "absent")
    assert cam.health().state == "absent"
    with pytest.raises(CameraError, match="no camera"):
        cam.capture()
