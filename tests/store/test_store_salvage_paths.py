"""``kiosk journal recover`` finds the damaged copy beside the journal, wherever it is run from.

A tester's finding: the blocked marker names the kept-aside copy as the journal's path was given
(``sub/j.sqlite.corrupt-1`` for a kiosk run with ``--journal sub/j.sqlite``), and recover looked that name up
from the current folder: run from ``sub`` (or after the folder moved) it said the copy was gone and advised
``acknowledge`` (which abandons the game) while the copy sat beside the journal."""

from __future__ import annotations

from kiosk.cli import main
from kiosk.store import GameSession
from tests.store.journal_fixtures import write_damaged_journal


def test_recover_from_the_journals_own_folder_finds_the_copy_a_relative_report_names(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    write_damaged_journal("sub/j.sqlite")
    assert "kept aside as sub/j.sqlite.corrupt-1" in (tmp_path / "sub" / "j.sqlite.blocked").read_text()
    monkeypatch.chdir(tmp_path / "sub")
    assert main(["journal", "recover", "j.sqlite"]) == 0
    out = capsys.readouterr().out
    assert "recovered from j.sqlite.corrupt-1 into a fresh journal at j.sqlite" in out
    assert "kept events 1-11" in out
    assert len(GameSession.open("j.sqlite").referee.events) == 11


def test_recover_after_the_folder_moved(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    write_damaged_journal("sub/j.sqlite")
    (tmp_path / "sub").rename(tmp_path / "moved")
    assert main(["journal", "recover", "moved/j.sqlite"]) == 0
    assert "recovered from moved/j.sqlite.corrupt-1" in capsys.readouterr().out


def test_a_copy_beside_the_journal_is_named_never_a_fresh_start(tmp_path, monkeypatch, capsys):
    """The copy the report names is gone, another is beside the journal: recover names it and `--from`, never
    `acknowledge` (which abandons the game); only with no copy at all is a fresh start the way on."""
    monkeypatch.chdir(tmp_path)
    write_damaged_journal("j.sqlite")
    (tmp_path / "j.sqlite.corrupt-1").rename(tmp_path / "j.sqlite.corrupt-3")
    assert main(["journal", "recover", "j.sqlite"]) == 1
    err = capsys.readouterr().err
    assert "kiosk journal recover j.sqlite --from j.sqlite.corrupt-3" in err and "acknowledge" not in err
    assert main(["journal", "recover", "j.sqlite", "--from", "j.sqlite.corrupt-3"]) == 0
    assert "kept events 1-11" in capsys.readouterr().out
    (tmp_path / "j.sqlite").unlink()   # no journal and no report left: the copy is still named
    assert main(["journal", "recover", "j.sqlite"]) == 2
    err = capsys.readouterr().err
    assert "--from j.sqlite.corrupt-3" in err and "acknowledge" not in err
    write_damaged_journal("k.sqlite")
    (tmp_path / "k.sqlite.corrupt-1").unlink()
    assert main(["journal", "recover", "k.sqlite"]) == 2   # no copy left: nothing to recover (an unusable input)
    assert "kiosk journal acknowledge k.sqlite" in capsys.readouterr().err   # nothing left to read
