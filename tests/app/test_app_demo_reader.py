"""The demo reads the synthetic camera as the kiosk at a table does: with the game's accepted board as prior."""

from __future__ import annotations

from kiosk.app.record_demo import DemoOptions, run_demo
from kiosk.rules.tiles import load_tile_set
from kiosk.vision.game import prior_from_board
from kiosk.vision.reader import BoardReader


def test_the_demos_reader_is_told_the_kiosks_accepted_board(tmp_path, monkeypatch):
    """``kiosk demo`` (the main job) reads each frame knowing the kiosk's accepted board, as ``kiosk run`` and
    the recording demo do (issue 22's game-aware reader): known tiles are checked rather than read afresh.
    Before, the synthetic demo alone read every frame as if nothing were known."""
    told: list[str | None] = []
    real = BoardReader.read

    def spy(self, frame, corners=None, known=None, **kw):
        told.append(known)
        return real(self, frame, corners, known, **kw)

    monkeypatch.setattr(BoardReader, "read", spy)
    english = load_tile_set("english")
    accepted: list[str] = []

    def ui(kiosk) -> bool:   # the window closes once three moves lie on the board
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
