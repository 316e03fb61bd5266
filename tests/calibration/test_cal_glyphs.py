"""Tile glyph capture on synthetic photos of a laid-out bag: every tile cut out and labelled from the layout."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import CalibrationError
from calibration.glyphs import capture_glyphs, contact_sheet, crop_tiles, default_layout, load_layout
from calibration.pose import pose_from_markers
from kiosk.rules.board import Board


def laid_out_board(rows: list[str]) -> Board:
    # the renderer draws a lower-case letter as a blank tile (no glyph)
    return Board.from_rows(["".join("a" if ch == "?" else ch for ch in row) for row in rows])


def test_default_layout_is_the_whole_bag() -> None:
    rows = default_layout()
    flat = "".join(rows)
    assert len(rows) == 15 and all(len(r) == 15 for r in rows)
    assert flat.count("E") == 12 and flat.count("?") == 2 and len(flat.replace(".", "")) == 100
    assert rows[0].startswith("AAAAAAAAAB")


def test_layout_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "layout.txt"
    bad.write_text("\n".join(["." * 15] * 14))
    with pytest.raises(CalibrationError, match="15 rows"):
        load_layout(bad)
    bad.write_text("\n".join(["." * 15] * 14 + ["..x" + "." * 12]))
    with pytest.raises(CalibrationError, match="row 15 column 3"):
        load_layout(bad)
    bad.write_text("\n".join(["." * 15] * 15))
    with pytest.raises(CalibrationError, match="no tiles"):
        load_layout(bad)
    with pytest.raises(CalibrationError, match="missing.txt: no such layout file"):
        load_layout(tmp_path / "missing.txt")


def test_capture_cuts_and_labels_every_tile(tmp_path: Path) -> None:
    from kiosk.vision.synth import render_board

    rows = default_layout()
    photos = [render_board(laid_out_board(rows), seed=s, scene_seed=5, level="easy", size=(1280, 960)).image
              for s in (1, 2)]
    empty = render_board(Board(), seed=1, scene_seed=5, level="easy", size=(1280, 960)).image
    seen: list[list[tuple[np.ndarray, str]]] = []

    def trainer(samples):
        seen.append(samples)
        return "model", 0.97

    result = capture_glyphs(photos + [np.zeros((100, 100, 3), np.uint8)], rows, sheet_png=tmp_path / "sheet.png",
                            train=trainer)
    assert result.frames == 2 and list(result.skipped) == [2]
    assert len(result.samples) == 200 and result.cv_accuracy == 0.97 and result.model == "model"
    labels = [lab for _, lab in result.samples[:100]]
    assert labels == [ch for ch in "".join(rows) if ch != "."]
    # the crops really are tiles: each differs from the same square on the empty board
    empty_crops = crop_tiles(empty, pose_from_markers(empty).homography, rows)
    diffs = [np.abs(a.astype(int) - b.astype(int)).mean() for (a, _), (b, _) in zip(result.samples, empty_crops)]
    assert min(diffs) > 8
    sheet = cv2.imread(str(tmp_path / "sheet.png"))
    assert sheet is not None and sheet.shape[0] > 200
    assert "cross-validated accuracy 97.0 %" in result.summary()


def test_no_board_in_any_photo() -> None:
    with pytest.raises(CalibrationError, match="no photo showed"):
        capture_glyphs([np.zeros((200, 200, 3), np.uint8)], default_layout(), train=lambda s: (None, 0.0))
    with pytest.raises(CalibrationError, match="no tile samples"):
        contact_sheet([])


def _without_ink(rows: list[str], squares: set[int]) -> Board:
    """The laid-out bag with the tiles on ``squares`` drawn without their letter (as glare or faint lettering
    leaves them to the glyph model)."""
    flat = ["a" if ch == "?" or i in squares else ch for i, ch in enumerate("".join(rows))]
    return Board.from_rows(["".join(flat[r * 15:(r + 1) * 15]) for r in range(15)])


def test_a_tile_without_ink_is_left_out_and_named_not_the_end_of_the_calibration(tmp_path: Path) -> None:
    """One tile under glare in every photo (the camera and the board stay still), another in one photo only: both
    left out where they show no ink, named, and marked on the contact sheet; the calibration goes on."""
    from kiosk.vision.synth import render_board

    rows = default_layout()
    photos = [render_board(_without_ink(rows, {0, 20} if s == 1 else {0}), seed=s, scene_seed=5, level="easy",
                           size=(1280, 960)).image for s in (1, 2, 3)]
    got: list[list[tuple[np.ndarray, str]]] = []

    def trainer(samples: list[tuple[np.ndarray, str]]) -> tuple[str, float]:
        got.append(samples)
        return "model", 0.9

    result = capture_glyphs(photos, rows, train=trainer, sheet_png=tmp_path / "sheet.png")
    assert result.no_ink == ["photo 1: A1 (A)", "photo 1: F2 (E)", "photo 2: A1 (A)", "photo 3: A1 (A)"]
    assert len(result.samples) == 296 and len(got[0]) == 296
    assert "4 tiles left out, no ink found on them (photo 1: A1 (A), photo 1: F2 (E), photo 2: A1 (A), " \
           "photo 3: A1 (A))" in result.summary()
    sheet = cv2.imread(str(tmp_path / "sheet.png"))
    assert sheet is not None and sheet.shape[1] == 20 * (result.samples[0][0].shape[1] + 4)
    red = (sheet[..., 2] > 200) & (sheet[..., 1] < 60) & (sheet[..., 0] < 60)
    assert red.any()       # the tiles left out are framed in red on the sheet (the first photo: A1 and F2)


def test_a_letter_never_seen_with_ink_ends_the_calibration_naming_it() -> None:
    from kiosk.vision.synth import render_board

    rows = default_layout()
    the_k = {i for i, ch in enumerate("".join(rows)) if ch == "K"}     # the bag's one K
    photo = render_board(_without_ink(rows, the_k), seed=1, scene_seed=5, level="easy", size=(1280, 960)).image
    with pytest.raises(CalibrationError, match=r"no tile of K showed its letter in any photo \(no ink found on it: "
                                               r"photo 1: [A-O]\d+ \(K\)"):
        capture_glyphs([photo], rows, train=lambda samples: (None, 0.0))


def test_lettering_the_camera_cannot_see_on_many_tiles_ends_the_calibration() -> None:
    from kiosk.vision.synth import render_board

    rows = default_layout()
    faint = set(range(0, 30, 3))     # 10 of the bag's 98 lettered tiles: more than MAX_NO_INK_SHARE
    photos = [render_board(_without_ink(rows, faint), seed=s, scene_seed=5, level="easy", size=(1280, 960)).image
              for s in (1, 2)]
    with pytest.raises(CalibrationError, match=r"no ink found in any photo on 10 of the 98 lettered tiles \(A1, "
                                               r"D1, G1, J1, M1 \.\.\.\): the camera does not see this tile set's "
                                               r"lettering in this light"):
        capture_glyphs(photos, rows, train=lambda samples: (None, 0.0))


def _letter_image(letter: str) -> np.ndarray:
    """A letter image as ScrabScrap's: the letter light on dark, tightly cropped (about 30x34 px)."""
    img = np.zeros((34, 30), np.uint8)
    cv2.putText(img, letter, (3, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 230, 3, cv2.LINE_AA)
    return img


@pytest.mark.parametrize(("name", "image", "said"), [
    ("B.png", np.zeros((1, 1), np.uint8), "B.png: not a letter image: 1x1 px is too small to hold a tile's letter (a "
                                          "letter image is at least 16x16 px; the letters of a camera's tiles are "
                                          "about 26-36 px)"),
    ("B.png", np.zeros((34, 12), np.uint8), "B.png: not a letter image: 12x34 px is too small to hold a tile's letter"),
    ("B.png", np.full((40, 40), 128, np.uint8), "B.png: not a letter image: one flat colour all over (grey level "
                                                "128): no letter in it"),
    ("B.png", np.full((40, 40), 128, np.uint8) + np.eye(40, dtype=np.uint8),
     "B.png: not a letter image: no letter found on it"),
    ("AB.png", _letter_image("A"), "AB.png: a letter image is named after its letter (A.png, Ä.png ...), not 'AB.png'"),
])
def test_letter_images_that_cannot_hold_a_letter_are_refused_naming_the_file(tmp_path: Path, capsys, name, image,
                                                                             said) -> None:
    """The letter images a profile is trained from (``python -m kiosk.vision.train profile --templates DIR``, and
    the recording demo's ``letter-templates/default``): a 1x1 black B.png was left out without a word and the
    profile trained on the rest. Each such image is now refused, naming the file (exit 2)."""
    from kiosk.vision.train import main, template_samples

    cv2.imwrite(str(tmp_path / "A.png"), _letter_image("A"))
    assert [label for _, label in template_samples(tmp_path)] == ["A"]
    cv2.imwrite(str(tmp_path / name), image)
    with pytest.raises(ValueError) as e:
        template_samples(tmp_path)
    assert str(e.value).startswith(f"{tmp_path / said.split(':')[0]}:") and said.split(": ", 1)[1] in str(e.value)
    assert main(["profile", str(tmp_path / "out.json"), "--templates", str(tmp_path)]) == 2
    assert f"error: {tmp_path / name}: " in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(("image", "said"), [
    (np.zeros((1, 1, 3), np.uint8), "not a photo of the laid-out tiles: 1x1 px is too small to hold the board's "
                                    "tiles (a photo of the laid-out tiles is at least 240x240 px: 15 squares of 16 px "
                                    "or more)"),
    (np.full((480, 640, 3), 90, np.uint8), "not a photo of the laid-out tiles: one flat colour all over: no board in "
                                           "it"),
])
def test_calibrate_glyphs_refuses_a_photo_that_cannot_hold_the_tiles_naming_it(tmp_path: Path, capsys, image,
                                                                               said) -> None:
    """A 1x1 black image given to ``kiosk calibrate glyphs`` was 'photo 1: skipped: fewer than 3 of the 4 markers
    are visible' (exit 1): it is refused as bad input naming the file (exit 2)."""
    from kiosk.cli import main

    cv2.imwrite(str(tmp_path / "tiles.png"), image)
    assert main(["calibrate", "glyphs", "--images", str(tmp_path / "tiles.png")]) == 2
    assert capsys.readouterr().err == f"kiosk calibrate glyphs: {tmp_path / 'tiles.png'}: {said}\n"
