"""``kiosk journal recover`` / ``acknowledge`` (and the kiosk's own open) in a folder that cannot be written: every
file operation (keeping the damaged files aside, removing the report, making the lock file) refused is said in a
sentence with what to do, nothing is changed, exit 2 (a tester's findings: ``walbad/j.sqlite: Permission denied ->
walbad/j.sqlite.corrupt-1`` and ``dm/b/j.sqlite.blocked: Permission denied``). Run as root here: the refusals are
monkeypatched."""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.store import GameSession, JournalCorrupt
from tests.store.journal_fixtures import FINISHED_GAME, write_damaged_journal


def _snapshot(folder):
    """Every file's content (the lock file's by name only: taking the lock writes its pid there)."""
    return {p.name: "" if p.name.endswith(".lock") else hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir())}


def _damaged_in_place(path: Path) -> None:
    """A journal whose event 12 is damaged, left at ``path`` (not yet kept aside)."""
    s = GameSession.open(path)
    for ev in FINISHED_GAME[:20]:
        assert s.apply(ev)
    s.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = replace(body, '\"t\":', '\"t\": ') WHERE seq = 12")
    db.commit()
    db.close()


def _refuse_renames(monkeypatch, folder: Path) -> None:
    real = os.replace

    def replace(src, dst, *a, **k):
        if Path(src).parent == folder or Path(dst).parent == folder:
            raise PermissionError(errno.EACCES, "Permission denied", str(src), None, str(dst))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)


def _refuse_lock(monkeypatch) -> None:
    """No lock file can be made (as in a read-only folder without one); none there to open is no lock held."""
    from kiosk.store.lock import take_lock

    def refused(lock_file, *, create):
        if create:
            raise PermissionError(errno.EACCES, "Permission denied")
        return take_lock(lock_file, create=create)

    monkeypatch.setattr("kiosk.store.journal.take_lock", refused)


def _said(err: str, path: Path) -> None:
    assert "Permission denied ->" not in err and "Traceback" not in err
    assert "nothing was changed" in err and "cannot be written (permission denied)" in err
    assert f"`kiosk journal recover NEW.sqlite --from {path}` with NEW.sqlite in a folder you can write to" in err
    assert '`journal = "/full/path/NEW.sqlite"` in the [table] section' in err


def test_recover_of_a_damaged_journal_that_cannot_be_kept_aside_says_what_to_do(tmp_path, monkeypatch, capsys):
    path = tmp_path / "j.sqlite"
    _damaged_in_place(path)
    before = _snapshot(tmp_path)
    _refuse_renames(monkeypatch, tmp_path)
    assert main(["journal", "recover", str(path)]) == 2
    err = capsys.readouterr().err
    _said(err, path)
    assert "the damaged journal cannot be kept aside" in err
    assert _snapshot(tmp_path) == before
    monkeypatch.undo()
    new = tmp_path.parent / (tmp_path.name + "-new") / "new.sqlite"
    new.parent.mkdir()
    assert main(["journal", "recover", str(new), "--from", str(path)]) == 0   # the way on it names works
    assert _snapshot(tmp_path) == before


def test_recover_where_no_lock_file_can_be_made_says_what_to_do(tmp_path, monkeypatch, capsys):
    path = tmp_path / "j.sqlite"
    _damaged_in_place(path)
    (tmp_path / "j.sqlite.lock").unlink()
    before = _snapshot(tmp_path)
    _refuse_lock(monkeypatch)
    assert main(["journal", "recover", str(path)]) == 2
    err = capsys.readouterr().err
    _said(err, path)
    assert ".lock: cannot" not in err and _snapshot(tmp_path) == before


def test_the_kiosks_own_open_that_cannot_keep_a_damaged_journal_aside_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "j.sqlite"
    _damaged_in_place(path)
    before = _snapshot(tmp_path)
    _refuse_renames(monkeypatch, tmp_path)
    with pytest.raises(JournalCorrupt) as caught:
        GameSession.open(path)
    assert caught.value.kept_aside is None and "It cannot be kept aside" in str(caught.value)
    _said(str(caught.value), path)
    assert _snapshot(tmp_path) == before


def _refuse_removing_the_report(monkeypatch) -> None:  # noqa: ANN001
    """Removing any ``*.blocked`` report is refused, as in a folder that cannot be written."""
    real = Path.unlink

    def unlink(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        if self.name.endswith(".blocked"):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "unlink", unlink)


def test_recover_whose_report_cannot_be_removed_leaves_nothing_stray_exit_2(tmp_path, monkeypatch, capsys):
    path = tmp_path / "j.sqlite"
    write_damaged_journal(path)
    before = _snapshot(tmp_path)
    _refuse_removing_the_report(monkeypatch)
    assert main(["journal", "recover", str(path)]) == 2
    err = capsys.readouterr().err
    assert "nothing was recovered" in err and "Permission denied" not in err and "permission denied" in err
    assert f"{path} stays blocked" in err
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("refuse", ["report", "lock"])
def test_acknowledge_in_a_folder_it_cannot_write_says_what_to_do_exit_2(tmp_path, monkeypatch, capsys, refuse):
    path = tmp_path / "j.sqlite"
    write_damaged_journal(path)
    if refuse == "lock":
        (tmp_path / "j.sqlite.lock").unlink()
        _refuse_lock(monkeypatch)
    else:
        _refuse_removing_the_report(monkeypatch)
    before = _snapshot(tmp_path)
    assert main(["journal", "acknowledge", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Permission denied" not in err and "Traceback" not in err
    assert f"{path}: nothing was acknowledged: its report j.sqlite.blocked cannot be removed (its folder {tmp_path} " \
           f"cannot be written (permission denied)); nothing was changed and {path} stays blocked" in err
    assert '`journal = "/full/path/NEW.sqlite"` in the [table] section' in err
    assert _snapshot(tmp_path) == before
