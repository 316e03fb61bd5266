"""The game-aware reader (kiosk.vision.game): a reading judged against the accepted board and the pool."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kiosk.rules.tiles import GERMAN, load_tile_set
from kiosk.vision.game import GAP_WHY, GamePrior, GameReader, apply_prior, grid_corners, prior_from_board
from kiosk.vision.reading import BoardReading, FrameQuality
from shared_data import SHARED, needs_shared

ENGLISH = load_tile_set("english")
PROFILES = Path(__file__).resolve().parents[1] / "fixtures" / "profiles"


def grid(*words: tuple[int, int, str]) -> list[str]:
    """15 rows of '.', with (row, col, text) laid across (1-based row, col)."""
    rows = [list("." * 15) for _ in range(15)]
    for r, c, text in words:
        for i, ch in enumerate(text):
            rows[r - 1][c - 1 + i] = ch
    return ["".join(r) for r in rows]


def at(g: list[str], label: str) -> str:
    col, row = "ABCDEFGHIJKLMNO".index(label[0]), int(label[1:]) - 1
    return g[row][col]


def test_known_tile_read_unsure_is_kept_and_one_read_empty_is_named():
    prior = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    reading = BoardReading.from_grid(grid((8, 7, "C#."), (9, 8, "O")))
    res = apply_prior(reading, prior)
    out = res.reading.grid()
    assert at(out, "H8") == "A"                      # unsure over a known A: still the A
    assert at(out, "I8") == "."                      # the T read empty stays as read (the diff's 'vanished')
    assert any("I8" in a and "gone" in a for a in res.anomalies)
    assert res.new == {8 * 15 + 7: "O"}


def test_a_letter_the_pool_has_none_of_is_a_doubt():
    # English has one Z: with a Z on the board a second Z read is a doubt, never a letter
    prior = prior_from_board("".join(grid((8, 7, "ZA"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "ZA"), (9, 8, "Z"))), prior)
    assert at(res.reading.grid(), "H9") == "#"
    assert "no Z left unseen" in res.reading.doubts[8 * 15 + 7]
    # a third blank likewise
    prior = prior_from_board("".join(grid((8, 7, "??"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "??"), (9, 7, "?"))), prior)
    assert at(res.reading.grid(), "G9") == "#"


def test_more_new_tiles_than_a_rack_holds_are_doubts():
    prior = prior_from_board("".join(grid((8, 4, "CAT"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 4, "CAT"), (9, 1, "ABCDEFGH"))), prior)
    assert "ABCDEFGH" not in res.reading.grid()[8]
    assert res.reading.grid()[8][:8] == "#" * 8
    assert not res.new


def test_unsure_squares_no_move_can_reach_are_empty_the_others_stay_unsure():
    prior = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT"), (1, 1, "#"), (9, 8, "#"))), prior)
    out = res.reading.grid()
    assert at(out, "A1") == "."          # far from every tile: no legal move lays a tile there
    assert at(out, "H9") == "#"          # beside the A: may be a new tile, the judge looks
    # with a new tile read in row 9, an unsure square in that row stays unsure even far from the board
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT"), (9, 8, "O"), (9, 14, "#"), (3, 3, "#"))), prior)
    out = res.reading.grid()
    assert at(out, "N9") == "#" and at(out, "C3") == "."


def test_an_unsure_square_beyond_another_unsure_one_that_a_move_can_reach_stays_unsure():
    # game04 frame 15 (uncalibrated, --sequence): the move ZU down N1-N2 touches the known H on O2; both read
    # '#'. N1 is beside no known tile, but a move through N2 reaches it: it was emptied, a tile read empty.
    prior = prior_from_board("".join(grid((2, 15, "H"), (3, 15, "O"))), GERMAN)
    res = apply_prior(BoardReading.from_grid(grid((1, 14, "#"), (2, 14, "#H"), (3, 15, "O"), (6, 3, "#"))), prior)
    out = res.reading.grid()
    assert at(out, "N1") == at(out, "N2") == "#"
    assert at(out, "C6") == "."          # an unsure square no chain of unsure squares joins to the board


def test_a_square_read_empty_between_a_move_s_new_tiles_is_a_doubt():
    # CAT known on 8G; the move H9-H12 down (O, V, E, R... read with V missed): H10 reads empty between new tiles
    prior = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    board = grid((8, 7, "CAT"))
    for row, ch in ((9, "O"), (11, "E"), (12, "R")):
        board[row - 1] = board[row - 1][:7] + ch + board[row - 1][8:]
    res = apply_prior(BoardReading.from_grid(board), prior)
    out = res.reading.grid()
    assert at(out, "H10") == "#"
    assert res.reading.doubts[9 * 15 + 7] == ("this square reads empty between tiles of the move in column H: a tile "
                                              "may be missing here, unless the tiles on either side are not one move")
    assert set(res.new) == {8 * 15 + 7, 10 * 15 + 7, 11 * 15 + 7}
    # a known tile inside the line is no gap; a run longer than GAP_MAX (a tile read far off) is left as read
    prior = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 4, "ONCAT"))), prior)
    assert not res.reading.doubts
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CATS"), (8, 14, "X"))), prior)
    assert res.reading.grid()[7] == "......CATS...X."
    # one new tile: its line is not known, nothing is doubted
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT.S"))), prior)
    assert not res.reading.doubts
    # tiles on squares the game does not know ('#': an older tile the reader never settled) are no move's
    unknown = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    unknown = GamePrior(unknown.board[:120] + "#" + unknown.board[121:122] + "#" + unknown.board[123:],
                        unknown.unseen, unknown.rack_size)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT"), (9, 1, "N.R"))), unknown)
    assert not res.reading.doubts


def test_a_square_read_empty_between_a_move_s_doubted_tiles_is_a_doubt():
    """A hand over a move's tiles (a synthetic hard frame: BOHEA on row 11, its O and A under fingers read unsure,
    its H and E read empty): the move's unsure squares count as its tiles, so the empty run between them is
    doubted; unsure squares off the move's line (a glare elsewhere) leave the rule to the letters alone."""
    prior = prior_from_board("".join(grid((8, 7, "CAT"), (9, 7, "O"), (10, 7, "W"))), ENGLISH)
    board = grid((8, 7, "CAT"), (9, 7, "O"), (10, 7, "W"), (11, 6, "B#..#"))
    res = apply_prior(BoardReading.from_grid(board), prior)
    out = res.reading.grid()
    assert out[10] == ".....B####....."
    assert res.reading.doubts[10 * 15 + 7] == GAP_WHY.format(line="row 11")
    assert res.new == {10 * 15 + 5: "B"}
    # unsure squares in line with no letter read: the gap between them is doubted too
    wax = prior_from_board("".join(grid((8, 7, "CAT"), (9, 7, "O"), (10, 7, "WAX"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT"), (9, 7, "O"), (10, 7, "WAX"), (11, 7, "#.#"))), wax)
    assert res.reading.grid()[10] == "......###......"
    # a doubt off the line of the letters (F9 above B.E on row 11): the letters' own gap only, none in column F
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT"), (9, 7, "O"), (10, 7, "W"), (11, 6, "B.E"),
                                                  (9, 6, "#"))), prior)
    assert at(res.reading.grid(), "F10") == "." and at(res.reading.grid(), "G11") == "#"
    assert res.reading.doubts[10 * 15 + 6] == GAP_WHY.format(line="row 11")
    # one letter, no unsure square beside its line: nothing doubted, as before
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT"), (9, 7, "O"), (10, 7, "W"), (11, 8, "S"))),
                      prior)
    assert not res.reading.doubts


def test_first_move_tiles_off_the_centre_lines_are_doubts():
    prior = prior_from_board([""] * 225, GERMAN)
    res = apply_prior(BoardReading.from_grid(grid((1, 2, "?"), (8, 7, "ZUG"))), prior)
    out = res.reading.grid()
    assert at(out, "B1") == "#" and out[7][6:9] == "ZUG"


def test_a_frame_with_a_hand_is_not_used():
    prior = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    raw = BoardReading.from_grid(grid((8, 7, "C#T"), (1, 1, "#")))
    raw = BoardReading(raw.squares, None, FrameQuality(True, True, False, True, "hand over the board"))
    res = apply_prior(raw, prior)
    assert not res.used and res.reading is raw


def test_a_frame_whose_known_tiles_read_empty_is_covered_and_not_used():
    """A hand the frame check missed (a synthetic hard frame: fingers over the move's tiles and the known ones
    beside them, all read empty): two known tiles gone close together make the frame unusable, its verdict naming
    them; one gone stays an anomaly of a usable frame, as before, and so do tiles gone far apart. Only with a
    referee's board as the prior."""
    from kiosk.vision import game

    prior = prior_from_board("".join(grid((8, 5, "STONE"))), ENGLISH)
    one = apply_prior(BoardReading.from_grid(grid((8, 5, "ST.NE"), (9, 5, "A"))), prior)
    assert one.used and len(one.anomalies) == 1 and one.new == {8 * 15 + 4: "A"}
    covered = BoardReading.from_grid(grid((8, 5, "S..NE"), (9, 5, "A")))
    res = apply_prior(covered, prior)
    assert not res.used and not res.reading.quality.ok and not res.new
    assert res.reading.quality.verdict == ("the tiles already laid on F8, G8 are hidden; take your hand off the "
                                           "board, or put back a tile knocked off")
    assert res.reading.squares == covered.squares       # read as it was: nothing made up
    many = apply_prior(BoardReading.from_grid(grid((8, 5, "....."), (9, 1, "........."))),
                       prior_from_board("".join(grid((8, 5, "STONE"), (9, 1, "QUARTERED"))), ENGLISH))
    assert "on E8, F8, G8, H8, I8 and 9 more are hidden" in many.reading.quality.verdict
    assert game.COVERED_GONE == 2
    # two gone far apart (a face whose tiles on the red corner squares read empty in every frame): anomalies of a
    # usable frame, as before, or no frame of the game would ever be used
    apart = prior_from_board("".join(grid((8, 5, "STONE"), (1, 1, "AX"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 5, "STO.E"), (1, 1, ".X"), (9, 5, "A"))), apart)
    assert res.used and len(res.anomalies) == 2 and res.new == {8 * 15 + 4: "A"}
    assert game.covered_group([0, 2, 30, 200]) == [0, 2, 30] and game.covered_group([0, 3, 45]) == []
    # with a referee's board as the prior (the table) the covered frame is not used, the next one is read against
    # that board; on its own prior (read-board --sequence: no referee) tiles gone may be a move taken back after a
    # challenge, which only the frames tell: anomalies of a usable frame, as before
    frames = iter([grid((8, 5, "S..NE")), grid((8, 5, "STONE"), (9, 5, "A"))])
    ref = GameReader(lambda _frame, _corners, _known, corners_from=None: BoardReading.from_grid(next(frames)),
                     ENGLISH, prior=lambda: prior)
    first, second = (ref.read_game(np.zeros((4, 4, 3), np.uint8)) for _ in range(2))
    assert not first.used and second.used and second.new == {8 * 15 + 4: "A"} and not second.anomalies
    # tiles read empty in COVERED_FRAMES frames running are not a passing hand (a blank the camera keeps missing, a
    # tile knocked off): the third such frame is used, the tiles anomalies, or no frame would be used again
    frames = iter([grid((8, 5, "S..NE"))] * 3 + [grid((8, 5, "STONE"))])
    ref = GameReader(lambda _frame, _corners, _known, corners_from=None: BoardReading.from_grid(next(frames)),
                     ENGLISH, prior=lambda: prior)
    runs = [ref.read_game(np.zeros((4, 4, 3), np.uint8)) for _ in range(4)]
    assert [r.used for r in runs] == [False, False, True, True] and len(runs[2].anomalies) == 2
    assert game.COVERED_FRAMES == 3
    frames = iter([grid((8, 5, "STONE")), grid((8, 5, "S..NE"))])
    seq = GameReader(lambda _frame, _corners, _known, corners_from=None: BoardReading.from_grid(next(frames)),
                     ENGLISH)
    for _ in range(2):
        last = seq.read_game(np.zeros((4, 4, 3), np.uint8))
        seq.accept(last.reading)
    assert last.used and len(last.anomalies) == 2


def test_sequence_reads_each_frame_with_the_previous_reading_as_prior_and_keeps_the_board_found():
    h = np.array([[1.0, 0.0, -5.0], [0.0, 1.0, -7.0], [0.0, 0.0, 1.0]])
    frames = [grid((8, 7, "CAT")), grid((8, 7, "C#T"), (9, 8, "X")), grid((8, 7, "CAT"), (9, 8, "X"), (1, 1, "#"))]
    seen_corners, seen_known = [], []

    def read(frame, corners, known, **_):
        seen_corners.append(None if corners is None else corners.copy())
        seen_known.append(known)
        r = BoardReading.from_grid(frame)
        return BoardReading(r.squares, h, r.quality)

    game = GameReader(read, ENGLISH)
    outs = []
    for f in frames:
        res = game.read_game(f)
        game.accept(res.reading)
        outs.append(res.reading.grid())
    assert outs[1][7][6:9] == "CAT"          # the A known from the first frame
    assert at(outs[2], "A1") == "."
    assert seen_corners[0] is None           # found by the reader first, then kept
    assert seen_known[0] == "." * 225        # the reader is told the tiles known: none, then the first reading's
    assert seen_known[1] == "".join(grid((8, 7, "CAT"))) and seen_known[2] == "".join(outs[1])
    assert np.allclose(seen_corners[1], grid_corners(h))
    assert np.allclose(grid_corners(h)[0], [15.0, 17.0])


def test_prior_counts_the_pool_from_the_board():
    prior = prior_from_board("".join(grid((8, 7, "QaT"))), ENGLISH)
    assert isinstance(prior, GamePrior)
    assert prior.unseen["Q"] == 0 and prior.unseen["?"] == ENGLISH.blanks - 1
    assert prior.unseen["T"] == Counter(ENGLISH.full_bag())["T"] - 1


def test_before_the_first_move_with_h8_empty_no_square_holds_a_tile_of_a_move():
    """scrabscrap game03 frame 1 (a pass on the empty board): H7 read unsure, B1 a blank."""
    prior = prior_from_board([""] * 225, GERMAN)
    res = apply_prior(BoardReading.from_grid(grid((7, 8, "#"), (1, 2, "?"))), prior)
    out = res.reading.grid()
    assert at(out, "H7") == "."                      # unsure on column H, but H8 is empty: no move was played
    assert at(out, "B1") == "#"                      # read as a tile where no move lays one: the judge looks


def test_a_known_blank_read_empty_or_lettered_is_named_never_silently_changed():
    """Failure kind of issue 22: a still blank 'vanishing' (an exposure ramp) or read as a letter."""
    prior = prior_from_board("".join(grid((8, 7, "C?T"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "C.T"))), prior)
    assert any("H8" in a and "? is gone" in a for a in res.anomalies)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "COT"))), prior)
    assert any("H8" in a and "reads O" in a for a in res.anomalies) and not res.new
    # read unsure under the ramp: still the known blank, nothing for the judge
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "C#T"))), prior)
    assert res.reading.grid()[7][6:9] == "C?T" and not res.anomalies


def test_fingers_read_as_blanks_beyond_the_pool_are_doubts():
    """Failure kind of issue 22: fingers over empty squares read as blanks; the set has 2 blanks, one is on the
    board, so three new blanks cannot all be tiles."""
    prior = prior_from_board("".join(grid((8, 7, "C?T"))), ENGLISH)
    res = apply_prior(BoardReading.from_grid(grid((8, 7, "C?T"), (9, 7, "???"))), prior)
    assert res.reading.grid()[8][6:9] == "###" and not res.new


def test_a_new_letter_below_the_sureness_asked_is_a_doubt_and_a_disputed_tile_is_read_again():
    """scrabscrap game02 uncalibrated: a V read Y (0.975) then V, Y, V ... frame after frame."""
    from kiosk.vision.reading import SquareReading, SquareState

    def with_letter(rows, label, letter, conf):
        r = BoardReading.from_grid(rows)
        sq = (int(label[1:]) - 1) * 15 + "ABCDEFGHIJKLMNO".index(label[0])
        squares = list(r.squares)
        squares[sq] = SquareReading(SquareState.TILE, letter, conf)
        return BoardReading(tuple(squares), None, r.quality)

    prior = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    res = apply_prior(with_letter(grid((8, 7, "CAT")), "H9", "Y", 0.975), prior, new_letter_p=0.98)
    assert at(res.reading.grid(), "H9") == "#" and not res.new
    res = apply_prior(with_letter(grid((8, 7, "CAT")), "H9", "Y", 0.99), prior, new_letter_p=0.98)
    assert at(res.reading.grid(), "H9") == "Y"
    # a known Y read V: named, and the next frame reads the square afresh instead of keeping either letter
    frames = [grid((8, 7, "CAT"), (9, 8, "Y")), grid((8, 7, "CAT"), (9, 8, "V")), grid((8, 7, "CAT"), (9, 8, "#"))]
    game = GameReader(lambda f, c, k, **_: BoardReading.from_grid(f), ENGLISH)
    outs = []
    for f in frames:
        res = game.read_game(f)
        game.accept(res.reading)
        outs.append((at(res.reading.grid(), "H9"), res.anomalies))
    assert outs[1][0] == "V" and any("H9" in a for a in outs[1][1])
    assert outs[2][0] == "#"             # not the Y nor the V: the judge or a sure read settles it


def test_a_sequence_starting_mid_game_reads_its_first_frame_alone():
    """read-board --sequence from frame 5 of a game: 20 tiles at once are the board, not a move of 20 tiles."""
    rows = grid((8, 4, "FIRNS"), (10, 2, "MÖSE"), (14, 1, "WANK"))
    game = GameReader(lambda f, c, k, **_: BoardReading.from_grid(f), GERMAN)
    res = game.read_game(rows)
    assert res.reading.grid() == rows and not res.anomalies


@pytest.mark.slow
@needs_shared
def test_a_recording_without_corners_is_found_and_kept_from_frame_to_frame():
    """A game.ini without warp-coord: the board found in the first frame is the corners of the next."""
    from kiosk.vision.images import read_image
    from kiosk.vision.profile import load_profile
    from kiosk.vision.reader import BoardReader

    d = SHARED / "photos" / "scrabscrap" / "game01"
    reader = BoardReader(GERMAN, load_profile(PROFILES / "scrabscrap-templates.json"))
    given = []

    def read(frame, corners, known, **_):
        given.append(corners)
        return reader.read(frame, corners, known, **_)

    game = GameReader(read, GERMAN)
    for n in (5, 6):
        res = game.read_game(read_image(d / f"image-{n}.jpg"))
        game.accept(res.reading)
        truth = (d / "truth" / f"image-{n}.txt").read_text(encoding="utf-8").split()
        assert res.reading.quality.ok
        wrong = [(r, c) for r in range(15) for c in range(15)
                 if res.reading.grid()[r][c] not in (truth[r][c], "#")]
        assert wrong == [], n
    assert given[0] is None and given[1] is not None


def test_the_first_frame_of_a_sequence_with_h8_empty_holds_no_move():
    """scrabscrap game03 frame 1, the first of its sequence: a blank read on an empty B1 while H8 is empty is a
    doubt, not a tile (no move has been played)."""
    game = GameReader(lambda f, c, k, **_: BoardReading.from_grid(f), GERMAN)
    res = game.read_game(grid((1, 2, "?"), (7, 8, "#")))
    assert at(res.reading.grid(), "B1") == "#" and at(res.reading.grid(), "H7") == "."


def test_a_square_the_last_reading_left_unsure_is_never_emptied_by_the_move_shape():
    """scrabscrap game01 uncalibrated --sequence: E7's V read '#' (not sure enough) in frame 2, then read '.' in
    every later frame because the next move's line did not pass through it: 77 tiles of the game read empty."""
    prior = prior_from_board("".join(grid((8, 4, "FIRNS"), (7, 5, "#"))), GERMAN)
    res = apply_prior(BoardReading.from_grid(grid((8, 4, "FIRNS"), (7, 5, "#"), (9, 8, "AB"))), prior)
    assert at(res.reading.grid(), "E7") == "#"


def test_the_first_frame_of_a_game_is_read_against_the_empty_board():
    """scrabscrap game02 frame 1 (the first move DÜS down from H7): 16 squares read unsure all over the board
    are empty, since the first move lies in column H."""
    game = GameReader(lambda f, c, k, **_: BoardReading.from_grid(f), GERMAN)
    rows = grid((7, 8, "D"), (8, 8, "Ü"), (9, 8, "S"), (2, 15, "#"), (4, 11, "#"), (1, 2, "#"))
    out = game.read_game(rows).reading.grid()
    assert at(out, "O2") == "." and at(out, "K4") == "." and at(out, "B1") == "."
    assert [at(out, s) for s in ("H7", "H8", "H9")] == ["D", "Ü", "S"]


def _shifted(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0.0, -dx], [0.0, 1.0, -dy], [0.0, 0.0, 1.0]])


def _fake_reader(script: dict[int, tuple[str, np.ndarray]], given: list):
    """read(frame, corners) for frames whose first pixel names the script entry: (verdict, homography)."""
    def read(frame, corners, known, **_):
        given.append(None if corners is None else corners.copy())
        verdict, h = script[int(frame[0, 0, 0])]
        if verdict != "ok":
            return BoardReading.unreadable(verdict, board_found=True, homography=h, sharp=True)
        r = BoardReading.from_grid(grid((8, 7, "CAT")))
        return BoardReading(r.squares, h, r.quality)
    return read


def _frame(key: int, size: tuple[int, int] = (100, 120)) -> np.ndarray:
    f = np.zeros((*size, 3), np.uint8)
    f[0, 0, 0] = key
    return f


def test_a_board_found_in_an_unusable_frame_is_not_kept_for_the_next_frames():
    """A frame turned 90 degrees mid-sequence (read-board --sequence): its grid, read "board turned", was kept
    as the corners of every later frame, which then read as garbage ("hand over the board", 78 squares unsure)."""
    good, turned = _shifted(5, 7), _shifted(40, 3)
    given: list = []
    game = GameReader(_fake_reader({1: ("ok", good), 2: ("board turned: most letters read 90 degrees turned",
                                                              turned)}, given), ENGLISH)
    for key in (1, 2, 1):
        game.accept(game.read_game(_frame(key)).reading)
    assert np.allclose(given[2], grid_corners(good))     # the last usable frame's grid, not the turned one
    given.clear()
    game = GameReader(_fake_reader({1: ("ok", good), 2: ("grid uncertain", turned)}, given), ENGLISH)
    for key in (2, 1):
        game.accept(game.read_game(_frame(key)).reading)
    assert given == [None, None]                         # found in an unusable first frame: looked for again


def test_a_frame_of_another_size_mid_sequence_is_looked_for_anew():
    """A half-size image between game01's frames was read through the corners of the full-size ones ("bad
    corners: the corners put 73 % of the grid outside the 496x488 frame"), and the frame after a double-size one
    lost its board the same way."""
    h = _shifted(5, 7)
    given: list = []
    game = GameReader(_fake_reader({1: ("ok", h)}, given), ENGLISH)
    for size in ((100, 120), (50, 60), (50, 60), (100, 120)):
        game.accept(game.read_game(_frame(1, size)).reading)
    assert given[0] is None and given[1] is None and given[3] is None
    assert np.allclose(given[2], grid_corners(h))        # same size as the frame before: kept


def test_h8_unsure_alone_on_the_empty_board_is_no_move_but_beside_another_tile_it_stays_unsure():
    """The synthetic camera's centre star is doubted on the empty board ('#', no tile beside it): every press
    of a simulated table before the first move went to the judge. The first move lays a word of two tiles or
    more through H8, so H8 unsure with every square beside it surely empty is no move; with an unsure or
    lettered square beside it, or any new tile read, it stays for the judge."""
    prior = prior_from_board([""] * 225, ENGLISH)
    out = apply_prior(BoardReading.from_grid(grid((8, 8, "#"))), prior)
    assert at(out.reading.grid(), "H8") == "." and not out.new and 112 not in out.reading.doubts
    out = apply_prior(BoardReading.from_grid(grid((8, 8, "##"))), prior)
    assert at(out.reading.grid(), "H8") == at(out.reading.grid(), "I8") == "#"
    out = apply_prior(BoardReading.from_grid(grid((8, 8, "#"), (3, 8, "Q"))), prior)
    assert at(out.reading.grid(), "H8") == "#"     # a tile read elsewhere: the frame is odd, the judge looks
    after = prior_from_board("".join(grid((8, 7, "CAT"))), ENGLISH)
    out = apply_prior(BoardReading.from_grid(grid((8, 7, "CAT"), (9, 8, "#"))), after)
    assert at(out.reading.grid(), "H9") == "#"     # after the first move one tile is a move
