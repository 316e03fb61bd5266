"""Every file the kiosk, the calibration tools and the firmware bridge write goes through one atomic writer
(:func:`kiosk.files.replacing`): pictures (``kiosk.vision.images.write_image``: the device check's camera frame,
calibration contact sheets and reports, bench-vision's pictures), the calibration profile, the broker's password
file (owner-only from its first byte), bench-vision's logs and the trainers' caches and models. A source scan keeps
it so: a new direct write (``write_text``, ``write_bytes``, ``cv2.imwrite``, ``np.savez``, ``open(..., "w")``)
outside that writer fails here, naming the file and line."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from source_scan import call_name, calls, open_mode, strays

from kiosk.files import InputError, write_atomic
from kiosk.vision.images import write_image

WRITERS = {"write_text", "write_bytes", "imwrite", "savez", "savez_compressed"}
GUARDS = {"replacing", "atomic_output"}
ALLOWED = {
    ("kiosk/files/__init__.py", "write_atomic"): "the one writer itself, into the temporary file of replacing()",
    ("kiosk/stream/broker.py", "__init__"): "the test broker's config, in the fresh private folder it made",
    ("kiosk/vision/bag_templates.py", "to_text"): "into a BytesIO: the profile's base64 text",
    ("kiosk/vision/mlp.py", "to_bytes"): "into a BytesIO: the model's bytes",
    ("kiosk/lexicons/__init__.py", "compile_word_list"): "into the temporary file _atomic_write (replacing) gives",
    ("kiosk/lexicons/__init__.py", "cached_default_lexicon"): "the same",
    ("kiosk/store/readable.py", "pad_copy"): "pads, in place, the copy of a damaged journal made for reading it",
    ("kiosk/store/header.py", "repair_header"): "rebuilds, in place, the header of the copy of a damaged journal",
    ("kiosk/vision/cvcompat.py", "read_onnx"): "a network's bytes into mkstemp's private temporary file, for OpenCV 5 "
                                               "to load by path and deleted at once",
}


def _writes(call: ast.Call) -> bool:
    name = call_name(call)
    if name in WRITERS:
        return True
    f = call.func
    if name == "export" and isinstance(f, ast.Attribute) and getattr(f.value, "attr", "") == "onnx":
        return True     # torch.onnx.export(net, ..., path)
    return name in ("open", "fdopen") and bool(set(open_mode(call) or "") & set("wax+"))


def direct_writes(path: Path) -> list[tuple[int, str, str]]:
    """(line, enclosing function, call) of each write in ``path`` that is not inside a ``with replacing(...)``
    or ``with atomic_output(...)`` block."""
    return calls(path, _writes, GUARDS)


def test_the_scan_finds_a_direct_write_and_passes_one_through_replacing(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import cv2\nfrom kiosk.files import replacing\n"
                   "def bad(p, img):\n    cv2.imwrite(str(p), img)\n    open(p, 'a').write('x')\n"
                   "def good(p):\n    with replacing(p) as tmp:\n        open(tmp, 'wb').write(b'x')\n"
                   "def reads(p):\n    return open(p, 'rb').read()\n")
    assert direct_writes(src) == [(4, "bad", "imwrite"), (5, "bad", "open")]


def test_no_file_is_written_outside_the_one_atomic_writer():
    stray = strays(_writes, ALLOWED, GUARDS)
    assert not stray, "write these through kiosk.files (replacing / write_atomic / atomic_output):\n" + \
        "\n".join(stray)


def test_write_image_refuses_a_fifo_and_an_unknown_format_and_leaves_nothing(tmp_path):
    img = np.full((8, 8, 3), 200, np.uint8)
    fifo = tmp_path / "frame.png"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"frame\.png: is a FIFO \(named pipe\), not a file the kiosk may replace; "
                                         r"give a file name for the camera frame"):
        write_image(fifo, img, "camera frame")
    with pytest.raises(InputError, match=r"x\.tga: cannot write a picture as \.tga: give a \.png or \.jpg name"):
        write_image(tmp_path / "x.tga", img)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["frame.png"]
    out = write_image(tmp_path / "ok.JPG", img)
    assert out.read_bytes()[:2] == b"\xff\xd8" and stat.S_IMODE(out.stat().st_mode) == 0o644


def test_a_secret_is_owner_only(tmp_path):
    write_atomic(tmp_path / "passwords", "desk:secret\n", mode=0o600)
    assert stat.S_IMODE((tmp_path / "passwords").stat().st_mode) == 0o600


def test_the_device_check_refuses_a_frame_path_it_cannot_write_before_the_watch(tmp_path, capsys):
    from kiosk.devices.check import main

    fifo = tmp_path / "frame.png"
    os.mkfifo(fifo)
    assert main(["--seconds", "30", "--frame", str(fifo)]) == 2      # at once, not after 30 s
    assert capsys.readouterr().err == (f"--frame: {fifo}: is a FIFO (named pipe), not a file the kiosk may "
                                       "replace; give a file name for the camera frame\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_profile_saved_over_a_fifo_is_refused_and_the_fifo_left(tmp_path):
    from kiosk.vision.profile import CalibrationProfile

    fifo = tmp_path / "profile.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="is a FIFO"):
        CalibrationProfile().save(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and [p.name for p in tmp_path.iterdir()] == ["profile.json"]
