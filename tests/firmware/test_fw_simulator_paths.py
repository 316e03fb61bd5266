"""The pty simulator's link path: it makes its own symbolic link there and never replaces or removes anything
else (a file there was once replaced by the link and deleted at quit); a path it may not use is refused in a
sentence (exit 2) with nothing left behind; Enter alone does not quit, q and end of input do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge.host import wait_until
from firmware_bridge.simulator import FirmwareSimulator, LinkPathError

pytestmark = pytest.mark.timeout(60)
PROG = "python -m firmware_bridge.simulator"


def _run(link: Path, stdin: str = "q\n") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware_bridge.simulator", str(link)], input=stdin,
                          capture_output=True, text=True, timeout=30)


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_file_at_the_path_is_refused_and_kept(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("data\n")
    r = _run(f)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == (f"{PROG}: {f} is already there (a file): the simulator replaces only a link to a pty "
                        "that a simulator made; give a path where nothing is, e.g. /tmp/scrabble-clock\n")
    assert f.read_text() == "data\n" and not f.is_symlink() and _listing(tmp_path) == ["f.txt"]


def test_a_folder_a_link_to_a_file_and_a_missing_folder_are_refused_with_nothing_left(tmp_path: Path) -> None:
    (tmp_path / "dir.png").mkdir()
    (tmp_path / "f.txt").write_text("data\n")
    (tmp_path / "lnk").symlink_to("f.txt")
    cases = {tmp_path / "dir.png": "is already there (a folder)",
             tmp_path / "lnk": "is already there (a symbolic link to f.txt)",
             tmp_path / "nope" / "clk": f"its folder {tmp_path / 'nope'} does not exist"}
    for path, words in cases.items():
        r = _run(path)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1
    assert _listing(tmp_path) == ["dir.png", "f.txt", "lnk"]      # no dir.png.new, nothing replaced
    assert os.readlink(tmp_path / "lnk") == "f.txt" and (tmp_path / "f.txt").read_text() == "data\n"
    assert _listing(tmp_path / "dir.png") == []


def test_the_class_refuses_too_and_makes_nothing(tmp_path: Path) -> None:
    f = tmp_path / "clock"
    f.write_text("mine\n")
    with pytest.raises(LinkPathError, match=r"clock is already there \(a file\)"):
        FirmwareSimulator(f).plug()
    assert f.read_text() == "mine\n" and _listing(tmp_path) == ["clock"]


def test_a_link_a_killed_simulator_left_is_taken_over_and_removed_at_quit(tmp_path: Path) -> None:
    stale = tmp_path / "clk"
    stale.symlink_to("/dev/pts/999")
    r = _run(stale)
    assert r.returncode == 0 and "clock simulator on" in r.stdout, r.stderr
    assert _listing(tmp_path) == []


def test_unplug_removes_only_its_own_link(tmp_path: Path) -> None:
    sim = FirmwareSimulator(tmp_path / "clk")
    sim.plug()
    (tmp_path / "clk").unlink()
    (tmp_path / "clk").write_text("someone else's\n")     # replaced meanwhile
    sim.unplug()
    assert (tmp_path / "clk").read_text() == "someone else's\n"


def test_enter_alone_does_not_quit_q_and_sigterm_do(tmp_path: Path) -> None:
    link = tmp_path / "clk"
    proc = subprocess.Popen([sys.executable, "-m", "firmware_bridge.simulator", str(link)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin is not None
        assert wait_until(link.is_symlink, 10)
        proc.stdin.write("\n\nx\n")
        proc.stdin.flush()
        time.sleep(1.0)
        assert proc.poll() is None and link.is_symlink()     # still running
        proc.stdin.write("q\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0 and "'x': not a key" in out, err
        assert not link.exists() and not link.is_symlink()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    proc = subprocess.Popen([sys.executable, "-m", "firmware_bridge.simulator", str(link)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().startswith("clock simulator on")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
        assert not link.is_symlink() and _listing(tmp_path) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
