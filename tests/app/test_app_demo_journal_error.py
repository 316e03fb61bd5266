"""The demo's journal failing under it for another reason than a full disk (a disk I/O error: a failing SD card,
a file size limit): the demo says so in a sentence, keeps what was recorded and says how to resume; it ended
with a traceback (found by the review with ``ulimit -f 33``)."""

from __future__ import annotations

from kiosk.app.record_demo import BUILTIN_GAME, DemoOptions, run_demo
from kiosk.store import Journal, JournalError


def test_a_journal_that_fails_mid_game_is_said_and_what_it_holds_resumes(tmp_path, monkeypatch):
    game = tmp_path / "three.gcg"
    game.write_text("".join(BUILTIN_GAME.read_text(encoding="utf-8").splitlines(keepends=True)[:8]),
                    encoding="utf-8")
    journal = tmp_path / "j.sqlite"
    real_append, calls = Journal.append, [0]

    def failing(self, *a, **kw):   # the 6th event cannot be written, nor any after it
        calls[0] += 1
        if calls[0] >= 6:
            raise JournalError(f"{self.path}: cannot write the journal: disk I/O error")
        return real_append(self, *a, **kw)

    monkeypatch.setattr(Journal, "append", failing)
    lines: list[str] = []
    res = run_demo(DemoOptions(game=game, journal=journal, size=(1014, 760)), out=lines.append)
    assert res.code == 1
    said = "\n".join(lines)
    assert "cannot write the journal: disk I/O error" in said and "Traceback" not in said
    assert "run the same command again to resume it" in lines[-1]
    monkeypatch.setattr(Journal, "append", real_append)
    j = Journal(journal, readonly=True)
    try:   # what was recorded before the failure is all there: game_started and the 5 events after it
        assert len(j.events(j.games()[-1].id)) == 6
    finally:
        j.close()
