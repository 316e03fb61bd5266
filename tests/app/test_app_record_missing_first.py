"""The recording demo when the first frame(s) of a game are missing or unreadable: no earlier frame exists, but the
board before the first move is empty, so the judge enters the move from the record as for any missing frame and
the game goes on to its recorded final (before: move 1 "not refereed", every later move "nothing scored
MISMATCH", dozens of judge interventions, ending ``not finished: Stefan 0, Hanns 0``, exit 1)."""

from __future__ import annotations

import re

import pytest

from shared_data import SHARED, needs_shared

JUDGE_LINE = re.compile(r"judge: (\d+) interventions? \(\d+ squares? corrected\); \d+ moves? taken back "
                        r"\(phonies withdrawn after a challenge, as recorded\)")


def _copy_game(src, folder, leave_out):
    folder.mkdir()
    for p in src.iterdir():
        if p.suffix in (".jpg", ".csv", ".gcg", ".ini") and p.name not in leave_out:
            (folder / p.name).symlink_to(p)


@pytest.mark.slow
@needs_shared
@pytest.mark.parametrize(("case", "frames"), [
    ("missing", ("image-1.jpg",)),
    ("truncated", ("image-1.jpg",)),
    ("missing", ("image-1.jpg", "image-2.jpg")),
])
def test_the_first_frames_missing_or_unreadable_are_entered_by_the_judge(tmp_path, case, frames):
    from common_fixtures import TEMPLATES_PROFILE

    from kiosk.app.recording import run_recording

    src = SHARED / "photos" / "scrabscrap" / "game01"
    folder = tmp_path / "game01"
    _copy_game(src, folder, frames)
    if case == "truncated":
        for name in frames:
            (folder / name).write_bytes((src / name).read_bytes()[:2000])
    lines: list[str] = []
    code = run_recording(folder, journal=tmp_path / "j.sqlite", out=lines.append, calibration=TEMPLATES_PROFILE)
    text = "\n".join(lines)
    assert lines[-1] == "final: Stefan 377, Hanns 374", text
    for move, name in enumerate(frames, start=1):
        assert re.search(rf"move {move}: {re.escape(name)}: [^\n]*: the judge enters the move from the record", text), text
    assert "not refereed" not in text and "MISMATCH" not in text, text
    m = JUDGE_LINE.fullmatch(lines[-2])
    assert m and len(frames) <= int(m.group(1)) <= len(frames) + 1, text
    assert f"frames: {'; '.join(frames[:1])}" in text, text
    assert code == 0, text
