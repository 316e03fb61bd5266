"""Calibration profile file: round trip, clear errors; glyph classifier building with cross-validation."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from kiosk.vision.glyph_model import GLYPH_PX, build_glyph_classifier
from kiosk.vision.mlp import ModelError
from kiosk.vision.profile import CalibrationProfile, ModelRef, ProfileError, load_profile


def test_reader_profile_round_trip(tmp_path):
    p = CalibrationProfile(tile_set="german", camera_matrix=np.array([[1000.0, 0, 1014], [0, 1000.0, 760], [0, 0, 1]]),
                           distortion=np.array([-0.1, 0.01, 0, 0, 0]),
                           image_size=(2028, 1520), board_mode="fixed",
                           grid_corners_px=np.array([[100, 90], [1900, 110], [1880, 1450], [120, 1430]], np.float32),
                           camera_settings={"exposure_us": 8000}, glyph_model=ModelRef(path="g.npz"))
    f = tmp_path / "p.json"
    p.save(f)
    q = load_profile(f)
    assert q.tile_set == "german" and q.board_mode == "fixed" and q.image_size == (2028, 1520)
    assert np.allclose(q.camera_matrix, p.camera_matrix) and np.allclose(q.grid_corners_px, p.grid_corners_px)
    assert q.camera_settings == {"exposure_us": 8000} and q.glyph_model.path == "g.npz"
    with pytest.raises(ProfileError, match="g.npz"):
        q.resolve(q.glyph_model)      # the referenced model file does not exist


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"format": "kiosk-vision-profile", "version": 99}', "version 99"),
    ('{"format": "other"}', "not a kiosk vision profile"),
    ('[1, 2]', "not a JSON object"),
    ('{"format": "kiosk-vision-profile", "version": 1, "camera": {"matrix": [[1, 2]]}}', "camera.matrix"),
    ('{"format": "kiosk-vision-profile", "version": 1, "board": {"mode": "fixed"}}', "fixed"),
    ('{"format": "kiosk-vision-profile", "version": 1, "board": {"mode": "magic"}}', "board.mode"),
])
def test_reader_profile_errors_name_file_and_field(tmp_path, content, message):
    f = tmp_path / "bad.json"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(ProfileError, match=message) as exc:
        load_profile(f)
    assert "bad.json" in str(exc.value)


@pytest.mark.parametrize("model, message", [
    ('{"path": 3}', "glyph_model.path: expected a string or null"),
    ('{"path": "g.npz", "file": "h.npz"}', 'glyph_model: expected {"path": ..., "data": ...}'),
    ('"g.npz"', 'glyph_model: expected {"path": ..., "data": ...}'),
])
def test_reader_profile_model_reference_errors_name_the_field(tmp_path, model, message):
    f = tmp_path / "bad.json"
    f.write_text('{"format": "kiosk-vision-profile", "version": 1, "glyph_model": ' + model + "}", encoding="utf-8")
    with pytest.raises(ProfileError) as exc:
        load_profile(f)
    assert str(exc.value) == f"{f}: {message}"


def test_reader_profile_missing_file(tmp_path):
    with pytest.raises(ProfileError, match="nope.json: no such calibration profile"):
        load_profile(tmp_path / "nope.json")


def _glyph(kind: str, rng) -> np.ndarray:
    g = np.zeros((GLYPH_PX, GLYPH_PX), np.float32)
    if kind == "I":
        g[4:28, 14:18] = 1
    elif kind == "L":
        g[4:28, 8:12] = 1
        g[24:28, 8:24] = 1
    else:  # "O"
        g[4:28, 6:10] = g[4:28, 22:26] = g[4:8, 6:26] = g[24:28, 6:26] = 1
    return np.clip(g + rng.normal(0, 0.05, g.shape).astype(np.float32), 0, 1)


def test_reader_build_glyph_classifier_reports_cross_validated_accuracy():
    rng = np.random.default_rng(0)
    samples = [(_glyph(k, rng), k) for k in "ILO" for _ in range(6)]
    clf, acc = build_glyph_classifier(samples, folds=3, augment=2, epochs=40, hidden=32)
    assert 0.9 <= acc <= 1.0
    preds = clf.predict([_glyph("L", rng), np.rot90(_glyph("L", rng)).copy()])
    assert [p.letter for p in preds] == ["L", "L"] and preds[1].turns == 1
    with pytest.raises(ModelError, match="2 letters"):
        build_glyph_classifier([(_glyph("I", rng), "I")], folds=0)
    with pytest.raises(ModelError, match="upper-case"):
        build_glyph_classifier([(_glyph("I", rng), "ii")], folds=0)


def test_reader_profile_embedded_model_is_used(tmp_path):
    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision.reader import BoardReader
    rng = np.random.default_rng(0)
    clf, _ = build_glyph_classifier([(_glyph(k, rng), k) for k in "ILO" for _ in range(3)], folds=0, epochs=5,
                                    hidden=8)
    p = CalibrationProfile(glyph_model=ModelRef(data=clf.to_text()))
    f = tmp_path / "p.json"
    p.save(f)
    r = BoardReader(ENGLISH, load_profile(f))
    assert r.glyphs.letters == ["I", "L", "O"]
    d = json.loads(f.read_text())
    d["glyph_model"]["data"] = "@@@"
    f.write_text(json.dumps(d))
    with pytest.raises(ModelError, match="base64"):
        BoardReader(ENGLISH, load_profile(f))


def test_reader_train_defaults_refuses_non_synthetic_samples(tmp_path):
    from kiosk.vision import train

    cache = tmp_path / "mixed.npz"
    np.savez(cache, ox_synth=np.zeros((4, 16)), oy_synth=np.zeros(4), ox_real=np.ones((2, 16)),
             g_templates=np.zeros((1, GLYPH_PX, GLYPH_PX), np.float32), l_templates=np.array(["A"]))
    out = tmp_path / "models"
    with pytest.raises(ValueError, match="non-synthetic samples") as exc:
        train.fit_defaults(cache, out)
    assert "ox_real" in str(exc.value) and "g_templates" in str(exc.value)
    assert not out.exists()        # nothing written


def test_reader_train_cli_offers_no_shared_input_for_defaults(capsys):
    from kiosk.vision import train

    with pytest.raises(SystemExit):
        train.main(["collect", "x.npz", "--shared", "../shared"])
    assert "unrecognized arguments: --shared" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--tiles", "german"], "give letter images"),
    (["--templates", "/nonexistent/letters"], "not a folder of letter images"),
])
def test_reader_train_profile_bad_material_is_a_clear_error(tmp_path, capsys, args, message):
    from kiosk.vision import train

    assert train.main(["profile", str(tmp_path / "p.json"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()


def test_reader_train_profile_game_folder_errors(tmp_path):
    from kiosk.vision import train

    with pytest.raises(ValueError, match="game.ini"):
        train.game_samples(tmp_path, 5)
    (tmp_path / "game.ini").write_text("[default]\nwarp-coord = [[1, 2]]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="warp-coord"):
        train.game_samples(tmp_path, 5)


def test_reader_profile_for_another_tile_set_is_refused(tmp_path):
    """An English profile's glyph model has no Ö (it read MÖSEN as MOSEN); a German one asked for English tiles
    read German letters. The reader takes the profile's set when none is asked for, and refuses a mismatch."""
    from kiosk.rules.tiles import ENGLISH, GERMAN
    from kiosk.vision.reader import BoardReader
    f = tmp_path / "de.json"
    CalibrationProfile(tile_set="german").save(f)
    assert BoardReader(None, load_profile(f)).tile_set.name == "german"
    assert BoardReader(GERMAN, load_profile(f)).tile_set.name == "german"
    with pytest.raises(ProfileError, match=r"de.json: made for german tiles, but the reader is asked for english"):
        BoardReader(ENGLISH, load_profile(f))
    assert BoardReader().tile_set.name == "english"


def test_read_board_cli_refuses_a_profile_for_another_tile_set(tmp_path, capsys):
    from kiosk.cli import main
    f = tmp_path / "de.json"
    CalibrationProfile(tile_set="german").save(f)
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), np.zeros((400, 400, 3), np.uint8))
    assert main(["read-board", str(img), "--calibration", str(f), "--tiles", "english"]) == 2
    assert "made for german tiles" in capsys.readouterr().err


def test_reader_profile_model_errors_name_the_profile_file(tmp_path):
    """A helper found 'profile glyph_model: not base64 ...' without the file, and a NaN homography reported as
    'expected finite numbers of shape (3, 3), got (3, 3)'."""
    from kiosk.vision.reader import BoardReader
    f = tmp_path / "p.json"
    CalibrationProfile(glyph_model=ModelRef(data="@@@")).save(f)
    with pytest.raises(ModelError, match=r"p.json: glyph_model: not base64"):
        BoardReader(None, load_profile(f))
    CalibrationProfile(occupancy_model=ModelRef(data="@@@")).save(f)
    with pytest.raises(ModelError, match=r"p.json: occupancy_model"):
        BoardReader(None, load_profile(f))
    d = json.loads(f.read_text())
    d.setdefault("board", {})["homography"] = [[float("nan")] * 3] * 3
    f.write_text(json.dumps(d))
    with pytest.raises(ProfileError, match="board.homography: holds NaN or infinity"):
        load_profile(f)


def test_python_dash_m_kiosk_is_the_kiosk_command():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "kiosk", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "read-board" in out.stdout



def test_reader_fixed_profile_without_its_corners_makes_an_unreadable_reading_naming_why():
    """A profile built in code (load_profile refuses this one) in 'fixed' mode with neither grid corners nor a
    homography: the reader crashed on None in the middle of a read; it now says what the profile lacks."""
    from kiosk.rules.tiles import ENGLISH
    from kiosk.vision.reader import BoardReader

    frame = np.random.default_rng(0).integers(0, 256, (300, 400, 3), dtype=np.uint8)
    r = BoardReader(ENGLISH, CalibrationProfile(board_mode="fixed")).read(frame)
    assert not r.quality.board_found
    assert "board mode 'fixed' needs grid_corners_px or homography" in r.quality.verdict, r.quality.verdict


@pytest.mark.parametrize("size", ["[0, 760]", "[1014]", '"1014x760"', "[1014.0, 760]", "[true, 760]", "[1014, -760]",
                                  "[1e30, 760]", "[1000000000000000000000000000000, 760]", "[20001, 760]"])
def test_a_bad_board_image_size_is_refused_naming_the_key(tmp_path, size):
    f = tmp_path / "bad.json"
    f.write_text('{"format": "kiosk-vision-profile", "version": 1, "board": {"mode": "fixed", "homography": '
                 '[[1, 0, 0], [0, 1, 0], [0, 0, 1]], "image_size": ' + size + "}}", encoding="utf-8")
    with pytest.raises(ProfileError) as exc:
        load_profile(f)
    assert str(exc.value).startswith(f"{f}: board.image_size: expected [width, height] in px (two whole numbers "
                                     f"from 1 to 20000), got ")


def test_a_fixed_profile_without_board_image_size_still_loads_and_keeps_the_key_round_trip(tmp_path):
    f = tmp_path / "old.json"
    f.write_text('{"format": "kiosk-vision-profile", "version": 1, "board": {"mode": "fixed", "homography": '
                 '[[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}', encoding="utf-8")
    old = load_profile(f)
    assert old.board_mode == "fixed" and old.board_image_size is None
    old.board_image_size = (2028, 1520)
    old.save(f)
    assert load_profile(f).board_image_size == (2028, 1520)


def test_a_small_mark_on_a_plain_tile_is_normalised_without_dividing_by_zero():
    """A mark too small to reach the crop's 3rd percentile (under 3% of its pixels) left the crop's span 0 and the
    glyph all NaN (a RuntimeWarning, then a garbage cast); its contrast is now taken from the tile's middle."""
    import warnings

    from kiosk.vision.glyph_model import normalise_glyph
    crop = np.full((50, 50), 200, np.uint8)
    crop[18:32, 23:27] = 20         # 56 px of 2,500
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        glyph = normalise_glyph(crop)
    assert glyph is not None and np.isfinite(glyph).all() and glyph.max() > 0.5


@pytest.mark.parametrize(("key", "value", "said"), [
    ("version", "true", "version: expected the format's version number, 1, got true"),
    ("version", "1.0", "version: expected the format's version number, 1, got 1.0"),
    ("camera", '{"matrix": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}',
     "camera.matrix: not a camera matrix: expected [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] with the focal lengths fx "
     "and fy above 0 px, got [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"),
    ("camera", '{"matrix": [[1000, 0, 500], [0, 1000, 400], [0, 0, 0]]}', "camera.matrix: not a camera matrix"),
    ("camera", '{"matrix": [[1000, 0, 500], [0, 1000, 400], [0, 0, 1e999]]}',
     "camera.matrix: holds NaN or infinity (expected finite numbers)"),
    ("camera", '{"matrix": [[true, 0, 500], [0, 1000, 400], [0, 0, 1]]}',
     "camera.matrix: expected an array of numbers, got true among them"),
    ("camera", '{"matrix": [["1000", 0, 500], [0, 1000, 400], [0, 0, 1]]}',
     'camera.matrix: expected an array of numbers, got "1000" among them'),
    ("camera", '{"image_size": [1e30, 760]}', "camera.image_size: expected [width, height] in px (two whole numbers "
                                              "from 1 to 20000), got [1e+30, 760]"),
    ("camera", '{"image_size": [-2028, 1520]}', "camera.image_size: expected [width, height] in px (two whole numbers "
                                                "from 1 to 20000), got [-2028, 1520]"),
    ("camera", '{"distortion": [0.1, NaN, 0, 0, 0]}', "camera.distortion: holds NaN or infinity"),
    ("board", '{"mode": "fixed", "homography": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}', "board.homography: not invertible"),
    ("board", '{"mode": "fixed", "homography": [[1, 2, 0], [2, 4, 0], [0, 0, 1]]}', "board.homography: not invertible"),
    ("camera_settings", '{"exposure_us": -5}', "camera_settings.exposure_us: expected a whole number of microseconds "
                                               "above 0, got -5"),
    ("camera_settings", '{"analogue_gain": true}', "camera_settings.analogue_gain: expected a number above 0, got "
                                                   "true"),
    ("camera_settings", '{"awb_gains": [1.5]}', "camera_settings.awb_gains: expected [red, blue]: two numbers above "
                                                "0, got [1.5]"),
])
def test_implausible_profile_values_are_refused_naming_the_key(tmp_path, key, value, said):
    """A tester's profile with "version": true, a zero camera matrix or homography, an image size of 1e30 or
    below 0 loaded (true counted as 1, the zero matrix passed as finite numbers); each is refused naming the key."""
    f = tmp_path / "odd.json"
    fields = {"format": '"kiosk-vision-profile"', "version": "1", key: value}
    f.write_text("{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}", encoding="utf-8")
    with pytest.raises(ProfileError) as exc:
        load_profile(f)
    assert str(exc.value).startswith(f"{f}: {said}"), str(exc.value)


def test_a_plausible_calibrated_profile_still_loads(tmp_path):
    f = tmp_path / "ok.json"
    CalibrationProfile(camera_matrix=np.array([[1500.0, 0, 1014], [0, 1500.0, 760], [0, 0, 1]]),
                       distortion=np.zeros(5), image_size=(2028, 1520), board_mode="fixed",
                       homography=np.array([[0.5, 0.01, -300], [0.0, 0.5, -100], [1e-6, 2e-6, 1]]),
                       board_image_size=(2028, 1520),
                       camera_settings={"exposure_us": 20000, "analogue_gain": 1.5, "awb_gains": [1.8, 1.4],
                                        "auto_exposure": False}).save(f)
    p = load_profile(f)
    assert p.image_size == (2028, 1520) and p.camera_settings["awb_gains"] == [1.8, 1.4]
