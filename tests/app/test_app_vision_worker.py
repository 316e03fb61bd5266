"""The vision worker: stable readings only, from frames after the press; failures reported in time."""

import time

from app_fixtures import Clock, GridTable, read_grid

from kiosk.app.vision_worker import VisionWorker


def test_stable_needs_agreeing_frames_and_a_frame_after_the_request():
    clock = Clock()
    table = GridTable(clock)
    w = VisionWorker(table, read_grid, stable_frames=3, clock=clock)
    clock.t = 100
    w.step()
    w.step()
    ticket = w.request(since_ms=200)
    w.step()  # third agreeing frame, but taken at 100 < 200
    assert w.results() == []
    clock.t = 200
    w.step()
    (ans,) = w.results()
    assert ans.ticket == ticket and ans.reading is not None and ans.frame_ms == 200


def test_a_change_restarts_the_run():
    clock = Clock()
    table = GridTable(clock)
    w = VisionWorker(table, read_grid, stable_frames=2, clock=clock)
    w.step()
    w.request(0)
    table.put({112: "A"})
    w.step()
    assert w.results() == []
    w.step()
    (ans,) = w.results()
    assert ans.reading.grid()[7][7] == "A"


def test_reader_errors_and_timeouts_are_answers_not_crashes():
    clock = Clock()
    table = GridTable(clock)

    def broken(frame):
        raise RuntimeError("model file damaged")

    w = VisionWorker(table, broken, timeout_ms=300, clock=clock)
    w.request(0)
    w.step()
    assert w.results() == []
    time.sleep(0.35)  # wall-clock time: a frozen (simulated) kiosk clock must not stall a request forever
    w.step()
    (ans,) = w.results()
    assert ans.reading is None and "model file damaged" in ans.error


def test_thread_answers_requests():
    clock = Clock()
    table = GridTable(clock)
    w = VisionWorker(table, read_grid, interval_ms=10, clock=clock).start()
    try:
        ticket = w.request()
        deadline = time.monotonic() + 5
        got = []
        while not got and time.monotonic() < deadline:
            got = w.results()
            time.sleep(0.005)
        assert got and got[0].ticket == ticket
    finally:
        w.stop()


def test_timeouts_follow_the_injected_timer_not_a_hidden_clock():
    clock = Clock()
    table = GridTable(clock)
    elapsed = [100.0]
    table.fail = "cable unplugged"
    w = VisionWorker(table, read_grid, timeout_ms=300, clock=clock, timer=lambda: elapsed[0])
    w.request(0)
    w.step()
    elapsed[0] += 0.299
    w.step()
    assert w.results() == []
    elapsed[0] += 0.001  # 300 ms on the worker's timer, no wall-clock time at all
    w.step()
    (ans,) = w.results()
    assert ans.reading is None and "cable unplugged" in ans.error


def test_a_worker_following_the_game_keeps_known_tiles_and_drops_unreachable_doubts():
    from kiosk.rules.tiles import load_tile_set
    from kiosk.vision.game import GameReader, prior_from_board

    clock = Clock()
    table = GridTable(clock)
    board = [""] * 225
    for i, ch in enumerate("CAT"):
        board[7 * 15 + 6 + i] = ch
    table.put({7 * 15 + 6: "C", 7 * 15 + 7: "#", 7 * 15 + 8: "T", 0: "#", 8 * 15 + 7: "#"})
    english = load_tile_set("english")
    game = GameReader(lambda frame, corners, known, **where: read_grid(frame), english,
                      prior=lambda: prior_from_board(board, english))
    w = VisionWorker(table, game, stable_frames=1, clock=clock)
    w.request(0)
    w.step()
    (ans,) = w.results()
    rows = ans.reading.grid()
    assert rows[7][6:9] == "CAT"          # the A read unsure is the known A
    assert rows[0][0] == "."              # A1: no move can reach it
    assert rows[8][7] == "#"              # H9, beside the A: the judge looks


def test_a_failure_says_why_the_frame_was_not_usable_and_nothing_else():
    """``StableReading.unusable`` carries the reader's verdict for a frame it could not use (the recording demo
    names the frame with it); a camera failure or a frame read fine leaves it empty."""
    from kiosk.vision.reading import BoardReading

    clock = Clock()
    table = GridTable(clock)

    def hand(frame):
        return BoardReading.unreadable("hand over the board")

    w = VisionWorker(table, hand, timeout_ms=300, clock=clock, still=True)
    w.request(0)
    w.step()
    (ans,) = w.results()
    assert ans.reading is None and ans.unusable == "hand over the board"
    w = VisionWorker(table, read_grid, stable_frames=1, clock=clock, still=True)
    w.request(0)
    w.step()
    (ans,) = w.results()
    assert ans.reading is not None and ans.unusable == ""
    table.fail = "camera unplugged"
    w = VisionWorker(table, read_grid, timeout_ms=300, clock=clock)
    w.request(0)
    w.step()
    time.sleep(0.35)
    w.step()
    (ans,) = w.results()
    assert ans.reading is None and "camera unplugged" in ans.error and ans.unusable == ""


def test_a_request_on_the_wall_clock_is_answered_by_frames_stamped_on_the_monotonic_clock():
    """kiosk run stamps presses with wall-clock ms (about 1.8e12) and its cameras stamp frames with the
    monotonic clock (ms since boot): no frame was ever 'after the press', so every press at a real table
    timed out with 'no stable reading within 15 s'. The request is moved to the frames' clock by its age."""
    mono = Clock()
    mono.t = 5_000
    wall = 1_800_000_000_000
    table = GridTable(mono)
    w = VisionWorker(table, read_grid, stable_frames=1, clock=lambda: wall + mono.t, frame_clock=mono)
    mono.t = 6_000
    w.step()                                  # a frame before the press
    ticket = w.request(wall + 6_500)          # the press, 500 ms later on the wall clock
    mono.t = 6_200
    w.step()                                  # still before the press
    assert w.results() == []
    mono.t = 6_700
    w.step()                                  # after it
    (ans,) = w.results()
    assert ans.ticket == ticket and ans.reading is not None and ans.frame_ms == 6_700


def test_the_readers_note_is_kept_and_logged_once_when_it_appears(caplog):
    """A reading's note (the tiles' lettering unfamiliar: calibrate) reaches the worker and the log, once."""
    import dataclasses
    import logging

    clock = Clock()
    table = GridTable(clock)
    note = "the tiles' lettering is unfamiliar to the reader: calibrate the tile set (kiosk calibrate glyphs)"
    noted = [True]

    def read(frame):
        reading = read_grid(frame)
        return dataclasses.replace(reading, note=note if noted[0] else "")

    w = VisionWorker(table, read, clock=clock)
    with caplog.at_level(logging.WARNING, logger="kiosk.vision"):
        w.step()
        clock.t += 10
        table.put({112: "A"})
        w.step()
    assert w.note == note
    assert [r.getMessage() for r in caplog.records].count(f"board reader: {note}") == 1
    noted[0] = False
    clock.t += 10
    table.put({113: "B"})
    w.step()
    assert w.note == ""


def test_a_new_tile_read_doubtful_is_not_fused_as_the_empty_square_it_was():
    """A tile laid just before the press and read '#' in the frame after it must not vanish into the empty square
    the frames before it show: it is unsure, for the judge. Before, the doubt did not count, the older frames'
    "empty" won, and the kiosk scored a laid move as a pass (the built-in demo at the hard level: 11A RIDS +0)."""
    clock = Clock()
    table = GridTable(clock)
    w = VisionWorker(table, read_grid, stable_frames=2, clock=clock)   # as the kiosk and the demo
    clock.t = 100
    w.step()
    w.step()                       # the board still, before the move: H8 empty in both
    table.put({112: "#"})          # the tile laid, read doubtful
    clock.t = 200
    ticket = w.request(since_ms=200)
    answers = []
    for _ in range(4):
        w.step()
        answers += w.results()
    (ans,) = answers
    assert ans.ticket == ticket
    assert ans.reading.grid()[7][7] == "#"        # unsure, for the judge; it was fused as '.'
    table.put({112: "."})          # read empty again: the frames settle it as empty
    clock.t = 300
    w.request(since_ms=300)
    answers = []
    for _ in range(4):
        w.step()
        answers += w.results()
    assert answers and answers[0].reading.grid()[7][7] == "."


def test_the_worker_counts_the_frames_that_gave_no_usable_reading():
    """The demo's closing line said 'vision: 813 frames read' where 700 of them gave no usable reading (the hard
    level at 760x570): the worker now counts those apart (a hand, blur, no board, the reader failing), and the
    line says 'N frames read (K of them unusable: ...)'."""
    from kiosk.vision.reading import BoardReading

    clock = Clock()
    table = GridTable(clock)
    kinds = iter(["ok", "hand", "ok", "raise", "ok"])

    def reader(frame):
        kind = next(kinds)
        if kind == "hand":
            return BoardReading.unreadable("hand over the board", board_found=True)
        if kind == "raise":
            raise RuntimeError("the glyph model broke")
        return read_grid(frame)

    w = VisionWorker(table, reader, clock=clock)
    for _ in range(5):
        clock.t += 100
        w.step()
    assert (w.frames_read, w.frames_unusable) == (5, 2)
