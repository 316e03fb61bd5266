"""The device check's ``--frame``: a frame is said to be saved only when it was written. A folder at the path
claimed "saved" once (fixed in 205e83a: checked before the watch); a suffix of no image format was refused only
after the watch, on stdout, exit 0; a camera that gave no frame (none configured, a replay folder without images)
or a write that failed after the watch was a line on stdout and exit 0. The synthetic camera's health line read
"level None"."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kiosk.devices.camera_synthetic import SyntheticCamera
from kiosk.devices.check import main
from kiosk.files import InputError


def _config(tmp_path: Path, camera: str) -> Path:
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f"[devices]\ncamera = {camera}\n")
    return cfg


@pytest.mark.parametrize("name, message", [
    ("dir.png", "dir.png: is a folder; give a file name for the camera frame"),
    ("frame.tga", "frame.tga: cannot write a camera frame as .tga: give a .png or .jpg name"),
    ("frame", "frame: cannot write a camera frame as a file without a suffix: give a .png or .jpg name"),
    ("missing/frame.png", "frame.png: the folder"),
])
def test_a_frame_path_that_cannot_take_a_picture_is_refused_before_the_watch(tmp_path, capsys, name, message):
    (tmp_path / "dir.png").mkdir()
    start = time.monotonic()
    assert main(["--seconds", "30", "--frame", str(tmp_path / name)]) == 2
    assert time.monotonic() - start < 20          # at once, not after the 30 s watch
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("--frame: ") and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.png"] and not any((tmp_path / "dir.png").iterdir())


@pytest.mark.parametrize("camera, why", [
    ('{backend = "none"}', "no camera configured"),
    ('{backend = "replay", path = "EMPTY"}', "holds no images"),
])
def test_a_camera_that_gives_no_frame_is_said_on_stderr_and_fails(tmp_path, capsys, camera, why):
    empty = tmp_path / "empty"
    empty.mkdir()
    frame = tmp_path / "f.png"
    assert main([str(_config(tmp_path, camera.replace("EMPTY", str(empty)))), "--seconds", "0.1",
                 "--frame", str(frame)]) == 1
    out, err = capsys.readouterr()
    assert "saved" not in out and not frame.exists()
    assert f"--frame: no camera frame saved to {frame}: the camera gave none (" in err and why in err


def test_a_write_that_fails_after_the_watch_is_said_and_fails(tmp_path, capsys, monkeypatch):
    import kiosk.vision.images as images

    def refuse(path, image, what="picture"):
        raise InputError(f"{path}: cannot write: No space left on device")

    monkeypatch.setattr(images, "write_image", refuse)
    frame = tmp_path / "f.png"
    cfg = _config(tmp_path, '{backend = "synthetic", size = [320, 240]}')
    assert main([str(cfg), "--seconds", "0.1", "--frame", str(frame)]) == 1
    out, err = capsys.readouterr()
    assert "saved to" not in out
    assert err == f"--frame: no camera frame saved: {frame}: cannot write: No space left on device\n"


def test_the_synthetic_cameras_health_says_what_it_renders(tmp_path, capsys):
    cam = SyntheticCamera(lambda: None, render=lambda board, **kw: __import__("numpy").zeros((240, 320, 3), "uint8"))
    assert cam.health().detail == "renders the board, typical realism, 2028x1520 px"
    cam.capture()
    assert cam.health().detail == "renders the board, typical realism, 2028x1520 px; 1 frame rendered"
    assert SyntheticCamera(lambda: None, level="hard", size=(640, 480)).health().detail == \
        "renders the board, hard realism, 640x480 px"
    frame = tmp_path / "f.png"
    assert main([str(_config(tmp_path, '{backend = "synthetic", size = [320, 240]}')), "--seconds", "0.1",
                 "--frame", str(frame)]) == 0
    out = capsys.readouterr().out
    assert f"camera frame 320x240 px saved to {frame}" in out and frame.stat().st_size > 0
    line = next(ln for ln in out.splitlines() if ln.startswith("camera     synthetic"))
    assert "None" not in line and line.endswith("renders the board, typical realism, 320x240 px; 1 frame rendered")
