"""The demo reads the synthetic camera as the kiosk at a table does: with the game's accepted board as prior."""

from __future__ import annotations

from pathlib import Path

from kiosk.app.record_demo import DemoOptions, run_demo
from kiosk.rules.tiles import load_tile_set
from kiosk.vision.game import prior_from_board
from kiosk.vision.reader import BoardReader


def test_the_demos_reader_is_told_the_kiosks_accepted_board(tmp_path, monkeypatch):
    """``kiosk demo`` (the main job) reads each frame knowing the kiosk's accepted board, as ``kiosk run`` and
    the recording demo do (issue 22's game-aware reader): known tiles are checked rather than read afresh.
    Before, the synthetic demo alone read every frame as if nothing were known."""
    told: list[str | None] = []
    current: list[str] = []      # the kiosk's board when each reading was made (once the kiosk is known)
    real = BoardReader.read
    english = load_tile_set("english")
    kiosks: list = []

    def spy(self, frame, corners=None, known=None, **kw):
        told.append(known)
        current.append(prior_from_board(list(kiosks[0].state.board), english).board if kiosks else "")
        return real(self, frame, corners, known, **kw)

    monkeypatch.setattr(BoardReader, "read", spy)
    accepted: list[str] = []

    def ui(kiosk) -> bool:   # the window closes once three moves lie on the board
        kiosks[:] = [kiosk]
        board = prior_from_board(list(kiosk.state.board), english).board
        if not accepted or accepted[-1] != board:
            accepted.append(board)
        return len(accepted) < 4

    lines: list[str] = []
    res = run_demo(DemoOptions(journal=tmp_path / "demo.sqlite", size=(1014, 760), ui=ui), out=lines.append)
    assert res.code != 2, lines
    assert len(accepted) == 4, lines        # the empty board, then three moves
    assert told and told[0] == "." * 225     # the first frame: nothing known yet
    assert all(k in accepted for k in told), "a reading was told a board the kiosk never accepted"
    known_tiles = {k for k in told if k is not None and k.count(".") < 225}
    assert len(known_tiles) >= 2, "the reader was never told the tiles of the moves already scored"
    # the board told is the one the kiosk holds as the frame is read (a move scored between the two looks aside)
    after_first = [(k, c) for k, c in zip(told, current) if c and c.count(".") < 225]
    assert after_first and sum(k == c for k, c in after_first) >= 0.8 * len(after_first), \
        "the reader is told a board the kiosk no longer holds"


def test_the_demo_reads_with_the_calibration_profile_it_is_given(tmp_path, monkeypatch):
    """``kiosk demo --calibration FILE`` hands the profile to the reader (it was ignored by the synthetic demo);
    a file that is no profile, or a profile of another tile set, is named and the demo does not start."""
    import kiosk.app.record_demo as record_demo

    given: list = []
    real = record_demo.make_reader

    def spy(tile_set, profile=None, corners=None, prior=None):
        given.append(profile)
        return real(tile_set, profile, corners, prior)

    monkeypatch.setattr(record_demo, "make_reader", spy)
    junk = tmp_path / "junk.json"
    junk.write_text('{"junk": 1}')
    lines: list[str] = []
    res = run_demo(DemoOptions(journal=tmp_path / "a.sqlite", size=(1014, 760), calibration=junk), out=lines.append)
    assert res.code == 2 and given == [junk]
    assert lines[-1].startswith("error: the calibration profile") and str(junk) in lines[-1], lines
    german = Path(__file__).resolve().parents[1] / "fixtures" / "profiles" / "scrabscrap-templates.json"
    lines.clear()
    res = run_demo(DemoOptions(journal=tmp_path / "b.sqlite", size=(1014, 760), calibration=german),
                   out=lines.append)
    assert res.code == 2 and "made for german tiles" in lines[-1], lines
