"""The synthetic camera: determinism, ground truth consistency, geometry, clear errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.rules.board import LAYOUT, SIZE, TLS, TWS, Board
from kiosk.rules.tiles import GERMAN
from kiosk.vision.geometry import DEFAULT_GEOMETRY, WARP_SIZE_PX, cell_rect, warp_grid_corners
from kiosk.vision.synth import LEVELS, RenderError, render_board
from kiosk.vision.synth.boards import random_board
from kiosk.vision.synth.render import make_scene

SMALL = (1014, 760)


def _warp(frame) -> np.ndarray:
    H = cv2.getPerspectiveTransform(frame.grid_corners_px, warp_grid_corners())
    return cv2.warpPerspective(frame.image, H, (WARP_SIZE_PX, WARP_SIZE_PX), flags=cv2.INTER_AREA)


def _cell_mean(warp: np.ndarray, sq: int, inset: int = 12) -> np.ndarray:
    x0, y0, x1, y1 = cell_rect(sq // SIZE, sq % SIZE)
    return warp[y0 + inset:y1 - inset, x0 + inset:x1 - inset].reshape(-1, 3).mean(0)


def test_synth_same_seed_same_frame_other_seed_other_frame():
    board = random_board(1, 40)
    a = render_board(board, seed=5, level="typical", size=SMALL)
    b = render_board(board, seed=5, level="typical", size=SMALL)
    c = render_board(board, seed=6, level="typical", size=SMALL)
    assert np.array_equal(a.image, b.image)
    assert {k: v for k, v in a.meta.items() if k != "timings_ms"} == {k: v for k, v in b.meta.items() if k != "timings_ms"}
    assert np.array_equal(a.grid_corners_px, b.grid_corners_px)
    assert not np.array_equal(a.image, c.image)
    assert np.abs(a.grid_corners_px - c.grid_corners_px).max() > 1.0  # another scene: another camera pose


def test_synth_fixed_scene_keeps_camera_and_tiles_frame_seed_varies_the_rest():
    board = random_board(2, 50)
    a = render_board(board, seed=1, scene_seed=42, level="typical", size=SMALL)
    b = render_board(board, seed=2, scene_seed=42, level="typical", size=SMALL)
    assert np.array_equal(a.grid_corners_px, b.grid_corners_px)
    for key in ("board_style", "tile_style", "font", "turned_tiles"):
        assert a.meta[key] == b.meta[key]
    assert not np.array_equal(a.image, b.image)
    # same pose and tiles: the frames differ by light and noise only, not by geometry
    diff = cv2.absdiff(cv2.GaussianBlur(a.image, (0, 0), 3), cv2.GaussianBlur(b.image, (0, 0), 3))
    assert np.median(diff) < 40


def test_synth_truth_matches_board_blanks_are_question_marks():
    rows = ["." * 15] * 15
    rows[7] = "...CAt?ED......"
    board = Board.from_rows(rows)
    frame = render_board(board, seed=3, level="easy", size=SMALL)
    assert frame.truth[7] == "...CA??ED......"
    assert all(r == "." * 15 for i, r in enumerate(frame.truth) if i != 7)
    assert "#" not in "".join(frame.truth)
    assert frame.image.shape == (SMALL[1], SMALL[0], 3) and frame.image.dtype == np.uint8
    assert frame.occluded == set()


def test_synth_full_size_default():
    frame = render_board(random_board(4, 80), seed=9)
    assert frame.image.shape == (1520, 2028, 3)
    assert frame.meta["level"] == "typical"
    assert frame.grid_corners_px.shape == (4, 2)


@pytest.mark.parametrize("level", ["easy", "typical", "hard"])
def test_synth_markers_detected_where_the_camera_model_puts_them(level):
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    board = random_board(5, 70)
    params = LEVELS[level].with_(hand_prob=0.0, glare_prob=0.0)
    if level == "hard":  # the hard camera geometry (tilt, any rotation, strong distortion) with a clean sensor
        params = params.with_(defocus_sigma_px=(0.5, 0.5), motion_blur_prob=0.0, noise_sigma=(1.0, 1.0),
                              jpeg_prob=0.0, sharpen=(0.0, 0.0), shadow_prob=0.0)
    for seed in range(3):
        frame = render_board(board, seed=seed, level=params)
        corners, ids, _ = det.detectMarkers(frame.image)
        assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3], (level, seed)
        scene = make_scene(seed, LEVELS[level], (2028, 1520), DEFAULT_GEOMETRY)
        for c, i in zip(corners, ids.ravel()):
            expected = scene.camera.project(DEFAULT_GEOMETRY.marker_corners_mm(int(i)))
            err = np.abs(c.reshape(4, 2) - expected).max()
            assert err < 1.0, (level, seed, int(i), err)


@pytest.mark.parametrize("level,seed", [("easy", 0), ("easy", 1), ("typical", 2), ("typical", 3)])
def test_synth_grid_corners_put_the_premium_squares_where_the_layout_says(level, seed):
    frame = render_board(Board(), seed=seed, level=LEVELS[level].with_(board_styles=("classic",)))
    warp = _warp(frame)
    for sq in range(SIZE * SIZE):
        b, g, r = _cell_mean(warp, sq)
        if LAYOUT[sq] == TWS:
            assert r > g + 50 and r > b + 50, (sq, (b, g, r))
        elif LAYOUT[sq] == TLS:
            assert b > r + 50, (sq, (b, g, r))
        elif LAYOUT[sq] == "." and sq != SIZE * SIZE // 2:
            assert abs(r - b) < 70 and r >= b, (sq, (b, g, r))  # tan/beige


def test_synth_tiles_appear_exactly_on_their_squares():
    board = random_board(7, 60)
    kwargs = dict(seed=4, scene_seed=4, level=LEVELS["easy"].with_(noise_sigma=(0.0, 0.0)))
    with_tiles = _warp(render_board(board, **kwargs))
    empty = _warp(render_board(Board(), **kwargs))
    for sq in range(SIZE * SIZE):
        d = np.abs(_cell_mean(with_tiles, sq, inset=8) - _cell_mean(empty, sq, inset=8)).max()
        x0, y0, x1, y1 = cell_rect(sq // SIZE, sq % SIZE)
        var = with_tiles[y0 + 8:y1 - 8, x0 + 8:x1 - 8].std()
        if board[sq]:
            assert d > 8 or var > 20, sq
        else:
            assert d < 6, sq


def test_synth_blank_tiles_have_no_glyph():
    rows = ["." * 15] * 15
    rows[7] = "......AeA......"
    frame = render_board(Board.from_rows(rows), seed=2, level=LEVELS["easy"].with_(tile_styles=("plastic",)))
    warp = cv2.cvtColor(_warp(frame), cv2.COLOR_BGR2GRAY)

    def dark_share(sq: int) -> float:
        x0, y0, x1, y1 = cell_rect(sq // SIZE, sq % SIZE)
        cell = warp[y0 + 6:y1 - 6, x0 + 6:x1 - 6]
        return float((cell < 100).mean())

    assert dark_share(7 * 15 + 7) < 0.01          # blank: nothing printed
    assert dark_share(7 * 15 + 6) > 0.08          # an A: ink
    assert dark_share(7 * 15 + 8) > 0.08


def test_synth_hand_marks_the_squares_it_covers():
    board = random_board(8, 60)
    level = LEVELS["typical"].with_(hand_prob=1.0)
    found = 0
    for seed in range(3):
        frame = render_board(board, seed=seed, level=level, size=SMALL)
        assert frame.meta["hand"] is True
        found += bool(frame.occluded)
        plain = render_board(board, seed=seed, level=level.with_(hand_prob=0.0), size=SMALL)
        # covered squares look different from the same frame without the hand; far squares look the same
        warp_h, warp_p = _warp(frame), _warp(plain)
        for sq in frame.occluded:
            x0, y0, x1, y1 = cell_rect(sq // SIZE, sq % SIZE)
            assert np.abs(warp_h[y0:y1, x0:x1].astype(int) - warp_p[y0:y1, x0:x1]).max() > 25
    assert found >= 2


def test_synth_german_tiles_and_umlauts_render():
    rows = ["." * 15] * 15
    rows[7] = ".....ÄÖÜS......"
    frame = render_board(Board.from_rows(rows), seed=1, level="easy", tile_set=GERMAN, size=SMALL)
    assert frame.truth[7] == ".....ÄÖÜS......"


def test_synth_bad_input_gives_clear_errors():
    with pytest.raises(RenderError, match="H8.*'1'"):
        render_board(Board.from_rows(["." * 15] * 7 + [".......1......."] + ["." * 15] * 7), seed=0)
    with pytest.raises(RenderError, match="Ä"):
        render_board(Board.from_rows(["." * 15] * 7 + [".......Ä......."] + ["." * 15] * 7), seed=0)
    with pytest.raises(RenderError, match="Board"):
        render_board(["." * 15] * 15, seed=0)  # type: ignore[arg-type]
    with pytest.raises(RenderError, match="size"):
        render_board(Board(), seed=0, size=(10, 10))
    with pytest.raises(RenderError, match="seed must be an integer"):
        render_board(Board(), seed="7")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown realism level 'medium'"):
        render_board(Board(), seed=0, level="medium")


def test_synth_same_frame_in_another_process():
    import hashlib
    import subprocess
    import sys

    code = ("import hashlib\nfrom kiosk.vision.synth import render_board\nfrom kiosk.vision.synth.boards import random_board\n"
            "print(hashlib.sha1(render_board(random_board(11, 70), seed=3, level='hard', size=(1014, 760))"
            ".image.tobytes()).hexdigest())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    here = hashlib.sha1(render_board(random_board(11, 70), seed=3, level="hard", size=(1014, 760)).image.tobytes())
    assert out.stdout.strip() == here.hexdigest()


def test_random_board_letter_share_makes_rare_letters_common_and_nothing_else():
    plain = random_board(21, 90, GERMAN, blank_share=0.1)
    boosted = random_board(21, 90, GERMAN, blank_share=0.1, letter_share={"Ä": 0.05, "Ö": 0.05, "Ü": 0.05})
    assert boosted.cells == random_board(21, 90, GERMAN, blank_share=0.1,
                                         letter_share={"Ä": 0.05, "Ö": 0.05, "Ü": 0.05}).cells   # deterministic
    changed = [(a, b) for a, b in zip(plain.cells, boosted.cells) if a != b]
    assert changed and all(b in "ÄÖÜ" for _, b in changed)
    assert all(a and not a.islower() for a, _ in changed)        # only lettered tiles: no empty, no blank
    umlauts = sum(c in ("Ä", "Ö", "Ü") for c in boosted.cells)
    lettered = sum(bool(c) and not c.islower() for c in boosted.cells)
    assert 0.08 <= umlauts / lettered <= 0.3                     # about 3 x 5% (plus the bag's own)
    with pytest.raises(ValueError, match="'Ä' is not a letter of the english set"):
        random_board(21, 90, letter_share={"Ä": 0.05})


def test_training_cli_letter_specs_parse_and_name_what_is_wrong(tmp_path):
    from kiosk.vision.train import _letter_repeats, _letter_shares, main
    assert _letter_shares(["ÄÖÜ=0.05"]) == (("Ä", 0.05), ("Ö", 0.05), ("Ü", 0.05))
    assert _letter_shares(["A\u0308=0.1"]) == (("Ä", 0.1),)           # a decomposed Ä is an Ä
    assert _letter_shares(["Ä=0.6", "Ä=0.3"]) == (("Ä", 0.3),)           # the last share counts, once
    assert _letter_repeats(["äö=3", "X=2"]) == {"Ä": 3, "Ö": 3, "X": 2}
    for bad, message in (("ÄÖÜ", "expected LETTERS=SHARE"), ("=0.1", "expected"), ("Ä=0", "expected"),
                         ("Ä=x", "expected"), ("Ä=1.5", "expected"), ("1=0.1", "'1' is not a letter of the German"),
                         ("ß=0.1", "'ß' is not a letter"), ("Ä Ö=0.1", "' ' is not a letter")):
        with pytest.raises(ValueError, match=f"--letter-share.*{message}"):
            _letter_shares([bad])
    with pytest.raises(ValueError, match="add up to 1.2, more than 1"):
        _letter_shares(["ÄÖÜ=0.4"])
    for bad, message in (("Ä=0", "1 <= N <= 100"), ("Ä", "LETTERS=N"), ("Ä=-1", "N"), ("Ä=²", "N"),
                         ("Ä=1000", "N <= 100"), ("?=2", "--blank-repeat"), ("Ñ=3", "'Ñ' is not a letter")):
        with pytest.raises(ValueError, match=f"--repeat.*{message}"):
            _letter_repeats([bad])
    # checked before any frame is rendered: each of these returns at once with exit 2
    for argv in (["--german", "1", "--letter-share", "Ä=2"], ["--german", "0", "--letter-share", "Ä=0.1"],
                 ["--german", "1", "--workers", "0"]):
        assert main(["squares", str(tmp_path / "x.npz"), "--english", "0", *argv]) == 2
    assert main(["squares", str(tmp_path / "missing" / "x.npz"), "--english", "0", "--german", "1"]) == 2
    assert main(["squares", str(tmp_path / "x"), "--english", "0", "--german", "1"]) == 2
    assert not list(tmp_path.iterdir())


def test_random_board_letter_share_refuses_bad_shares():
    for bad, message in (({"Ä": -0.5}, "0 < share <= 1"), ({"Ä": float("nan")}, "0 < share"), ({"Ä": 5}, "share"),
                         ({"Ä": True}, "share"), ({"Ä": "0.1"}, "share"), ({"Ä": 0.6, "Ö": 0.6}, "add up to 1.2"),
                         (["Ä"], "expected a mapping")):
        with pytest.raises(ValueError, match=message):
            random_board(3, 40, GERMAN, letter_share=bad)


def test_square_caches_that_are_not_caches_are_named(tmp_path):
    from kiosk.vision.squarenet_train import load_caches
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    npy = tmp_path / "a.npy"
    np.save(npy, np.zeros(3))
    text = tmp_path / "t.npz"
    text.write_text("not a cache")
    cut = tmp_path / "cut.npz"
    np.savez(cut, crops=np.zeros((2, 4, 4), np.uint8))
    cut.write_bytes(cut.read_bytes()[:100])
    pickled = tmp_path / "p.npz"
    with open(pickled, "wb") as f:
        np.save(f, np.array([{"a": 1}], dtype=object))
    for path in (empty, npy, text, cut, pickled, tmp_path / "none.npz"):
        with pytest.raises(ValueError, match=f"{path.name}: not a square cache written by `train squares` \\(") as e:
            load_caches([path])
        # a sentence of the cache's, not numpy's advice to load pickled data "unsafely" nor an exception's name
        assert "unsafely" not in str(e.value) and "Error" not in str(e.value), str(e.value)


def test_square_cache_with_a_damaged_member_is_named(tmp_path):
    from kiosk.vision.squarenet_train import load_caches
    path = tmp_path / "bad.npz"
    np.savez(path, crops=np.arange(200000, dtype=np.uint8).reshape(-1, 8, 8) % 251, labels=np.array(["A"]),
             turned=np.zeros(1, np.int16), occluded=np.zeros(1, bool), tiles=np.array(["english"]))
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF          # inside the crops member: its CRC no longer matches
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="bad.npz: a damaged square cache"):
        load_caches([path])
