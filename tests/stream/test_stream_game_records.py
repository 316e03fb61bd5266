"""stream-game's --records folder and files, checked before the game; --pace and --timeout bounded."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from kiosk.cli import main
from kiosk.rules.gcg import read_gcg
from kiosk.stream import records
from kiosk.stream.publish import record_game_id
from shared_data import SHARED, needs_shared

DOUG = SHARED / "corpus" / "gcg" / "real" / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"


def _kiosk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kiosk.cli", *args], capture_output=True, text=True, timeout=60)


def _stream(path, *more: str, port: int = 1) -> subprocess.CompletedProcess[str]:
    return _kiosk("stream-game", str(path), "--mqtt", f"127.0.0.1:{port}", "--board", "91", *more)


@needs_shared
@pytest.mark.parametrize("kind", ["fifo", "device link", "dangling link"])
def test_a_records_folder_that_is_no_folder_is_named_for_what_it_is(tmp_path, kind):
    """--records given a FIFO or a link to a device said 'is a file, not a folder'."""
    where = tmp_path / "rec"
    if kind == "fifo":
        os.mkfifo(where)
        said = "is a FIFO (named pipe), not a folder"
    elif kind == "device link":
        where.symlink_to("/dev/null")
        said = "is a link to a character device, not a folder"
    else:
        where.symlink_to(tmp_path / "nowhere")
        said = "is a link to nothing, not a folder"
    r = _stream(DOUG, "--records", str(where))
    assert r.returncode == 2 and r.stderr == f"kiosk stream-game: --records {where}: {said}\n", r.stderr


@needs_shared
@pytest.mark.parametrize("which", [".result.json", ".gcg"])
def test_a_record_file_that_cannot_be_written_is_named_before_anything_is_published(tmp_path, which):
    """result.json a link to a device: the .gcg was written without its result file, the run said exit 0."""
    folder = tmp_path / "rec"
    folder.mkdir()
    target = folder / f"{record_game_id(read_gcg(DOUG))}{which}"
    target.symlink_to("/dev/null")
    r = _stream(DOUG, "--records", str(folder))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"kiosk stream-game: --records: {target}: is a link to a character device")
    assert "Nothing was published" in r.stderr and "Traceback" not in r.stderr and r.stdout == ""
    assert [p.name for p in folder.iterdir()] == [target.name]   # neither file written


@needs_shared
def test_a_write_failure_during_the_game_is_said_once_and_fails_the_run(broker, tmp_path, monkeypatch, capsys):
    """The records failure was printed 30 times (once per event) and the run ended with exit 0."""
    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "rec" / "x.gcg"))

    monkeypatch.setattr(records, "write_atomic", full)
    code = main(["stream-game", str(DOUG), "--mqtt", f"127.0.0.1:{broker.port}", "--board", "92",
                 "--records", str(tmp_path / "rec")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.count("No space left on device") == 1 and "records: cannot write the game's files in" in err
    assert "Errno" not in err


@pytest.mark.parametrize("option, value", [("--pace", "1e12"), ("--pace", "1e300"), ("--pace", "3601"),
                                           ("--timeout", "1e300"), ("--timeout", "86401")])
def test_pace_and_timeout_beyond_their_bounds_are_usage_errors(tmp_path, option, value):
    """--pace 1e12 ended in 'OverflowError: timestamp out of range for platform time_t' after the first event."""
    gcg = tmp_path / "g.gcg"
    gcg.write_text("#player1 A Alice\n#player2 B Bob\n>A: GJSTUXZ 8F JUGS +24 24\n", encoding="utf-8")
    r = _stream(gcg, option, value)
    assert r.returncode == 2 and f"argument {option}: at most" in r.stderr and f"got '{value}'" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
