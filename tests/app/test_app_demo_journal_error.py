"""The demo's journal failing under it for another reason than a full disk (a disk I/O error: a failing SD card,
a file size limit): the game pauses as ``kiosk run``'s does (one classing, :func:`kiosk.store.pause_sentence`),
the demo says so in a sentence, keeps what was recorded, goes on when writing works again, or else says how to
resume; it ended with a traceback (found by the review with ``ulimit -f 33``)."""

from __future__ import annotations

from kiosk.app.record_demo import BUILTIN_GAME, DemoOptions, run_demo
from kiosk.store import Journal
from kiosk.store.journal import write_failure

SAID = ("The journal cannot be written: disk I/O error. The game is paused; every move before it is kept. Call "
        "the tournament director.")


def _failing_from(monkeypatch, first: int, last: int | None = None) -> None:
    """Journal.append fails (disk I/O error) from its ``first``-th call to its ``last``-th (None: for good)."""
    real_append, calls = Journal.append, [0]

    def failing(self, *a, **kw):
        calls[0] += 1
        if calls[0] >= first and (last is None or calls[0] <= last):
            raise write_failure(self.path, "disk I/O error")
        return real_append(self, *a, **kw)

    monkeypatch.setattr(Journal, "append", failing)


def _three_moves(tmp_path):
    game = tmp_path / "three.gcg"
    game.write_text("".join(BUILTIN_GAME.read_text(encoding="utf-8").splitlines(keepends=True)[:8]),
                    encoding="utf-8")
    return game


def test_a_journal_that_fails_for_good_pauses_the_demo_which_says_so_and_how_to_resume(tmp_path, monkeypatch):
    game, journal = _three_moves(tmp_path), tmp_path / "j.sqlite"
    _failing_from(monkeypatch, 6)   # the 6th event cannot be written, nor any after it
    lines: list[str] = []
    # 10 s without progress ends it: long enough that a reading slowed by a loaded machine is no stall (at 3 s a
    # loaded CI run stalled before the journal failed)
    res = run_demo(DemoOptions(game=game, journal=journal, size=(1014, 760), stall_seconds=10), out=lines.append)
    assert res.code == 1
    said = "\n".join(lines)
    assert f"  {SAID}" in lines and "Traceback" not in said, lines
    assert f"stuck for 10 s at record event 3 (playing): {SAID}" in said
    assert "run the same command again to resume it" in lines[-1]
    monkeypatch.undo()
    j = Journal(journal, readonly=True)
    try:   # what was recorded before the failure is all there: game_started and the 5 events after it
        assert len(j.events(j.games()[-1].id)) == 6
    finally:
        j.close()


def test_the_demo_goes_on_when_the_journal_takes_writes_again(tmp_path, monkeypatch):
    game, journal = _three_moves(tmp_path), tmp_path / "j.sqlite"
    _failing_from(monkeypatch, 6, 9)
    lines: list[str] = []
    res = run_demo(DemoOptions(game=game, journal=journal, size=(1014, 760), stall_seconds=30), out=lines.append)
    assert lines.count(f"  {SAID}") == 1 and "  journal writable again: the game goes on" in lines
    assert "  3 Ada: 10B BORAS +29 = 49  ok" in lines and res.mismatches == ()  # Ada's refused play, again
    assert res.judge_fixes == 0  # the pause was no board problem for the judge to fix
    assert res.code == 1 and "  the record ends here but the game is not over" in lines  # three moves only
    monkeypatch.undo()
    j = Journal(journal, readonly=True)
    try:
        assert "kiosk_resumed" in [e.type for e in j.events(j.games()[-1].id)]
    finally:
        j.close()
