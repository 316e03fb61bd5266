"""A recording folder with a missing or unreadable frame: the frame is named, the judge enters that move from
the record (as at a table whose camera failed), and the game goes on - no traceback, no cascade of mismatches.

The recording here is the opening of ScrabScrap's game01 (11 moves, written out below), its frames drawn as
15x15 images whose pixels are the letters on the board; the reader reads those pixels back (the real reader
is tested on the real frames in test_app_demo_e2e)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from kiosk.app import recording
from kiosk.vision.reading import BoardReading

CSV = """Move, Button, State, Coord, Word, Points, Score1, Score2
1, "green", "S1", "H4", "FIRNS", 24, 24, 0
2, "red", "S0", "5G", "V.TEN", 20, 24, 20
3, "green", "S1", "J2", "MÖS.", 19, 43, 20
4, "red", "S0", "3I", "K.DER", 38, 43, 58
5, "green", "S1", "N1", "WANK", 34, 77, 58
6, "red", "S0", "8C", "GUMMI.", 12, 77, 70
7, "green", "S1", "C3", "SPRUN.", 22, 99, 70
8, "red", "S0", "E5", "HAL.S", 18, 99, 88
9, "green", "S1", "6J", "NY", 40, 139, 88
10, "red", "S0", "7K", "ST", 14, 139, 102
11,"green", "S1", "G7", "O.E", 12, 151, 102
"""


def _boards() -> list[list[str]]:
    """The board after each move (225 strings), placed straight from the record's notation."""
    board = [""] * 225
    out = []
    for line in CSV.splitlines()[1:]:
        cells = [c.strip().strip('"') for c in line.split(",")]
        coord, word = cells[3], cells[4]
        across = coord[0].isalpha()
        r, c = (ord(coord[0]) - 65, int(coord[1:]) - 1) if across else (ord(coord[-1]) - 65, int(coord[:-1]) - 1)
        for i, ch in enumerate(word):
            sq = (r * 15 + c + i) if across else ((r + i) * 15 + c)
            if ch != ".":
                board[sq] = ch
        out.append(list(board))
    return out


MARK = 255  # the board's top edge: a row of white pixels above the 15 rows of squares


def _pixels(board: list[str]) -> np.ndarray:
    squares = np.array([ord(ch) if ch else 0 for ch in board], dtype=np.uint8).reshape(15, 15)
    return np.vstack([np.full((1, 15), MARK, np.uint8), squares])


def _png(img: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", img)  # lossless, whatever the file's name says
    assert ok
    return data.tobytes()


def _frame(board: list[str]) -> bytes:
    return _png(_pixels(board))


def _read_pixels(frame: np.ndarray) -> BoardReading:
    """The squares' pixels read back; like the real reader, a frame without contrast, without the board where
    it should be (another size) or with the board turned gives no usable reading, saying why."""
    px = frame[..., 0] if frame.ndim == 3 else frame
    if int(px.max()) - int(px.min()) < 20:
        return BoardReading.unreadable("blank frame (no contrast: camera covered, off or overexposed)")
    if px.shape == (15, 16) and (px[:, 0] == MARK).all():
        return BoardReading.unreadable("board turned: most letters read 90 degrees turned", board_found=True)
    if px.shape != (16, 15) or not (px[0] == MARK).all():
        return BoardReading.unreadable("no board found")
    return BoardReading.from_grid(["".join(chr(v) if v else "." for v in row) for row in px[1:]])


@pytest.fixture
def folder(tmp_path, monkeypatch):
    d = tmp_path / "game01"
    d.mkdir()
    # no warp-coord: the frames are the squares' pixels (16x15 px), read back by _read_pixels; corners there would
    # make squares of 1 px, which no camera's grid can be (kiosk.vision.corners)
    (d / "game.ini").write_text("[default]\nname1 = Ann\nname2 = Bob\n", encoding="utf-8")
    (d / "game.csv").write_text(CSV, encoding="utf-8")
    for n, board in enumerate(_boards(), 1):
        (d / f"image-{n}.jpg").write_bytes(_frame(board))
    monkeypatch.setattr(recording, "make_reader", lambda *a, **k: _read_pixels)
    return d


def _run(d, tmp_path):
    lines: list[str] = []
    code = recording.run_recording(d, journal=tmp_path / "j.sqlite", out=lines.append)
    return code, lines


def test_the_synthetic_recording_is_refereed_to_every_score(folder, tmp_path):
    code, lines = _run(folder, tmp_path)
    assert code == 0, "\n".join(lines)
    assert lines[-1] == "final: Ann 151, Bob 102"
    # what it reads with and where its journal is are said first (a tester found neither said)
    assert lines[0].startswith("no calibration: no letter images beside the recording"), lines[0]
    assert lines[1].endswith(f"; journal {tmp_path / 'j.sqlite'}"), lines[1]
    lines.clear()
    j = tmp_path / "open.sqlite"     # a journal holding an unfinished game: refused, saying why and what to do
    from kiosk.referee.events import GameStarted
    from kiosk.store import GameSession
    session = GameSession.open(j)
    assert session.apply(GameStarted(t=0, preset=recording.recording_preset().to_dict(), players=("Ann", "Bob"),
                                     first=0, game_id="x"))
    session.close()
    assert recording.run_recording(folder, journal=j, out=lines.append) == 2
    assert any("a recording is refereed from its first move, never resumed; give another --journal path" in ln
               for ln in lines), lines


def test_a_missing_and_an_empty_frame_are_named_and_the_judge_enters_those_moves(folder, tmp_path):
    (folder / "image-5.jpg").unlink()
    (folder / "image-7.jpg").write_bytes(b"")
    (folder / "image-9.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a jpeg")
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    assert "move 5: image-5.jpg: missing: the judge enters the move from the record (N1 WANK, 4 tiles)" in text
    assert "move 7: image-7.jpg: empty file: the judge enters the move from the record" in text
    assert "move 9: image-9.jpg: not a readable image" in text
    assert "MISMATCH" not in text and "mismatch:" not in text  # no cascade: every later move agrees
    assert "frames: image-5.jpg: missing; image-7.jpg: empty file; image-9.jpg: not a readable image" in text
    assert lines[-1] == "final: Ann 151, Bob 102"


def test_frames_that_give_no_usable_reading_are_named_and_the_judge_enters_those_moves(folder, tmp_path):
    """A black frame, a frame of another size and a turned frame are images, but the reader finds no board in
    them: each is named with the reader's reason, the judge enters that move from the record over the last
    good frame (one intervention each), and every later move agrees - no message of the bad frame comes back
    at a later move (before: nobody entered the move, every later press saw two moves' tiles)."""
    boards = _boards()
    (folder / "image-5.jpg").write_bytes(_png(np.zeros((16, 15), np.uint8)))
    (folder / "image-7.jpg").write_bytes(_png(cv2.resize(_pixels(boards[6]), (30, 32),
                                                         interpolation=cv2.INTER_NEAREST)))
    (folder / "image-9.jpg").write_bytes(_png(np.rot90(_pixels(boards[8]), 1)))
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    assert ("move 5: image-5.jpg: no usable reading (blank frame (no contrast: camera covered, off or "
            "overexposed)): the judge enters the move from the record (N1 WANK, 4 tiles) over the last frame") \
        in text
    assert "move 7: image-7.jpg: no usable reading (no board found): the judge enters the move from the record " \
        "(C3 SPRUN., 5 tiles)" in text
    assert "move 9: image-9.jpg: no usable reading (board turned: most letters read 90 degrees turned): the " \
        "judge enters the move from the record (6J NY, 2 tiles)" in text
    assert "MISMATCH" not in text and "mismatch:" not in text, text
    assert "asks the judge" not in text, text  # no stale problem of a bad frame reported at a later move
    assert "frames: image-5.jpg: no usable reading (blank frame" in text
    assert lines[-2] == ("judge: 3 interventions (11 squares corrected); 0 moves taken back (phonies "
                         "withdrawn after a challenge, as recorded)"), text
    assert lines[-1] == "final: Ann 151, Bob 102"


def test_a_frame_the_reader_fails_on_is_named_and_entered_by_the_judge(folder, tmp_path, monkeypatch):
    """The reader raising on a frame is one more way to give no usable reading: named, entered, the game on."""
    fifth = _pixels(_boards()[4])

    def reader(frame: np.ndarray) -> BoardReading:
        px = frame[..., 0] if frame.ndim == 3 else frame
        if px.shape == fifth.shape and (px == fifth).all():  # move 5's frame alone
            raise RuntimeError("the glyph model broke")
        return _read_pixels(frame)

    monkeypatch.setattr(recording, "make_reader", lambda *a, **k: reader)
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    assert "move 5: image-5.jpg: no usable reading (the board reader failed on this frame: the glyph model broke): " \
        "the judge enters the move from the record (N1 WANK, 4 tiles)" in text
    assert "MISMATCH" not in text and "asks the judge" not in text, text
    assert "RuntimeError" not in text and "Traceback" not in text, text   # a sentence, never the exception's class
    assert lines[-2].startswith("judge: 1 intervention (4 squares corrected)"), text


def test_a_blank_first_frame_is_named_and_its_move_entered_by_the_judge(folder, tmp_path):
    """Move 1's frame gives no reading and no earlier frame can stand in: the judge enters the move over the
    empty board (before, the move was not refereed and every later move went wrong: a tester's game ended 0:0)."""
    (folder / "image-1.jpg").write_bytes(_png(np.zeros((16, 15), np.uint8)))
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    assert "move 1: image-1.jpg: no usable reading (blank frame (no contrast: camera covered, off or " \
           "overexposed)): the judge enters the move from the record (" in text, text
    assert "over the board as it stands (no frame before it to read)" in text, text
    assert "MISMATCH" not in text and "not refereed" not in text, text
    assert lines[-2].startswith("judge: 1 intervention ") and lines[-1].startswith("final: "), text


def test_a_press_after_an_unusable_first_frame_does_not_blame_its_good_frame(folder, tmp_path):
    """Move 2's frame is good: it must not be named unusable with move 1's reason (the kiosk's
    ``view.unusable_frame`` describes the last press, not an earlier one), and its press is taken."""
    (folder / "image-1.jpg").write_bytes(_png(np.zeros((16, 15), np.uint8)))
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    assert "the press was not taken" not in text and "image-2.jpg" not in text, text


def test_a_missing_first_frame_is_named_and_its_move_entered_by_the_judge(folder, tmp_path):
    (folder / "image-1.jpg").unlink()
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    assert "move 1: image-1.jpg: missing: the judge enters the move from the record (" in text, text
    assert "mismatch" not in text.lower() and "Traceback" not in text, text


def test_the_summary_names_the_frames_whose_moves_the_judge_entered(folder, tmp_path):
    """Move 1's frame is missing and move 3's is blank: the judge enters both (move 1 over the empty board, move 3
    over move 2's frame), and the summary names both."""
    (folder / "image-1.jpg").unlink()
    (folder / "image-3.jpg").write_bytes(_png(np.zeros((16, 15), np.uint8)))
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    summary = [ln for ln in lines if ln.startswith("frames: ")]
    assert len(summary) == 1 and summary[0].startswith("frames: image-1.jpg: missing; image-3.jpg: no usable reading"), text
    assert summary[0].endswith("(those moves were entered by the judge from the record)"), text
    assert lines[-2].startswith("judge: 2 interventions "), text


def test_a_press_just_after_its_frame_was_read_is_answered():
    """A still camera on a virtual clock: the frame of the press was read just before the press came; the
    next capture is the very same frame, so nothing new is read - the last reading must answer the press
    (before, it waited 15 s and failed with a stale camera error, and every later move was off by one)."""
    from kiosk.app.vision_worker import VisionWorker

    board = _boards()[0]
    frame = cv2.cvtColor(cv2.imdecode(np.frombuffer(_frame(board), np.uint8), cv2.IMREAD_GRAYSCALE),
                         cv2.COLOR_GRAY2BGR)

    class Still:
        def capture(self):
            return 30_000, frame

    w = VisionWorker(Still(), _read_pixels, stable_frames=1, clock=lambda: 30_000)
    w.step()  # the frame is read before the press arrives
    ticket = w.request(30_000)
    w.step()  # the same frame again
    got = w.results()
    assert [r.ticket for r in got] == [ticket] and got[0].reading is not None
    assert "".join(got[0].reading.grid()).count("F") == 1


def test_the_end_of_the_record_is_a_director_stop_the_journal_keeps(folder, tmp_path):
    """The record stops before the end racks: the director stops the game with the scores as they stand (seed
    002 III.G). The journal holds the game over (not a game to resume), no rack or time adjustment is made,
    and the GCG written from it ends at the recorded totals."""
    from kiosk.referee.gcg_export import export_gcg
    from kiosk.referee.kinds import EndReason
    from kiosk.referee.referee import Referee
    from kiosk.store.journal import Journal

    code, lines = _run(folder, tmp_path)
    assert code == 0, "\n".join(lines)
    assert "  the record ends here: the director stops the game with the scores as they stand" in lines
    journal = Journal(tmp_path / "j.sqlite")
    try:
        assert journal.unfinished_game() is None
        [game] = journal.games()
        st = Referee.from_events(journal.events(game.id)).state
    finally:
        journal.close()
    assert st.result is not None and st.result.reason == EndReason.STOPPED
    assert tuple(st.result.final) == (151, 102) and tuple(st.result.rack_adjust) == (0, 0)
    moves = [ln for ln in export_gcg(st).splitlines() if ln.startswith(">")]
    assert moves[-1].endswith(" 151") and [m for m in moves if m.startswith(">Bob")][-1].endswith(" 102"), moves


def test_a_record_the_kiosk_disagrees_with_is_not_closed(folder, tmp_path):
    """With no frame for move 1 nothing can be refereed: the kiosk's game and the record disagree, so the game
    is not closed at the record's end (before this, a director's stop made it 'final' at 0:0); the journal
    keeps it unfinished and the last line says so."""
    from kiosk.store.journal import Journal

    for n in range(1, 13):
        (folder / f"image-{n}.jpg").unlink(missing_ok=True)
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 1, text
    assert "  the record ends here; the game stays open: the kiosk and the record disagree (below)" in lines, text
    assert lines[-1].startswith("not finished: Ann 0, Bob 0 (the game was not closed"), text
    journal = Journal(tmp_path / "j.sqlite")
    try:
        assert journal.unfinished_game() is not None
    finally:
        journal.close()


def test_without_journal_the_demo_journals_into_a_temporary_one_it_removes(folder, tmp_path, monkeypatch):
    """No --journal: the first line says the journal is a temporary one, removed at the end, and nothing is
    left in the temporary folder after the run (a tester found /tmp/kiosk-recording-*/journal.sqlite kept for
    every run). The last line of a game left open says nothing of a journal keeping it."""
    import tempfile

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    lines: list[str] = []
    assert recording.run_recording(folder, out=lines.append) == 0, "\n".join(lines)
    assert lines[1].endswith("; journal: a temporary one, removed at the end (--journal PATH keeps it)"), lines[1]
    assert lines[-1] == "final: Ann 151, Bob 102"
    assert list(temp.iterdir()) == []
    for n in range(1, 13):
        (folder / f"image-{n}.jpg").unlink(missing_ok=True)
    lines.clear()
    assert recording.run_recording(folder, out=lines.append) == 1, "\n".join(lines)
    assert lines[-1] == "not finished: Ann 0, Bob 0 (the game was not closed)", lines[-1]
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_demo_removes_its_temporary_journal(folder, tmp_path, monkeypatch, stop):
    import tempfile

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))

    def interrupted(self):
        assert list(temp.glob("kiosk-recording-*/journal.sqlite")), "the journal is made before the game runs"
        raise stop("stopped")

    monkeypatch.setattr(recording._Referee, "run", interrupted)
    with pytest.raises(stop):
        recording.run_recording(folder, out=[].append)
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize(("data", "said"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "game.gcg:3: binary data (a NUL byte), not a GCG record"),
    (b"#player1 Ann Ann\n#player2 Bob Bob\n\x03\x04\x05\x06", "game.gcg:3: binary data (the control byte 0x03), "
                                                              "not a GCG record"),
    (None, "game.gcg: is a folder, not a GCG record"),
])
def test_a_game_gcg_that_cannot_be_used_is_named_and_left_out(folder, tmp_path, data, said):
    """game.gcg is optional (it gives the blanks' letters and is checked against game.csv): one of binary data (or a
    folder) was ignored without a word. It is named with why, as a warning; the game is refereed from game.csv."""
    if data is None:
        (folder / "game.gcg").mkdir()
    else:
        (folder / "game.gcg").write_bytes(data)
    code, lines = _run(folder, tmp_path)
    assert code == 0, "\n".join(lines)
    assert f"warning: {folder / said}: game.gcg is left out (the kiosk follows game.csv alone; a blank's letter only " \
           "game.gcg gives is not known)" in lines, "\n".join(lines)
    assert lines[-1] == "final: Ann 151, Bob 102"
    assert not any(ln.startswith("record") for ln in lines), "\n".join(lines)


def test_a_latin1_game_gcg_is_no_binary_data(folder, tmp_path):
    """GCG files are Latin-1 unless they declare another encoding (the real recordings' are): not a warning."""
    (folder / "game.gcg").write_bytes("#player1 Ann Ann\n#player2 Bob Bob\n#title Nürnberger Trichter\n".encode("latin-1"))
    code, lines = _run(folder, tmp_path)
    assert code == 0 and not any(ln.startswith("warning") for ln in lines), "\n".join(lines)


def test_frames_of_one_kind_of_fault_are_said_together():
    from kiosk.app.record_frames import grouped

    problems = [f"image-{n}.jpg: no usable reading (grid uncertain: {40 + n} of the {50 + n} squares are unsure)"
                for n in range(1, 6)] + ["image-6.jpg: missing", "image-7.jpg: no usable reading (hand over the "
                                         "board)", "image-8.jpg: missing"]
    assert grouped(problems) == (
        "image-1.jpg, image-2.jpg, ... image-5.jpg (5 frames): no usable reading (grid uncertain: 41 of the 51 "
        "squares are unsure) and the like; image-6.jpg, image-8.jpg: missing; image-7.jpg: no usable reading "
        "(hand over the board)")
    assert grouped(["image-2.jpg: empty file"]) == "image-2.jpg: empty file"


def _grey_photo() -> np.ndarray:
    return np.repeat(np.linspace(0, 200, 64, dtype=np.uint8)[None, :], 48, axis=0)


def test_greyscale_frames_are_counted_and_the_first_named(tmp_path):
    from kiosk.app.record_frames import greyscale_without_corners

    (tmp_path / "image-1.jpg").write_bytes(b"")                            # unreadable: passed over
    (tmp_path / "image-2.jpg").write_bytes(_png(cv2.merge([_grey_photo(), _grey_photo() // 2, _grey_photo()])))
    (tmp_path / "image-3.jpg").write_bytes(_png(np.full((48, 64), 9, np.uint8)))   # blank: named as blank
    frames = [tmp_path / f"image-{n}.jpg" for n in (1, 2, 3)]
    assert greyscale_without_corners(frames) is None
    (tmp_path / "image-4.jpg").write_bytes(_png(_grey_photo()))
    assert greyscale_without_corners([*frames, tmp_path / "image-4.jpg"]) == (
        "image-4.jpg: the photo is greyscale (it has no colour); the reader finds the board by its colours, so "
        "without the board's corners (warp-coord in game.ini) it cannot read a greyscale frame: give warp-coord "
        "to have them read")


def test_the_closing_lines_name_greyscale_frames_the_reader_could_not_use(folder, tmp_path):
    """The reader finds the board without corners by its colours: greyscale frames of a recording without
    warp-coord give no usable reading, and the closing lines say why after naming them."""
    for n in (2, 3):
        (folder / f"image-{n}.jpg").write_bytes(_png(_grey_photo()))
    (folder / "image-4.jpg").write_bytes(_png(cv2.merge([_grey_photo(), _grey_photo() // 2, _grey_photo()])))
    _, lines = _run(folder, tmp_path)
    assert lines[-5].startswith("frames: image-2.jpg, image-3.jpg, image-4.jpg: no usable reading (no board "
                                "found)"), lines[-5:]
    assert lines[-4] == ("why: 2 of those frames (image-2.jpg the first): the photo is greyscale (it has no "
                         "colour); the reader finds the board by its colours, so without the board's corners "
                         "(warp-coord in game.ini) it cannot read a greyscale frame: give warp-coord to have them "
                         "read")


@pytest.mark.parametrize("bad, reason", [
    ({}, ""),
    ({9: b"\xff\xd8\xff\xe0 cut short"}, "not a readable image"),          # was "vision: 11 frames read"
    ({5: _png(np.zeros((16, 15), np.uint8))}, "no usable reading"),        # was "vision: 12 frames read"
    ({3: None, 7: _png(np.zeros((16, 15), np.uint8))}, "missing"),
])
def test_the_vision_line_counts_the_frames_read_and_names_those_that_could_not_be(folder, tmp_path, bad, reason):
    """Found by a tester: 'vision: 27 frames read' with a truncated frame, 28 with a blank one (the reader's calls,
    the good frame read again after a bad one too): the count said nothing of the frame that could not be read.
    Now it counts the recording's frames read and those that could not be, naming them."""
    for move, data in bad.items():
        if data is None:
            (folder / f"image-{move}.jpg").unlink()
        else:
            (folder / f"image-{move}.jpg").write_bytes(data)
    code, lines = _run(folder, tmp_path)
    text = "\n".join(lines)
    assert code == 0, text
    vision = [ln for ln in lines if ln.startswith("vision: ")]
    assert len(vision) == 1, text
    names = ", ".join(f"image-{m}.jpg" for m in sorted(bad))
    want = f"vision: {11 - len(bad)} of 11 frames read in "
    assert vision[0].startswith(want), vision[0]
    if bad:
        assert vision[0].endswith(f"; {len(bad)} could not be: {names} (why: the frames: line above)"), vision[0]
        assert any(ln.startswith("frames: ") and reason in ln for ln in lines), text
    else:
        assert "could not be" not in vision[0]
