"""Given corners over a frame with no board there (kiosk.vision.presence): a review found that a frame of noise
read through given corners gave an empty board with verdict "ok" (the corners were used as they were when no
grid line was found), and a board turned 20 degrees under its corners "ok" with 129 unsure squares; in the kiosk
an "ok" empty board makes every known tile "gone". Now such a frame gives no reading, saying why. The same for a
fixed camera (the calibration's homography, never confirmed on the lines) over noise or a bare table before the
first move: it read an empty board "ok" (issue 22)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.cli import main
from kiosk.rules.board import Board
from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.vision import locate, presence
from kiosk.vision import reader as reader_module
from kiosk.vision.game import GameReader
from kiosk.vision.profile import CalibrationProfile
from kiosk.vision.reader import BoardReader
from kiosk.vision.reading import FIXED_CAMERA, FOUND_CORNERS, GIVEN_CORNERS, GridSource
from kiosk.vision.synth import render_board
from shared_data import SHARED, game_corners, needs_shared

NO_BOARD = "no board at the given corners (no grid lines, colours unlike the board's)"
FIXED_NO_BOARD = "no board where the camera's calibration puts it (no grid lines, colours unlike the board's)"


@pytest.fixture(scope="module")
def frame():
    board = Board.from_rows(["..............."] * 6 + ["....QUIET......", ".....HOUSE....."] + ["..............."] * 7)
    return render_board(board, seed=11, level="typical", size=(1014, 760))


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader(ENGLISH)


def _turned(image: np.ndarray, corners: np.ndarray, degrees: float) -> np.ndarray:
    c = corners.mean(axis=0)
    m = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), degrees, 1.0)
    return cv2.warpAffine(image, m, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def test_noise_under_given_corners_is_no_board(reader, frame):
    noise = np.random.default_rng(0).integers(0, 256, frame.image.shape, dtype=np.uint8)
    reader.forget_board_pose()
    r = reader.read(noise, frame.grid_corners_px)
    assert not r.quality.ok and not r.quality.board_found
    assert r.quality.verdict == NO_BOARD
    assert set("".join(r.grid())) == {"#"}


@pytest.mark.parametrize("degrees", [10, 20, 30])
def test_a_board_turned_under_its_corners_is_no_board_there(reader, frame, degrees):
    reader.forget_board_pose()
    r = reader.read(_turned(frame.image, frame.grid_corners_px, degrees), frame.grid_corners_px)
    assert not r.quality.ok and not r.quality.board_found
    assert r.quality.verdict.startswith("no board at the given corners (no grid lines along them"), r.quality.verdict
    assert "degrees turned" in r.quality.verdict


def test_a_board_under_its_corners_still_reads(reader, frame):
    reader.forget_board_pose()
    r = reader.read(frame.image, frame.grid_corners_px)
    assert r.quality.ok and r.grid() == frame.truth


def test_the_board_coming_back_after_no_board_reads_again(reader, frame):
    """The tracker forgets a grid it found no board at: the next frame is fitted from the corners afresh."""
    reader.forget_board_pose()
    grey = np.clip(np.random.default_rng(1).normal(128, 4, frame.image.shape), 0, 255).astype(np.uint8)
    assert reader.read(frame.image, frame.grid_corners_px).quality.ok
    assert reader.read(grey, frame.grid_corners_px).quality.verdict == NO_BOARD
    r = reader.read(frame.image, frame.grid_corners_px)
    assert r.quality.ok and r.grid() == frame.truth


def test_lines_that_confirm_the_corners_skip_the_check(frame, monkeypatch):
    """The check costs a few ms; a board whose lines confirm its corners (the kiosk's steady path) never pays."""
    h, confirmed = locate.fit_corners(frame.image, frame.grid_corners_px)
    assert confirmed
    monkeypatch.setattr(presence, "no_board", lambda *a: pytest.fail("checked a confirmed grid"))
    assert BoardReader(ENGLISH).read(frame.image, frame.grid_corners_px).quality.ok


def test_evidence_of_a_board_and_of_noise(frame):
    h = locate.homography_from_grid_corners(frame.grid_corners_px)
    board = presence.evidence(frame.image, h)
    assert board.aligned >= presence.ALIGNED_MIN and (board.colour >= presence.COLOUR_MIN
                                                      or board.period >= presence.PERIOD_MIN)
    assert presence.no_board(frame.image, h) is None
    turned = presence.evidence(_turned(frame.image, frame.grid_corners_px, 20), h)
    assert turned.aligned < presence.ALIGNED_MIN and abs(abs(turned.turn_deg) - 20) <= 2


def test_cli_names_the_image_and_says_no_board(frame, tmp_path, capsys):
    path = tmp_path / "noise.png"
    cv2.imwrite(str(path), np.random.default_rng(2).integers(0, 256, frame.image.shape, dtype=np.uint8))
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in frame.grid_corners_px)
    rc = main(["read-board", str(path), "--corners", corners])
    out, err = capsys.readouterr()
    assert rc == 1
    assert f"{path}: no board read: {NO_BOARD}" in err
    assert out.splitlines()[:15] == ["#" * 15] * 15   # nothing read: one block per image, the order kept


@needs_shared
def test_real_frames_under_given_corners():
    """A real frame with its game.ini corners still reads ok; noise and the same board turned 20 degrees under
    those corners do not."""
    img = cv2.imread(str(SHARED / "photos" / "scrabscrap" / "game01" / "image-20.jpg"))
    corners = game_corners("game01")
    reader = BoardReader(GERMAN)
    assert reader.read(img, corners).quality.ok
    reader.forget_board_pose()
    noise = np.random.default_rng(3).integers(0, 256, img.shape, dtype=np.uint8)
    assert reader.read(noise, corners).quality.verdict == NO_BOARD
    reader.forget_board_pose()
    r = reader.read(_turned(img, corners, 20), corners)
    assert not r.quality.board_found and r.quality.verdict.startswith("no board at the given corners")


def test_a_board_shifted_half_a_square_off_its_corners_is_not_at_them(frame, monkeypatch):
    """The lines repeat at the grid's pitch but lie between the given lines: a board there, not at the corners
    (a board shifted 1.5 squares kept the given corners when neither search nor polish found its lines)."""
    h = locate.homography_from_grid_corners(frame.grid_corners_px)
    square = float(np.linalg.norm(frame.grid_corners_px[1] - frame.grid_corners_px[0])) / 15
    m = np.float32([[1, 0, 1.5 * square], [0, 1, 0]])
    shifted = cv2.warpAffine(frame.image, m, frame.image.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    e = presence.evidence(shifted, h)
    assert abs(abs(e.offset) - 0.5) < 0.15, e        # its lines lie between the given ones
    assert str(presence.no_board(shifted, h)).startswith("no board at the given corners (no grid lines")
    clear = e._replace(period=presence.PERIOD_MIN, colour=40.0)      # even with clear lines and colours
    monkeypatch.setattr(presence, "evidence", lambda *a: clear)
    assert str(presence.no_board(shifted, h)).startswith("no board at the given corners (no grid lines along them: "
                                                         "a grid's lines lie about 0.5 of a square off them")
    monkeypatch.undo()
    assert abs(presence.evidence(frame.image, h).offset) < 0.1


def test_a_fixed_camera_over_noise_is_no_board_when_the_known_tiles_vanish(frame):
    """A fixed camera's grid is never checked on the lines; a frame of noise there read as an empty board, "ok".
    With the game's known tiles (the reader is told them) the tiles all read empty: the reader then checks that a
    board lies there at all, and gives no reading. The real board there still reads ok."""
    reader = _fixed_reader(locate.homography_from_grid_corners(frame.grid_corners_px))
    known = "".join("".join(row) for row in frame.truth)
    assert sum(ch.isalpha() for ch in known) == 10
    noise = np.random.default_rng(1).integers(0, 256, frame.image.shape, dtype=np.uint8)
    assert reader.read(noise).quality.verdict == FIXED_NO_BOARD     # without the known tiles: see below
    r = reader.read(noise, None, known)
    assert not r.quality.ok and not r.quality.board_found
    assert r.quality.verdict == "no board where the board's known tiles should be (no grid lines, colours unlike " \
                                "the board's)"
    good = reader.read(frame.image, None, known)
    assert good.quality.ok and good.grid() == frame.truth


def _fixed_reader(h: np.ndarray, tile_set=ENGLISH) -> BoardReader:
    """A reader of a fixed camera whose calibration puts the grid at ``h`` (image -> canonical homography)."""
    return BoardReader(tile_set, CalibrationProfile(board_mode="fixed", homography=h, tile_set=tile_set.name))


@pytest.fixture(scope="module")
def empty_frame():
    """An empty board (the start of a game) as the synthetic camera sees it; it reads all empty."""
    return render_board(Board.from_rows(["..............."] * 15), seed=1, level="typical", size=(1014, 760))


def _no_board_frames(image: np.ndarray) -> dict[str, np.ndarray]:
    """Frames of ``image``'s size with no board: uniform noise, and the scene's table alone (the median colour of
    the frame's border, with the camera's noise): a board taken away from under a fixed camera."""
    rng = np.random.default_rng(4)
    border = np.concatenate([image[:20].reshape(-1, 3), image[-20:].reshape(-1, 3)])
    table = np.median(border, axis=0) + rng.normal(0, 4.5, image.shape)
    return {"noise": rng.integers(0, 256, image.shape, dtype=np.uint8),
            "table": np.clip(table, 0, 255).astype(np.uint8)}


def _spy_checks(monkeypatch) -> list[str]:
    """Record where the reader checks that a board lies (the ``where`` of each presence.no_board call)."""
    calls: list[str] = []

    def spy(image, h, source: GridSource = GIVEN_CORNERS):
        calls.append(source.where)
        return presence.no_board(image, h, source)

    monkeypatch.setattr(reader_module, "no_board", spy)
    return calls


@pytest.mark.parametrize("scene", ["noise", "table"])
def test_a_fixed_camera_over_noise_or_a_bare_table_is_no_board(empty_frame, scene):
    """Issue 22: a fixed camera's grid over noise or a table with no board read an empty board with verdict "ok"
    when the game knew no tiles yet (no known tiles, or all known empty): the kiosk told the players all was
    well with the board taken away or the camera knocked. Now: no reading, saying why."""
    reader = _fixed_reader(locate.homography_from_grid_corners(empty_frame.grid_corners_px))
    image = _no_board_frames(empty_frame.image)[scene]
    for known in (None, "." * 225):
        r = reader.read(image, None, known)
        assert not r.quality.ok and not r.quality.board_found, r.quality.verdict
        assert r.quality.verdict == FIXED_NO_BOARD
        assert set("".join(r.grid())) == {"#"}


def test_an_empty_board_under_a_fixed_camera_is_checked_and_reads_empty(empty_frame, frame, monkeypatch):
    """The board itself still reads: the empty board is checked (once, where the calibration puts it) and reads
    empty, "ok"; a board with tiles on it (a game under way, the steady state) is never checked."""
    calls = _spy_checks(monkeypatch)
    busy = _fixed_reader(locate.homography_from_grid_corners(frame.grid_corners_px))
    r = busy.read(frame.image, None, "." * 225)
    assert r.quality.ok and r.grid() == frame.truth and calls == [] and "presence" not in r.timings_ms
    r = _fixed_reader(locate.homography_from_grid_corners(empty_frame.grid_corners_px)).read(empty_frame.image)
    assert r.quality.ok and r.grid() == empty_frame.truth == ["." * 15] * 15
    assert calls == [FIXED_CAMERA.where] and r.timings_ms["presence"] > 0


def test_the_game_reader_keeps_no_grid_from_noise_under_a_fixed_camera(empty_frame):
    """The kiosk's GameReader keeps the first usable reading's grid as the corners of the next frames: over noise
    at the start of a game it kept a grid from nothing, read "ok". Now the noise is no board, no grid is kept,
    and the board read next is."""
    reader = _fixed_reader(locate.homography_from_grid_corners(empty_frame.grid_corners_px))
    game = GameReader(reader.read, ENGLISH)
    r = game(_no_board_frames(empty_frame.image)["noise"])
    assert r.quality.verdict == FIXED_NO_BOARD and game.corners is None
    r = game(empty_frame.image)
    assert r.quality.ok and r.grid() == ["." * 15] * 15 and game.corners is not None


@needs_shared
def test_a_real_empty_board_under_a_fixed_camera_reads_and_noise_does_not(monkeypatch):
    """scrabscrap game03 frame 1, the empty board (a pass before the first move), under a fixed camera
    calibrated on its game.ini corners: it reads empty, "ok", checked; noise and a plain frame of its border's
    colour at the same calibration are no board."""
    img = cv2.imread(str(SHARED / "photos" / "scrabscrap" / "game03" / "image-1.jpg"))
    reader = _fixed_reader(locate.from_corners(img, game_corners("game03")), GERMAN)
    calls = _spy_checks(monkeypatch)
    r = reader.read(img)
    assert r.quality.ok and r.grid() == ["." * 15] * 15, "\n".join(r.grid())
    assert calls == [FIXED_CAMERA.where]
    for scene, image in _no_board_frames(img).items():
        assert reader.read(image).quality.verdict == FIXED_NO_BOARD, scene


FOUND_NO_BOARD = "no board at the corners of the board found in an earlier frame (no grid lines, colours unlike the " \
                 "board's)"


def test_cli_sequence_without_corners_names_the_board_found_before_not_given_corners(frame, tmp_path, capsys):
    """``read-board --sequence`` without --corners keeps the board found in a frame as the corners of the next;
    a frame of noise after it said "no board at the given corners" though none were given."""
    board, noise = tmp_path / "board.png", tmp_path / "noise.png"
    cv2.imwrite(str(board), frame.image)
    cv2.imwrite(str(noise), np.random.default_rng(2).integers(0, 256, frame.image.shape, dtype=np.uint8))
    rc = main(["read-board", "--sequence", str(board), str(noise)])
    err = capsys.readouterr().err
    assert rc == 1
    assert f"{noise}: no board read: {FOUND_NO_BOARD}" in err, err
    assert "given corners" not in err and str(board) not in err, err


def test_a_fixed_camera_s_grid_kept_in_a_game_is_named_as_its_calibration(frame):
    """Under a fixed camera a game keeps the calibration's grid from frame to frame: no board there is named so,
    not "at the corners of the board found in an earlier frame" (nor "given corners")."""
    reader = _fixed_reader(locate.homography_from_grid_corners(frame.grid_corners_px))
    game = GameReader(reader.read, ENGLISH)
    game.accept(game.read_game(frame.image).reading)
    assert game.corners is not None
    r = game.read_game(np.random.default_rng(4).integers(0, 256, frame.image.shape, dtype=np.uint8)).reading
    assert r.quality.verdict == FIXED_NO_BOARD


def test_the_advice_follows_where_the_grid_came_from(frame):
    """No board along a grid turned under it: what to check depends on the grid's source (a person who gave no
    corners is not told to check them)."""
    h = locate.homography_from_grid_corners(frame.grid_corners_px)
    turned = _turned(frame.image, frame.grid_corners_px, 20)
    said = {s: str(presence.no_board(turned, h, s)) for s in (GIVEN_CORNERS, FOUND_CORNERS, FIXED_CAMERA)}
    assert said[GIVEN_CORNERS].startswith("no board at the given corners (no grid lines along them: ")
    assert said[GIVEN_CORNERS].endswith("degrees turned; check the corners or the board)")
    assert said[FOUND_CORNERS].startswith("no board at the corners of the board found in an earlier frame (")
    assert said[FOUND_CORNERS].endswith("; check the board and the camera)")
    assert said[FIXED_CAMERA].endswith("; check the camera and the board, or calibrate the camera again)")
