"""The recording demo's judge sees the table as game.csv built it (never a truth file)."""

from __future__ import annotations

import re

import pytest

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


@pytest.mark.slow
@needs_shared
def test_a_recording_without_warp_coord_is_refereed_to_its_final(tmp_path):
    """game.ini without warp-coord (the recording system found the board itself): the kiosk finds the board,
    keeps it from frame to frame, and the game ends with the recorded final; the judge line comes before it."""
    from common_fixtures import TEMPLATES_PROFILE

    from kiosk.app.recording import run_recording

    src = SHARED / "photos" / "scrabscrap" / "game01"
    folder = tmp_path / "game01"
    folder.mkdir()
    for p in src.iterdir():
        if p.suffix in (".jpg", ".csv", ".gcg"):
            (folder / p.name).symlink_to(p)
    ini = [ln for ln in (src / "game.ini").read_text(encoding="utf-8").splitlines() if "warp-coord" not in ln]
    (folder / "game.ini").write_text("\n".join(ini) + "\n", encoding="utf-8")
    lines: list[str] = []
    code = run_recording(folder, journal=tmp_path / "j.sqlite", out=lines.append, calibration=TEMPLATES_PROFILE)
    # the last line agrees with the journal: game01's record ends before the end racks ("not finished: ...")
    assert re.match(r"(final|not finished): Stefan 377, Hanns 374", lines[-1]), "\n".join(lines)
    m = re.fullmatch(r"judge: (\d+) intervention\(s\) \(\d+ square\(s\) corrected\); (\d+) move\(s\) taken back",
                     lines[-2])
    assert m and int(m.group(1)) <= 1 and m.group(2) == "0", "\n".join(lines)
    assert code == 0, "\n".join(lines)
