"""``kiosk journal recover`` / ``show``: what they say, in sentences with what to do, and their exit codes (a
tester's findings)."""

from __future__ import annotations

import errno

from kiosk.cli import main
from kiosk.store import JournalFull
from tests.store.journal_fixtures import write_damaged_journal, write_finished_journal


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_recover_in_a_folder_it_cannot_write_says_what_to_do_exit_2(tmp_path, monkeypatch, capsys):
    path = tmp_path / "j.sqlite"
    write_damaged_journal(path)
    before = _names(tmp_path)

    def refused(*_a, **_k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("kiosk.store.journal.take_lock", refused)   # as in a read-only folder
    assert main(["journal", "recover", str(path)]) == 2    # an output that cannot be written (README's convention)
    err = capsys.readouterr().err
    assert "nothing was recovered: the fresh journal cannot be written in" in err and "permission denied" in err
    assert f"kiosk journal recover NEW.sqlite --from {tmp_path / 'j.sqlite.corrupt-1'}" in err
    assert "in a folder you can write to" in err and ".lock: cannot open" not in err
    # kiosk run has no --journal option: a table's journal is its config's [table] journal key
    assert "`--journal NEW.sqlite`" not in err
    assert '`journal = "/full/path/NEW.sqlite"` in the [table] section of its config file' in err
    assert _names(tmp_path) == before


def test_recover_on_a_full_disk_says_what_to_do_and_leaves_nothing_stray(tmp_path, monkeypatch, capsys):
    path = tmp_path / "j.sqlite"
    write_damaged_journal(path)
    before = _names(tmp_path)

    def full(self, fn, *args):
        raise JournalFull(f"{self.path}: the disk is full - the event was NOT recorded")

    monkeypatch.setattr("kiosk.store.journal.Journal._write", full)
    assert main(["journal", "recover", str(path)]) == 2
    err = capsys.readouterr().err
    assert "(its disk is full)" in err and f"free some space on its disk and run `kiosk journal recover {path}` again" \
        in err and f"{path} stays blocked" in err
    assert _names(tmp_path) == before   # no fresh journal, no -wal/-shm, no set-aside file left behind
    monkeypatch.undo()
    assert main(["journal", "recover", str(path)]) == 0   # once there is room


def _finished(path):
    return write_finished_journal(path)


def test_show_says_a_file_cut_in_its_header_is_cut_short_and_that_nothing_is_to_recover(tmp_path, capsys):
    full = _finished(tmp_path / "full.sqlite")
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(full.read_bytes()[:50])
    assert main(["journal", "show", str(cut)]) == 2   # nothing in it to recover: an unusable input (README)
    err = capsys.readouterr().err
    assert "the file is cut short: it ends at byte 50" in err and "no longer starts as an SQLite" not in err
    assert "There is nothing in it to recover" in err and "kiosk journal recover" not in err
    assert main(["journal", "recover", str(cut)]) == 2
    assert "nothing could be read from" in capsys.readouterr().err
    assert main(["journal", "show", str(cut)]) == 2   # blocked now: still never advises recover
    err = capsys.readouterr().err
    assert "there is nothing in it to recover" in err and f"`kiosk journal acknowledge {cut}` starts afresh" in err
    assert "kiosk journal recover" not in err.split("\n")[0] and "carry on from its intact events" not in err
    assert main(["journal", "acknowledge", str(cut)]) == 0


def test_an_empty_file_is_said_plainly_to_hold_nothing_to_recover(tmp_path, capsys):
    path = tmp_path / "e.sqlite"
    path.write_bytes(b"")
    assert main(["journal", "show", str(path)]) == 2   # an empty file: an unusable input (README's convention)
    err = capsys.readouterr().err
    assert "There is nothing in it to recover" in err and "kiosk journal recover" not in err
    assert main(["journal", "recover", str(path)]) == 2
    err = capsys.readouterr().err
    assert "e.sqlite.corrupt-1 is empty (0 bytes): there is nothing to recover from it" in err
    assert "could not be read through SQLite" not in err and f"kiosk journal acknowledge {path}" in err
    assert main(["journal", "show", str(path)]) == 2   # blocked now: still never advises recover
    err = capsys.readouterr().err
    assert "there is nothing in it to recover" in err and "carry on from its intact events" not in err


def test_a_damaged_row_is_said_with_how_many_events_can_be_read_and_its_text_shown_escaped(tmp_path, capsys):
    path = _finished(tmp_path / "j.sqlite")
    data = bytearray(path.read_bytes())
    page = data.find(b"game_started") // 4096
    data[(page + 1) * 4096 - 50:(page + 1) * 4096] = bytes(50)   # the last 50 bytes of event 1's page zeroed
    path.write_bytes(bytes(data))
    assert main(["journal", "show", str(path)]) == 1
    err = capsys.readouterr().err
    assert "game 1 event 1 is damaged (its text is not as it was recorded: its checksum does not hold); 92 of its " \
           "93 recorded events (1 game) can still be read from it" in err
    assert main(["journal", "recover", str(path)]) == 0
    out = capsys.readouterr().out
    assert "lost: event 1 (damaged, its text as read, never replayed): " in out
    assert "\x00" not in out and "[\\x00 x" in out


def test_show_of_an_empty_file_names_a_damaged_copy_beside_it_not_a_fresh_start(tmp_path, capsys):
    path = tmp_path / "e.sqlite"
    path.write_bytes(b"")
    (tmp_path / "e.sqlite.corrupt-1").write_bytes(b"x")
    assert main(["journal", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"--from {tmp_path / 'e.sqlite.corrupt-1'}" in err and "acknowledge" not in err


def test_the_blocked_report_names_the_journal_and_its_copy_as_they_are_found_now(tmp_path, monkeypatch, capsys):
    """Kept aside by a kiosk run from tmp_path as b/j.sqlite, the report was shown from inside b/ (and from a
    folder beside it) still naming b/j.sqlite and b/j.sqlite.corrupt-1, paths that lead nowhere there."""
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    monkeypatch.chdir(tmp_path)
    write_damaged_journal("b/j.sqlite")
    assert "kept aside as b/j.sqlite.corrupt-1." in (tmp_path / "b" / "j.sqlite.blocked").read_text()
    monkeypatch.chdir(tmp_path / "b")
    assert main(["journal", "show", "j.sqlite"]) == 1
    err = capsys.readouterr().err
    assert "journal j.sqlite is damaged" in err and "kept aside as j.sqlite.corrupt-1." in err and "b/" not in err
    monkeypatch.chdir(tmp_path / "c")
    assert main(["journal", "acknowledge", "../b/j.sqlite"]) == 0
    out = capsys.readouterr().out
    assert "journal ../b/j.sqlite is damaged" in out and "kept aside as ../b/j.sqlite.corrupt-1." in out
    assert " b/j.sqlite" not in out


def test_recover_says_a_reading_kept_for_a_press_was_not_carried(tmp_path, capsys):
    """A journal whose meta held the board reading kept for a press during a pause (kiosk.store.kept_reading):
    recover drops it by design (the press is read afresh) and used to say nothing of it."""
    import sqlite3

    from kiosk.store import GameSession
    from kiosk.store.kept_reading import KEY, KeptReading, save
    from tests.store.journal_fixtures import FINISHED_GAME

    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    for ev in FINISHED_GAME[:20]:
        assert s.apply(ev)
    save(s.journal, KeptReading(s.game, 20, 0, 10_000, ("." * 15,) * 15))
    s.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = replace(body, '\"t\":', '\"t\": ') WHERE seq = 12")
    db.commit()
    db.close()
    assert main(["journal", "recover", str(path)]) == 0
    out = capsys.readouterr().out
    ann = FINISHED_GAME[0].players[0]
    assert f"note: the board reading kept for {ann}'s press at 10 s was not carried: the board is read when play " \
           f"resumes" in out
    db = sqlite3.connect(path)
    assert db.execute("SELECT 1 FROM meta WHERE key = ?", (KEY,)).fetchone() is None   # by design: not carried
    db.close()


def _refusals(path):
    """The messages of the kiosk's two opens of ``path``: the one that keeps it aside, then that of the blocked path."""
    import pytest

    from kiosk.store import Journal, JournalCorrupt

    said = []
    for _ in range(2):
        with pytest.raises(JournalCorrupt) as err:
            Journal(path)
        assert err.value.nothing
        said.append(str(err.value))
    return said


def test_a_file_holding_nothing_is_advised_alike_when_kept_aside_and_when_its_path_is_opened_again(tmp_path):
    """The advice was written twice, and the keep-aside's advised a fresh start first (`acknowledge`, abandoning the
    game) though another damaged copy lay beside the journal, where the blocked path's named that copy alone."""
    path = tmp_path / "j.sqlite"
    earlier = tmp_path / "j.sqlite.corrupt-1"
    earlier.write_bytes(b"an earlier damaged copy")
    path.write_bytes(b"")
    kept_aside, blocked = _refusals(path)
    way = (f"(other damaged copies are kept beside it: `kiosk journal recover {path} --from {earlier}` reads the "
           f"latest, j.sqlite.corrupt-1)")
    assert f"There is nothing in it to recover {way}. This path stays blocked until an operator runs it;" in kept_aside
    assert f"there is nothing in it to recover {way}:\n" in blocked
    assert "kiosk journal acknowledge" not in kept_aside and "kiosk journal acknowledge" not in blocked.split("\n")[0]


def test_a_file_holding_nothing_with_no_other_copy_is_advised_a_fresh_start_alike(tmp_path):
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"")
    way = f"(`kiosk journal acknowledge {path}` starts afresh)"
    kept_aside, blocked = _refusals(path)
    assert f"There is nothing in it to recover {way}. This path stays blocked until an operator runs it;" in kept_aside
    assert f"there is nothing in it to recover {way}:\n" in blocked


def test_show_of_a_file_holding_nothing_names_the_latest_damaged_copy_beside_it(tmp_path, capsys):
    """It named the last by the copies' names sorted as text (e.sqlite.corrupt-9 after e.sqlite.corrupt-10)."""
    path = tmp_path / "e.sqlite"
    path.write_bytes(b"")
    for n in (9, 10):
        (tmp_path / f"e.sqlite.corrupt-{n}").write_bytes(b"x")
    assert main(["journal", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert (f"damaged copies kept beside it earlier may hold its events: `kiosk journal recover NEW.sqlite --from "
            f"{tmp_path / 'e.sqlite.corrupt-10'}` reads the latest, e.sqlite.corrupt-10 (also beside it: "
            f"e.sqlite.corrupt-9)") in err
