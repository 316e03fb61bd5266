"""Outputs only ever replace a regular file: a device node, FIFO, socket or folder at an output path is refused
by name before any work and left as it is (``kiosk selfplay -o /dev/null`` run as root once replaced the null
device with a file); a symbolic link to a file is written through (its target replaced, the link kept), a
dangling one refused. Every atomic writer goes through :func:`kiosk.files.replacing`: the commands'
``atomic_output``/``check_output``, the stream's ``write_atomic`` (records, overlay fields, desk exports) and
the lexicon compiler."""

from __future__ import annotations

import os
import re
import socket
import stat
from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.files import InputError, NotReplaceable, atomic_output, check_output, replace_target, write_atomic
from kiosk.referee.simulate import random_game
from kiosk.stream.hub import StreamHub
from kiosk.stream.records import RecordsWriter

REFUSED = "is a FIFO (named pipe), not a file the kiosk may replace"


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _only(folder: Path) -> list[str]:
    """The names in ``folder``: no temporary file may be left behind."""
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def no_game(monkeypatch):
    """The self-play game must not even start for an output that is refused."""
    import kiosk.tools.selfplay

    def boom(*_a, **_k):
        raise AssertionError("the game was generated for an output that is refused")
    monkeypatch.setattr(kiosk.tools.selfplay, "self_play", boom)


def test_selfplay_refuses_a_fifo_before_the_game_and_leaves_it_a_fifo(tmp_path, capsys, no_game):
    out = _fifo(tmp_path / "x.gcg")
    assert main(["selfplay", "--seed", "5", "--quiet", "-o", str(out)]) == 2
    assert capsys.readouterr().err == (f"kiosk selfplay: {out}: {REFUSED}; give a file name for the GCG file\n")
    assert stat.S_ISFIFO(os.lstat(out).st_mode) and _only(tmp_path) == ["x.gcg"]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_selfplay_refuses_a_character_device_like_dev_null(tmp_path, capsys, no_game):
    out = tmp_path / "null.gcg"
    os.mknod(out, 0o666 | stat.S_IFCHR, os.makedev(1, 3))   # /dev/null's numbers
    assert main(["selfplay", "--seed", "5", "--quiet", "-o", str(out)]) == 2
    assert capsys.readouterr().err == (f"kiosk selfplay: {out}: is a character device, not a file the kiosk may "
                                       f"replace; give a file name for the GCG file\n")
    st = os.lstat(out)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3) and _only(tmp_path) == ["null.gcg"]


def test_selfplay_writes_through_a_link_to_a_file_and_keeps_the_link(tmp_path, capsys):
    target = tmp_path / "target.gcg"
    target.write_text("old\n")
    link = tmp_path / "link.gcg"
    link.symlink_to("target.gcg")
    assert main(["selfplay", "--seed", "5", "--quiet", "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == "target.gcg"
    assert target.read_text().startswith("#character-encoding UTF-8\n#player1 ")
    assert _only(tmp_path) == ["link.gcg", "target.gcg"]


def test_a_dangling_link_and_a_link_to_a_fifo_are_refused(tmp_path, capsys, no_game):
    dangling = tmp_path / "dangling.gcg"
    dangling.symlink_to("nowhere.gcg")
    assert main(["selfplay", "--seed", "5", "--quiet", "-o", str(dangling)]) == 2
    assert capsys.readouterr().err == (f"kiosk selfplay: {dangling}: is a link to {tmp_path / 'nowhere.gcg'}, "
                                       f"which does not exist (a link is only written through to a file that is "
                                       f"there); give a file name for the GCG file\n")
    _fifo(tmp_path / "pipe")
    to_fifo = tmp_path / "to_fifo.gcg"
    to_fifo.symlink_to("pipe")
    with pytest.raises(InputError, match=f"^{to_fifo}: is a link to a FIFO"):
        check_output(to_fifo, "GCG file")
    assert _only(tmp_path) == ["dangling.gcg", "pipe", "to_fifo.gcg"] and dangling.is_symlink()


def test_atomic_output_refuses_a_socket_and_a_node_planted_during_the_work(tmp_path):
    sock_path = tmp_path / "s.png"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        refused = "is a socket, not a file the kiosk may replace; give a file name"
        with pytest.raises(InputError, match=refused), atomic_output(sock_path, "wb", "report PNG") as fh:
            fh.write(b"x")
    late = tmp_path / "late.gcg"
    refused = re.escape(f"{late}: {REFUSED}; give a file name for the GCG file")
    with pytest.raises(InputError, match=refused), atomic_output(late, what="GCG file") as fh:
        fh.write("data")
        _fifo(late)   # planted while the output was being written: still not replaced
    assert stat.S_ISFIFO(os.lstat(late).st_mode) and _only(tmp_path) == ["late.gcg", "s.png"]


def test_lexicon_compile_refuses_a_fifo_for_the_trie_or_its_name_file(tmp_path, capsys):
    words = tmp_path / "w.txt"
    words.write_text("CAT\nDOG\n")
    trie = _fifo(tmp_path / "n.marisa")
    assert main(["lexicon", "compile", str(words), "-o", str(trie)]) == 2
    assert capsys.readouterr().err.endswith(f"{trie}: {REFUSED}; give another file name ending in .marisa\n")
    meta = _fifo(tmp_path / "m.marisa.json")
    assert main(["lexicon", "compile", str(words), "-o", str(tmp_path / "m.marisa")]) == 2
    assert capsys.readouterr().err.endswith(f"{meta}: {REFUSED}; give another file name ending in .marisa\n")
    assert stat.S_ISFIFO(os.lstat(trie).st_mode) and stat.S_ISFIFO(os.lstat(meta).st_mode)
    assert _only(tmp_path) == ["m.marisa.json", "n.marisa", "w.txt"]


def test_calibrate_markers_refuses_a_fifo(tmp_path, capsys):
    out = _fifo(tmp_path / "n.pdf")
    assert main(["calibrate", "markers", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"kiosk calibrate markers: {out}: {REFUSED}; give a file name for the "
                                       f"marker sheet\n")
    assert stat.S_ISFIFO(os.lstat(out).st_mode) and _only(tmp_path) == ["n.pdf"]


def test_write_atomic_raises_an_os_error_naming_the_path_and_leaves_the_fifo(tmp_path):
    out = _fifo(tmp_path / "field.txt")
    with pytest.raises(OSError) as info:
        write_atomic(out, "12:34", durable=True)
    assert isinstance(info.value, NotReplaceable) and str(info.value) == f"{out}: {REFUSED}"
    assert stat.S_ISFIFO(os.lstat(out).st_mode) and _only(tmp_path) == ["field.txt"]
    target = tmp_path / "real.txt"
    target.write_text("old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    write_atomic(tmp_path / "link.txt", "new")
    assert target.read_text() == "new" and (tmp_path / "link.txt").is_symlink()
    assert replace_target(tmp_path / "link.txt") == target.resolve()


def test_stream_records_leave_a_fifo_in_the_records_folder_and_say_so(tmp_path):
    rec = RecordsWriter(tmp_path)
    gcg_path, _ = rec.paths("sim-1")
    _fifo(gcg_path)
    hub = StreamHub(2, tick_ms=0)
    hub.add_sink(rec)
    for ev in random_game("nsf", seed=1)[:3]:
        hub.publish(ev)
    hub.pump()
    assert rec.errors and rec.errors[0] == f"records: cannot write the game's files in {tmp_path}: {gcg_path}: {REFUSED}"
    assert stat.S_ISFIFO(os.lstat(gcg_path).st_mode) and _only(tmp_path) == [gcg_path.name]
