"""The recording demo's judge sees the table as game.csv built it (never a truth file)."""

from __future__ import annotations

import re

from kiosk.app.record_judge import table_boards
from kiosk.app.recording import read_recording
from shared_data import SHARED, needs_shared


@needs_shared
def test_the_judge_sees_every_frame_as_its_truth_file_says():
    """game.csv alone gives the board of every recorded frame (plays, blanks, a play taken back)."""
    checked = 0
    for d in sorted((SHARED / "photos" / "scrabscrap").glob("game0*")):
        rec = read_recording(d)
        boards = table_boards(rec.presses)
        by_move = {p.move: boards[p.line] for p in rec.presses}
        for t in (d / "truth").glob("image-*.txt"):
            move = int(re.search(r"(\d+)\.txt$", t.name).group(1))
            assert by_move[move] == "".join(t.read_text(encoding="utf-8").split()), f"{d.name} {t.name}"
            checked += 1
    assert checked > 100


def test_a_withdrawn_play_leaves_the_table():
    class Row:
        def __init__(self, line, button, coord, word):
            self.line, self.button, self.coord, self.word = line, button, coord, word

    rows = [Row(2, "green", "H4", "FIRNS"), Row(3, "red", "5G", "V.TeN"), Row(4, "doubt0", "--", "V.TeN")]
    b = table_boards(rows)
    assert b[2][7 * 15 + 3:7 * 15 + 8] == "FIRNS"
    assert b[3][6 * 15 + 4] == "V" and b[3][9 * 15 + 4] == "?"  # 5G: down from G5
    assert b[4] == b[2]
