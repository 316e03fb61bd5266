"""The shipped square network (kiosk.vision.squarenet): loads through OpenCV's dnn module, reads rendered
squares (training seeds are below 2**30; these use other seeds), and the reader uses it for blanks."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.rules.board import Board
from kiosk.rules.tiles import ENGLISH, GERMAN
from kiosk.vision import locate
from kiosk.vision.cells import cell_crop, warp_canvas
from kiosk.vision.mlp import ModelError
from kiosk.vision.reader import BoardReader, default_square_net
from kiosk.vision.reading import SquareState
from kiosk.vision.squarenet import CROP_PX, GROW_PX, INPUT_PX, LETTER_NET_FROM, SquareNet, prepare, softmax_rows
from kiosk.vision.synth import render_board
from kiosk.vision.synth.boards import random_board


@pytest.mark.parametrize("name, tile_set", [("english", ENGLISH), ("german", GERMAN)])
def test_shipped_square_nets_load_with_their_labels(name, tile_set):
    net = default_square_net(name)
    assert net.labels[:2] == ["empty", "blank"]
    assert set(net.letters) == set(tile_set.letters)
    assert len(net.labels) == 2 + 4 * len(tile_set.letters)
    meta = json.loads((resources.files("kiosk.vision.models") / f"squares_{name}.json").read_text("utf-8"))
    assert "synthetic" in meta["trained_on"] and meta["input_px"] == INPUT_PX and meta["grow_px"] == GROW_PX


def test_square_net_rejects_bad_models():
    onnx = (resources.files("kiosk.vision.models") / "squares_english.onnx").read_bytes()
    with pytest.raises(ModelError, match="labels"):
        SquareNet(onnx, ["A0", "B0", "C0"])
    with pytest.raises(ModelError, match="ONNX"):
        SquareNet(b"not a network", ["empty", "blank", "A0"])
    with pytest.raises(ModelError, match="label file"):
        SquareNet.from_files(onnx, "{not json")


def test_prepare_normalises_light_and_contrast():
    rng = np.random.default_rng(3)
    crop = rng.integers(60, 200, (CROP_PX, CROP_PX)).astype(np.uint8)
    dim = (crop.astype(np.float32) * 0.5 + 10).astype(np.uint8)
    a, b = prepare([crop]), prepare([dim])
    assert a.shape == (1, 1, INPUT_PX, INPUT_PX) and a.dtype == np.float32
    assert np.abs(a - b).max() < 0.05
    flat = prepare([np.full((CROP_PX, CROP_PX), 120, np.uint8)])
    assert np.abs(flat).max() == 0.0          # a plain crop stays plain (no noise blown up)
    assert prepare([]).shape == (0, 1, INPUT_PX, INPUT_PX)


@cache
def _frame(seed: int, tiles: str):
    ts = ENGLISH if tiles == "english" else GERMAN
    board = random_board(seed, 70, ts, blank_share=0.1)
    return render_board(board, seed=seed, level="typical", tile_set=ts)


@pytest.mark.parametrize("seed, tiles", [(700001, "english"), (700002, "german")])
def test_square_net_reads_rendered_squares(seed, tiles):
    fr = _frame(seed, tiles)
    h = locate.from_corners(fr.image, fr.grid_corners_px)
    canvas, _ = warp_canvas(fr.image, h)
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
    truth = "".join(fr.truth)
    squares = [sq for sq in range(225) if sq not in fr.occluded]
    preds = default_square_net(tiles).predict([cell_crop(grey, sq, GROW_PX) for sq in squares])
    read = ["." if p.p_empty > 0.5 else "?" if p.p_blank > 0.5 else p.letter for p in preds]
    right = sum(r == truth[sq] for sq, r in zip(squares, read))
    assert right >= 0.98 * len(squares), [(sq, truth[sq], r) for sq, r in zip(squares, read) if r != truth[sq]]
    blanks = [sq for sq in squares if truth[sq] == "?"]
    assert blanks and sum(read[squares.index(sq)] == "?" for sq in blanks) >= 0.8 * len(blanks)


def test_reader_reads_a_plain_blank_on_a_plain_board():
    """A blank (no glyph) among lettered tiles is a BLANK, not an empty square."""
    board = Board.from_rows(["..............."] * 7 + ["....FLANEUr...."] + ["..............."] * 7)
    fr = render_board(board, seed=123457, level="easy", tile_set=ENGLISH, size=(1014, 760))
    r = BoardReader(ENGLISH).read(fr.image)
    assert r.grid()[7] == "....FLANEU?....", (r.grid()[7], r.doubts)
    assert r.squares[7 * 15 + 10].state is SquareState.BLANK


def test_turned_reading_maps_each_turn_back_to_the_crops_own_orientation():
    """probabilities_turned reads the four quarter turns and maps each back: a crop turned once reads as the
    crop itself with every letter's turn one more (same four images, so equal to float error), and the letters
    of a rendered frame read at least as well as in one reading."""
    fr = _frame(700001, "english")
    h = locate.from_corners(fr.image, fr.grid_corners_px)
    grey = cv2.cvtColor(warp_canvas(fr.image, h)[0], cv2.COLOR_BGR2GRAY)
    net = default_square_net("english")
    tiles = [sq for sq in range(225) if fr.truth[sq // 15][sq % 15] not in ".?" and sq not in fr.occluded]
    crops = [cell_crop(grey, sq, GROW_PX) for sq in tiles]
    p = net.probabilities_turned(crops)
    p_turned = net.probabilities_turned([np.ascontiguousarray(np.rot90(c)) for c in crops])
    once = [net.labels.index(f"{lab[:-1]}{(int(lab[-1]) + 1) % 4}") if i >= 2 else i
            for i, lab in enumerate(net.labels)]
    assert np.allclose(p_turned[:, once], p, atol=1e-5)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    truth = [fr.truth[sq // 15][sq % 15] for sq in tiles]
    one = sum(q.letter == t for q, t in zip(net.predict(crops), truth))
    four = net.predict(crops, turned=True)
    assert sum(q.letter == t for q, t in zip(four, truth)) >= one >= 0.98 * len(tiles)
    turned = {int(sq) for sq in fr.meta.get("turned_tiles", {})}
    upright = [q.turns for sq, q, t in zip(tiles, four, truth) if q.letter == t and sq not in turned]
    assert upright and not any(upright)     # the turns are the crop's own


def test_stroke_augmentation_varies_the_ink_weight():
    from kiosk.vision.squarenet_train import augment_batch, train

    crop = np.full((CROP_PX + 16, CROP_PX + 16), 200, np.uint8)
    cv2.putText(crop, "E", (20, 58), cv2.FONT_HERSHEY_SIMPLEX, 1.4, 30, 4)
    crops = np.repeat(crop[None], 200, 0)

    def ink_spread(stroke: float) -> float:
        x, _ = augment_batch(crops, np.random.default_rng(3), stroke=stroke)
        return float(np.std((x < -0.5).mean(axis=(1, 2, 3))))

    assert ink_spread(1.0) > 1.5 * ink_spread(0.0)
    with pytest.raises(ValueError, match="--stroke 1.5: a share from 0 to 1"):
        train([], Path("/nonexistent"), stroke=1.5)


def test_widen_augmentation_changes_the_letters_width_not_its_height():
    from kiosk.vision.squarenet_train import augment_batch, train

    crop = np.full((CROP_PX + 16, CROP_PX + 16), 200, np.uint8)
    c = crop.shape[0] // 2
    crop[c - 18:c + 18, c - 9:c + 9] = 30              # a vertical bar: 18 px wide, 36 high
    crops = np.repeat(crop[None], 300, 0)

    def extents(widen: float) -> tuple[np.ndarray, np.ndarray]:
        x, turns = augment_batch(crops, np.random.default_rng(5), widen=widen)
        upright = [np.rot90(img[0], -int(k)) < -0.5 for img, k in zip(x, turns)]   # back to the letter's frame
        return (np.array([u.sum(axis=1)[u.any(axis=1)].mean() for u in upright]),  # ink px per row: width
                np.array([u.sum(axis=0)[u.any(axis=0)].mean() for u in upright]))  # ink px per column: height

    w0, h0 = extents(0.0)
    w1, h1 = extents(0.3)
    assert np.std(w1) > 2 * np.std(w0)                  # half the bars made up to 30% wider or narrower
    assert w1.max() > w0.max() + 1 and w1.min() < w0.min() - 1
    assert abs(np.mean(w1) - np.mean(w0)) < 0.5         # as often wider as narrower
    assert np.std(h1) < 1.3 * np.std(h0)                # the height is left as it was
    with pytest.raises(ValueError, match="--widen 1.0: from 0 to below 1"):
        train([], Path("/nonexistent"), widen=1.0)


def _lettered_crop(ink: int, face: int) -> np.ndarray:
    crop = np.full((CROP_PX + 16, CROP_PX + 16), face, np.uint8)
    cv2.putText(crop, "E", (20, 48), cv2.FONT_HERSHEY_SIMPLEX, 1.2, ink, 5)
    crop[:, :4] = ink                                   # the board beside the tile, outside the lettering
    return crop


@pytest.mark.parametrize(("ink", "face"), [(30, 200), (230, 40)])
def test_element_lettering_redraws_the_letter_as_dots_pixels_or_scan_lines(ink, face):
    """Dark ink on a light face and light ink on a dark one: the letter's strokes become separate elements at the
    ink's grey level within the letter's own extent, the face is painted back between them, the board beside the
    tile is left alone; a crop without lettering comes back as it was."""
    from kiosk.vision.squarenet_train import ELEMENT_MARGIN, element_lettering

    crop = _lettered_crop(ink, face)
    c = crop.shape[0]
    mid = np.s_[ELEMENT_MARGIN:c - ELEMENT_MARGIN, ELEMENT_MARGIN:c - ELEMENT_MARGIN]
    letter = np.abs(crop.astype(int) - face) > 80
    ys, xs = np.nonzero(letter[mid])
    rng = np.random.default_rng(2)
    pieces = []
    for _ in range(12):
        out = element_lettering(crop, rng)
        assert out.shape == crop.shape and out.dtype == np.float32
        assert np.array_equal(out[:, :4], crop[:, :4].astype(np.float32))
        drawn = np.abs(out - face) > 80
        assert 0.08 * letter[mid].sum() < drawn[mid].sum() < 1.5 * letter[mid].sum()
        dy, dx = np.nonzero(drawn[mid])
        assert ys.min() - 6 <= dy.min() and dy.max() <= ys.max() + 6
        assert xs.min() - 6 <= dx.min() and dx.max() <= xs.max() + 6
        assert np.median(np.abs(out[drawn] - ink)) < 40     # the elements at the ink's level
        pieces.append(cv2.connectedComponents(drawn[mid].astype(np.uint8))[0] - 1)
    assert cv2.connectedComponents(letter[mid].astype(np.uint8))[0] - 1 == 1
    assert np.median(pieces) >= 8                       # one stroke became many elements
    plain = np.full_like(crop, 150)
    assert np.array_equal(element_lettering(plain, rng), plain.astype(np.float32))


@pytest.mark.parametrize(("ink", "face"), [(30, 200), (230, 40)])
def test_outline_lettering_keeps_the_strokes_edges_or_cuts_their_middle(ink, face):
    """Dark ink on a light face and light ink on a dark one, a letter of thick strokes: redrawn as an outline, the
    strokes' insides are face and their edges ink; with a line cut along them, their middles are face and some of
    the insides still ink; at random, one of the two. Always at the ink's level, inside the letter's own extent, the board
    beside the tile left alone. A crop without lettering, or whose strokes are too thin to hollow, comes back as it
    was; an unknown kind is refused by name."""
    from kiosk.vision.squarenet_train import ELEMENT_MARGIN, outline_lettering

    crop = np.full((CROP_PX + 16, CROP_PX + 16), face, np.uint8)
    cv2.putText(crop, "E", (18, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.4, ink, 9)
    crop[:, :4] = ink                                   # the board beside the tile, outside the lettering
    c = crop.shape[0]
    mid = np.s_[ELEMENT_MARGIN:c - ELEMENT_MARGIN, ELEMENT_MARGIN:c - ELEMENT_MARGIN]
    letter = (np.abs(crop.astype(int) - face) > 80)[mid]
    core = cv2.erode(letter.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0     # 2 px inside the strokes
    near = cv2.dilate(letter.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    rng = np.random.default_rng(5)

    def hollow(kind: str | None) -> list[float]:
        got = []
        for _ in range(12):
            out = outline_lettering(crop, rng, kind)
            assert out.shape == crop.shape and out.dtype == np.float32
            assert np.array_equal(out[:, :4], crop[:, :4].astype(np.float32))
            drawn = (np.abs(out - face) > 0.5 * abs(ink - face))[mid]
            assert 0.15 * letter.sum() <= drawn.sum() < letter.sum() and not (drawn & ~near).any()
            assert np.median(np.abs(out[mid][drawn] - ink)) < 50     # the ink's level (thin walls blur a little)
            got.append(((np.abs(out[mid] - face) < 0.3 * abs(ink - face)) & core).sum() / core.sum())
        return got

    assert min(hollow("outline")) > 0.8                 # the insides are face
    assert min(inline := hollow("inline")) > 0.05 and max(inline) < 0.95   # a line cut, some of the rest ink
    assert min(hollow(None)) > 0.05                     # either kind
    plain = np.full_like(crop, 150)
    assert np.array_equal(outline_lettering(plain, rng), plain.astype(np.float32))
    thin = np.full_like(crop, face)
    cv2.line(thin, (20, 20), (50, 50), ink, 1)         # a hairline: nothing to hollow
    assert np.array_equal(outline_lettering(thin, rng, "outline"), thin.astype(np.float32))
    with pytest.raises(ValueError, match="kind 'dotted'"):
        outline_lettering(crop, rng, "dotted")


@pytest.mark.parametrize(("redraw", "option"), [("element_lettering", "elements"), ("outline_lettering", "outlines")])
def test_each_redrawing_is_a_share_of_the_crops(monkeypatch, redraw, option):
    """``--elements`` and ``--outlines``: a share of the crops is redrawn (none with strength 0 or no share), a crop
    redrawn as elements is not hollowed as well, and a share out of 0..1 is refused by name."""
    from kiosk.vision import squarenet_train
    from kiosk.vision.squarenet_train import augment_batch, check_options

    crops = np.repeat(_lettered_crop(30, 200)[None], 400, 0)
    redrawn = []
    real = getattr(squarenet_train, redraw)
    monkeypatch.setattr(squarenet_train, redraw, lambda img, rng: redrawn.append(1) or real(img, rng))
    augment_batch(crops, np.random.default_rng(4), strength=0.0, **{option: 1.0})
    augment_batch(crops, np.random.default_rng(4))
    assert not redrawn                                  # strength 0, or no share: plain crops
    augment_batch(crops, np.random.default_rng(4), **{option: 0.3})
    assert 90 <= len(redrawn) <= 150                    # about 120 of the 400
    redrawn.clear()
    augment_batch(crops, np.random.default_rng(4), elements=1.0, outlines=1.0)
    assert len(redrawn) == (400 if option == "elements" else 0)    # elements first; never both
    with pytest.raises(ValueError, match=f"--{option} 1.2: a share from 0 to 1"):
        check_options(256, epochs=1, threads=1, per_epoch=256, stroke=0.0, widen=0.0, **{option: 1.2})


def _packaged_pair(name: str) -> tuple[SquareNet, SquareNet, list[str]]:
    """(the shipped square network with its letter network, the square network alone, its labels)."""
    models = resources.files("kiosk.vision.models")
    onnx = (models / f"squares_{name}.onnx").read_bytes()
    labels = json.loads((models / f"squares_{name}.json").read_text("utf-8"))["labels"]
    return default_square_net(name), SquareNet(onnx, labels), labels


@pytest.mark.parametrize("seed, tiles", [(700001, "english"), (700002, "german")])
def test_letter_network_shares_only_the_lettered_tile_probability(seed, tiles):
    """With the letter network the square network's P(empty) and P(blank) are kept; the rest is shared among the
    letters by the letter network wherever it is at least LETTER_NET_FROM (elsewhere the square network's own
    reading stands); the lettered tiles of a frame read at least as well as by the square network alone."""
    both, alone, labels = _packaged_pair(tiles)
    assert both.letter_net is not None and alone.letter_net is None
    fr = _frame(seed, tiles)
    h = locate.from_corners(fr.image, fr.grid_corners_px)
    grey = cv2.cvtColor(warp_canvas(fr.image, h)[0], cv2.COLOR_BGR2GRAY)
    squares = [sq for sq in range(225) if sq not in fr.occluded]
    crops = [cell_crop(grey, sq, GROW_PX) for sq in squares]
    p, q = both.probabilities(crops), alone.probabilities(crops)
    assert np.allclose(p[:, :2], q[:, :2], atol=1e-6)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    low = q[:, 2:].sum(axis=1) < LETTER_NET_FROM
    assert low.any() and np.array_equal(p[low], q[low])      # empty squares: the square network's reading
    tiles_at = [i for i, sq in enumerate(squares) if fr.truth[sq // 15][sq % 15] not in ".?"]
    asked = [i for i in tiles_at if q[i, 2:].sum() >= LETTER_NET_FROM]
    assert len(asked) >= 0.9 * len(tiles_at)      # lettered tiles: the letter network's letters, scaled
    both.letter_net.setInput(prepare([crops[i] for i in asked]))
    shares = softmax_rows(both.letter_net.forward().reshape(len(asked), -1).astype(np.float32))
    assert np.allclose(p[asked, 2:], shares * q[asked, 2:].sum(axis=1, keepdims=True), atol=1e-5)
    truth = [fr.truth[squares[i] // 15][squares[i] % 15] for i in tiles_at]
    pb, pa = both.predict([crops[i] for i in tiles_at]), alone.predict([crops[i] for i in tiles_at])
    assert sum(x.letter == t for x, t in zip(pb, truth)) >= sum(x.letter == t for x, t in zip(pa, truth))


def test_a_letter_network_of_other_labels_or_unreadable_is_refused():
    _, _, labels = _packaged_pair("english")
    models = resources.files("kiosk.vision.models")
    onnx = (models / "squares_english.onnx").read_bytes()
    letters = (models / "letters_english.onnx").read_bytes()
    with pytest.raises(ModelError, match="letters_english.onnx: its labels are not the letter labels"):
        SquareNet(onnx, labels, "squares_english.onnx", (letters, labels[3:], "letters_english.onnx"))
    german = (models / "letters_german.onnx").read_bytes()
    with pytest.raises(ModelError, match="letters_english.onnx: 116 outputs for its 104 letter labels"):
        SquareNet(onnx, labels, "squares_english.onnx", (german, labels[2:], "letters_english.onnx"))
    with pytest.raises(ModelError, match="letters_x.onnx: OpenCV cannot load"):
        SquareNet(onnx, labels, "squares_english.onnx", (b"not a network", labels[2:], "letters_x.onnx"))
    with pytest.raises(ModelError, match="letters_y.onnx: bad label file"):
        SquareNet.from_files(onnx, json.dumps({"labels": labels}), "squares_english.onnx",
                             (letters, "{not json", "letters_y.onnx"))


def test_the_rows_of_crops_read_are_remembered_not_read_again(monkeypatch):
    """:meth:`SquareNet.predict_inputs` given the crops remembers their class probabilities; the letter table of
    the same crop objects (the game-tile rule's, every frame) then runs no network and gives the same rows. A
    crop of the same pixels but another object is read anew; a remembered crop is read-only; at most REMEMBERED
    crops are kept, the least lately used dropped first."""
    from kiosk.vision import squarenet

    net = default_square_net("german")
    fr = _frame(700002, "german")
    grey = cv2.cvtColor(warp_canvas(fr.image, locate.from_corners(fr.image, fr.grid_corners_px))[0],
                        cv2.COLOR_BGR2GRAY)
    crops = [cell_crop(grey, sq, GROW_PX).copy() for sq in range(0, 225, 3)]
    preds = net.predict_inputs(prepare(crops), crops)
    read: list[int] = []
    real = SquareNet.probabilities_of_inputs

    def counted(self, x):  # noqa: ANN001, ANN202
        read.append(len(x))
        return real(self, x)

    monkeypatch.setattr(SquareNet, "probabilities_of_inputs", counted)
    shares, turns = net.letter_table(crops)
    assert read == []                                       # every row remembered
    fresh = default_square_net("german")
    want_shares, want_turns = fresh.letter_table(crops)
    assert read == [len(crops)]
    assert np.allclose(shares, want_shares, atol=1e-6) and np.array_equal(turns, want_turns)
    assert [net.letters[int(i)] for i in shares.argmax(axis=1)] == [q.letter for q in preds]
    copies = [c.copy() for c in crops[:5]]
    want = fresh.probabilities(copies + crops[5:])
    read.clear()
    assert np.allclose(net.probabilities(copies + crops[5:]), want, atol=1e-6)
    assert read == [5]                                      # only the new objects were read
    with pytest.raises(ValueError):
        crops[0][0, 0] = 7                                  # read-only: its row would no longer be its own
    with pytest.raises(ValueError, match="3 crops for 2 network inputs"):
        net.predict_inputs(prepare(crops[:2]), crops[:3])
    view = grey[100:158, 100:158]                           # a view of the canvas: never remembered
    net.predict_inputs(prepare([view]), [view])
    read.clear()
    net.probabilities([view])
    assert read == [1] and view.flags.writeable
    monkeypatch.setattr(squarenet, "REMEMBERED", 10)
    net.probabilities(crops[:1])                            # the first crop lately used: kept
    net.predict_inputs(prepare(copies), copies)
    read.clear()
    net.probabilities([crops[0], *copies])
    assert read == []
    net.probabilities(crops[1:6])
    assert read == [5]                                      # the least lately used were dropped
