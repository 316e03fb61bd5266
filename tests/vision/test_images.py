"""Every way an image file fails to decode is one clear ImageError naming the file (kiosk.vision.images)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from image_files import png_claiming
from kiosk.vision.images import ImageError, read_image


def test_read_image_reads_colour_and_grey(tmp_path):
    path = tmp_path / "näme with space.png"
    cv2.imwrite(str(tmp_path / "x.png"), np.full((6, 8, 3), (10, 20, 30), np.uint8))
    (tmp_path / "x.png").rename(path)
    assert read_image(path).shape == (6, 8, 3) and read_image(path)[0, 0].tolist() == [10, 20, 30]
    assert read_image(path, cv2.IMREAD_GRAYSCALE).shape == (6, 8)


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot open"),
    (b"", "empty file"),
    (b"not an image at all", "unknown format or corrupt data"),
    (png_claiming(50000, 50000), "(its header claims more pixels than any camera frame"),   # raised cv2.error
])
def test_read_image_names_the_file_and_why(tmp_path, content, message):
    path = tmp_path / "frame.png"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ImageError, match="frame.png") as err:
        read_image(path)
    assert message in str(err.value)


def test_read_image_refuses_what_is_not_a_regular_file_without_blocking(tmp_path, capfd):
    """A FIFO named .jpg blocked read-board until killed; a broken GIF printed OpenCV's own log lines before
    the clear error (found by a helper)."""
    import os
    fifo = tmp_path / "camera.jpg"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        with pytest.raises(ImageError, match="not a regular file"):
            read_image(path)
    gif = tmp_path / "one.gif"
    gif.write_bytes(b"GIF89a\x01\x00\x01\x00\x80\x00\x00")
    with pytest.raises(ImageError, match="one.gif: not a readable image"):
        read_image(gif)
    assert "loadsave" not in capfd.readouterr().err


def test_every_image_reader_survives_a_decompression_bomb_header(tmp_path, capsys):
    """The replay camera, the recorded-game camera, the calibration tools and the profile trainer each read
    images; a header OpenCV refuses raised cv2.error through all of them."""
    from kiosk.app.recording import RecordingCamera
    from kiosk.cli import main
    from kiosk.devices.camera import CameraError
    from kiosk.devices.camera_replay import ReplayCamera
    from kiosk.vision.train import template_samples

    bomb = tmp_path / "A.png"
    bomb.write_bytes(png_claiming(50000, 50000))
    with pytest.raises(CameraError, match="A.png"):
        ReplayCamera(tmp_path).capture()
    with pytest.raises(CameraError, match="A.png"):
        RecordingCamera(lambda: 0).show(bomb)
    assert main(["calibrate", "pose", "--image", str(bomb)]) == 2
    err = capsys.readouterr().err
    assert "A.png: not a readable image (its header claims" in err and "Assertion failed" not in err
    with pytest.raises(ImageError, match="A.png"):
        template_samples(tmp_path)


def test_read_image_name_too_long_is_a_clear_error(tmp_path):
    """Found by a reviewer: the check for a FIFO stat()ed the path first, and a name component over 255 bytes
    escaped as a bare OSError (read-board printed a traceback)."""
    with pytest.raises(ImageError, match="cannot open"):
        read_image(tmp_path / ("a" * 300 + ".jpg"))


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def test_read_board_says_a_greyscale_photo_has_no_colour_where_the_board_search_needs_it(tmp_path, capsys):
    """Without markers or corners the reader finds the board by its squares' colours: a greyscale photo got
    'grid uncertain ... give the corners or calibrate the camera'. It is now said to have no colour; where colour
    is not needed (given corners, the markers) a greyscale photo is read as before."""
    from kiosk.cli import main
    from kiosk.rules.board import Board
    from kiosk.vision.synth import render_board
    from shared_data import HAVE_SHARED, SHARED

    marked = tmp_path / "marked.png"     # the printed markers: found on grey as on colour
    cv2.imwrite(str(marked), _grey(render_board(Board(), seed=3, level="easy", size=(1024, 768)).image))
    assert main(["read-board", str(marked)]) == 0
    assert "greyscale" not in capsys.readouterr().err
    if not HAVE_SHARED:
        pytest.skip("../shared is absent: the real photo without markers is skipped")
    grey = tmp_path / "image-20.jpg"
    cv2.imwrite(str(grey), _grey(read_image(SHARED / "photos" / "scrabscrap" / "game01" / "image-20.jpg")))
    assert main(["read-board", str(grey), "--tiles", "german"]) == 1
    assert capsys.readouterr().err == (f"kiosk read-board: {grey}: no board read: the photo is greyscale (it has no "
                                       "colour): without markers the board is found by the colours of its squares; "
                                       "give a colour photo, or the grid's corners with --corners\n")
    assert main(["read-board", str(grey), "--tiles", "german", "--corners", "5,44 908,37 910,934 21,940"]) == 0
    assert "greyscale" not in capsys.readouterr().err
