"""A layout or profile file that is not one is bad input (exit 2, named, nothing written), as the command-line
convention says; it was 'refused: ...' with exit 1, the code of a step that ran and refused its result."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cli import main


def _grey(tmp_path: Path) -> Path:
    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), np.full((240, 320, 3), 128, np.uint8))
    return path


def test_a_profile_that_is_no_profile_is_bad_input(tmp_path, capsys):
    bad = tmp_path / "p.json"
    bad.write_bytes(b"\x00\x01binary")
    assert main(["calibrate", "pose", "--image", str(_grey(tmp_path)), "--profile", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kiosk calibrate pose: {bad}: ") and "refused" not in err
    assert bad.read_bytes() == b"\x00\x01binary"


def test_a_layout_that_is_no_layout_is_bad_input(tmp_path, capsys):
    bad = tmp_path / "layout.txt"
    bad.write_text("#player1 a A\n>a: QUIRT 8D QUIRT +48 48\n", encoding="utf-8")
    assert main(["calibrate", "glyphs", "--images", str(_grey(tmp_path)), "--layout", str(bad),
                 "--profile", str(tmp_path / "new.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kiosk calibrate glyphs: {bad}: expected 15 rows") and "refused" not in err
    assert not (tmp_path / "new.json").exists()


@pytest.mark.parametrize("args, says", [
    (["intrinsics", "x.png", "--pattern", "0x0"], "a chessboard has at least 3x3 inner corners"),
    (["intrinsics", "x.png", "--square-mm", "-5"], "argument --square-mm: '-5': must be above 0"),
    (["intrinsics", "x.png", "--max-rms", "0"], "argument --max-rms: '0': must be above 0"),
    (["pose", "--image", "x.png", "--tap", "--screen", "-5", "0"], "argument --screen: -5 px: a screen side is"),
    (["pose", "--image", "x.png", "--tap", "--screen", "99999", "99999"], "99999 px: a screen side is 160 to 10000"),
    (["glyphs"], "give photos of the laid-out tiles (--images) or a camera (--camera)"),
])
def test_a_usage_error_exits_2_in_a_sentence(args, says, capsys):
    """A tester found these exiting 1, accepted without a word (--square-mm -5), or ending in a pygame or OpenCV
    traceback (--screen -5 0, 0 0, 99999 99999)."""
    try:
        rc = main(["calibrate", *args])
    except SystemExit as exc:       # argparse's own usage error
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == 2 and says in err and "Traceback" not in err, err


def test_a_profile_that_cannot_be_written_is_refused_before_the_work(tmp_path, capsys):
    """A tester's --profile /proc/x.json: the pose was measured first, then the error named the temporary file."""
    in_the_way = tmp_path / "file"
    in_the_way.write_text("x")
    for profile, says in (("/proc/x.json", "/proc: cannot write the calibration profile's folder there"),
                          (str(in_the_way / "p.json"), "is a file, not a folder (the calibration profile's folder)"),
                          (str(tmp_path), "is a folder; give a file name for the calibration profile")):
        assert main(["calibrate", "pose", "--image", str(tmp_path / "none.png"), "--corners", "5,44 908,37 910,934 21,940",
                     "--profile", profile]) == 2
        err = capsys.readouterr().err
        assert says in err and ".tmp" not in err and "none.png" not in err, err   # before the photo is even opened


INSTEAD = ('give the grid\'s corners instead with --corners "x,y x,y x,y x,y" (A1, O1, O15, A15 in image px), or let '
           "the printed markers find the board (no --tap)")


@pytest.mark.parametrize(("env", "said"), [
    ({"SDL_VIDEODRIVER": "dummy", "DISPLAY": ":0"}, "SDL_VIDEODRIVER=dummy shows nothing"),
    ({}, "there is none here (no DISPLAY or WAYLAND_DISPLAY, no framebuffer /dev/fb0 or /dev/dri)"),
])
def test_tap_without_a_screen_is_refused_at_once(tmp_path, capsys, monkeypatch, env, said):
    """`calibrate pose --tap` with no screen (no window system and no framebuffer, or SDL's dummy driver) waited for
    taps that could never come (300 s): refused at once, exit 2, saying how to give the corners instead."""
    import time

    from calibration import pose

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(pose, "FRAMEBUFFERS", (str(tmp_path / "fb0"),))
    t0 = time.monotonic()
    assert main(["calibrate", "pose", "--image", str(_grey(tmp_path)), "--tap"]) == 2
    assert time.monotonic() - t0 < 10
    assert capsys.readouterr().err == f"kiosk calibrate pose: --tap: tapping the corners needs a screen, and {said}: " \
                                      f"{INSTEAD}\n"


def test_a_screen_is_a_window_system_or_a_framebuffer(tmp_path, monkeypatch):
    from calibration import pose

    monkeypatch.setattr(pose, "FRAMEBUFFERS", (str(tmp_path / "fb0"),))
    assert pose.no_screen({"DISPLAY": ":0"}) is None and pose.no_screen({"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert pose.no_screen({}) is not None and pose.no_screen({"SDL_VIDEODRIVER": "offscreen", "DISPLAY": ":0"})
    (tmp_path / "fb0").touch()           # the Pi's touchscreen without a window system (SDL's kmsdrm / fbdev)
    assert pose.no_screen({}) is None and pose.no_screen({"SDL_VIDEODRIVER": "kmsdrm"}) is None
