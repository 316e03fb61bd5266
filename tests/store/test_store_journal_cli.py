"""``kiosk journal``: the operator's way to see a journal (without changing it), to carry a damaged journal's
intact events on, and to unblock a damaged journal's path for a fresh start."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from image_files import png_1x1
from kiosk.cli import main
from kiosk.referee.events import GameStarted
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import random_game
from kiosk.store import GameSession, Journal, JournalCorrupt, JournalError

SCRIPT = random_game("nsf", seed=31)


def _snapshot(folder):
    """Every file in ``folder`` with its bytes' digest (what a read-only command must leave as it was)."""
    return {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_damaged_journal_names_the_commands_that_unblock_it(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    Journal(path).close()   # a journal was kept here (its lock file says so), then overwritten: damaged
    path.write_bytes(b"this is not a journal\n" * 10)
    for _ in range(2):  # damaged, then blocked: both messages say how to go on (nothing in it is to recover)
        try:
            Journal(path)
        except JournalCorrupt as exc:
            assert f"kiosk journal acknowledge {path}" in str(exc) and exc.nothing
            assert "kiosk journal recover" not in str(exc) and "nothing in it to recover" in str(exc)
        else:
            raise AssertionError("a damaged journal was opened")
    assert (tmp_path / "j.sqlite.corrupt-1").read_bytes().startswith(b"this is not a journal")
    assert main(["journal", "acknowledge", str(path)]) == 0
    out = capsys.readouterr().out
    assert "is damaged" in out and "may be used again" in out
    assert main(["journal", "acknowledge", str(path)]) == 2  # nothing left to acknowledge
    assert "no corruption report" in capsys.readouterr().err
    session = GameSession.open(path)  # usable again, the damaged copy kept
    assert not session.in_game
    session.close()
    assert (tmp_path / "j.sqlite.corrupt-1").exists()


def test_journal_show_lists_games_and_refuses_a_missing_file(tmp_path, capsys):
    assert main(["journal", "show", str(tmp_path / "none.sqlite")]) == 2
    assert "no such journal file" in capsys.readouterr().err
    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    assert s.apply(GameStarted(t=0, preset=load_preset("nsf").to_dict(), players=("Ann", "Bob")))
    s.close()
    before = _snapshot(tmp_path)
    assert main(["journal", "show", str(path)]) == 0
    assert "game 1: Ann vs Bob, 1 event, unfinished" in capsys.readouterr().out
    assert _snapshot(tmp_path) == before  # not one byte changed, no file added


@pytest.mark.parametrize("content", [b"", png_1x1(), b"SQLite format 3\x00" + b"\x00" * 84],
                         ids=["empty", "png", "sqlite-header-only"])
def test_journal_show_changes_nothing_it_is_shown(tmp_path, capsys, content):
    path = tmp_path / "picture.png"
    path.write_bytes(content)
    before = _snapshot(tmp_path)
    rc = main(["journal", "show", str(path)])
    err = capsys.readouterr().err
    if content == png_1x1():   # no journal at all (kiosk.store.foreign): refused as such, as demo and recover do
        assert rc == 2 and "is not a kiosk journal" in err and "damaged" not in err
    else:   # nothing in it to recover: an unusable input (README's convention)
        assert rc == 2 and "is damaged" in err and "nothing was changed" in err
    assert _snapshot(tmp_path) == before  # no rename, no .blocked marker, no 28 KB database


def test_journal_show_reads_beside_a_running_kiosk(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    for ev in SCRIPT[:5]:
        assert s.apply(ev)
    assert main(["journal", "show", str(path)]) == 0
    assert "5 events, unfinished" in capsys.readouterr().out
    assert s.apply(SCRIPT[5])  # the kiosk goes on
    s.close()


def _damage_row(path, seq):
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = replace(body, '\"t\":', '\"t\": ') WHERE seq = ?", (seq,))
    db.commit()
    db.close()


def test_recover_carries_the_intact_prefix_on_and_the_game_goes_on(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    for ev in SCRIPT[:53]:
        assert s.apply(ev)
    s.heartbeat(SCRIPT[52].t + 1_000)
    s.close()
    _damage_row(path, 50)
    with pytest.raises(JournalCorrupt, match="event 50 is damaged .*its checksum does not hold"):
        GameSession.open(path)  # kept aside, path blocked
    assert main(["journal", "recover", str(path)]) == 0
    out = capsys.readouterr().out
    assert "game 1 (" in out and "kept events 1-49; lost event 50 (damaged: its checksum does not hold)" in out
    assert "set aside events 51-53 (intact, but after the break: not replayed" in out   # never dropped
    assert "1 event lost, 3 intact events set aside in " in out and "j.sqlite.set-aside-1.jsonl" in out
    back = GameSession.open(path)  # unblocked: the game resumes from event 49
    assert back.referee.events == tuple(SCRIPT[:49]) and back.in_game
    note = back.journal.salvage_note(back.game)  # what `kiosk run` shows the judge when it resumes this game
    assert note is not None and "recovered from a damaged journal" in note and "against move 49" in note
    assert "set aside events 51-53 (intact, but after the break: not replayed; written to j.sqlite.set-aside-1.jsonl" \
        in note   # the judge at the table is told where the events after the lost one are
    for ev in SCRIPT[49:60]:  # the players replay the lost turns and go on
        assert back.apply(ev), ev
    back.close()
    assert (tmp_path / "j.sqlite.corrupt-1").exists()  # the damaged copy stays for the director


def test_recover_a_damaged_file_in_place_and_refusals(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    for ev in SCRIPT[:20]:
        assert s.apply(ev)
    s.close()
    assert main(["journal", "recover", str(path)]) == 2  # intact: nothing to recover, nothing changed (exit 2, was 1)
    assert "intact: nothing to recover" in capsys.readouterr().err
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE seq = 12")
    db.commit()
    db.close()
    assert main(["journal", "recover", str(path)]) == 0  # not yet blocked: kept aside first, then recovered
    out = capsys.readouterr().out
    assert "kept events 1-11; lost event 12 (missing: on a page that is damaged or gone); set aside events 13-20" in out
    assert len(GameSession.open(path).referee.events) == 11
    garbage = tmp_path / "g.sqlite"
    Journal(garbage).close()   # a journal, then overwritten (garbage where none was kept: refused, not recovered)
    garbage.write_bytes(b"nothing here" * 100)
    assert main(["journal", "recover", str(garbage)]) == 2   # nothing in it to recover: an unusable input
    err = capsys.readouterr().err
    assert "nothing could be read" in err
    with pytest.raises(JournalCorrupt, match="not yet acknowledged"):
        Journal(garbage)  # still blocked: the operator decides (acknowledge starts afresh)


def test_recover_refuses_while_a_kiosk_has_the_path_open(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    assert s.apply(SCRIPT[0])
    assert main(["journal", "recover", str(path)]) == 2
    assert "in use by another process" in capsys.readouterr().err
    s.close()


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_folder_or_fifo_as_the_journal_is_named_and_left_alone(tmp_path, capsys, kind):
    """A folder or a FIFO given as the journal path is bad input: every action names it (exit 2) and the kiosk's
    own open refuses it, and nothing is moved or created. Before, `recover` and a kiosk's open kept the folder
    (or FIFO) aside as PATH.corrupt-1 with a .blocked marker, and `acknowledge` then said 'acknowledged'."""
    import os

    path = tmp_path / "j.sqlite"
    if kind == "folder":
        path.mkdir()
        (path / "keep.txt").write_text("the director's notes\n")
    else:
        os.mkfifo(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for action in ("show", "recover", "acknowledge"):
        assert main(["journal", action, str(path)]) == 2
        err = capsys.readouterr().err
        assert "not a journal file" in err and ("folder" if kind == "folder" else "FIFO") in err, err
        assert "Traceback" not in err
    assert main(["journal", "recover", str(tmp_path / "other.sqlite"), "--from", str(path)]) == 2
    assert "not a journal file" in capsys.readouterr().err
    for readonly in (False, True):
        with pytest.raises(JournalError, match="not a journal file"):
            Journal(path, readonly=readonly)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    if kind == "folder":
        assert (path / "keep.txt").read_text() == "the director's notes\n"


def test_journal_show_gives_a_finished_games_final_scores(tmp_path, capsys):
    """The recording demo's last line ``final: NAME1 S1, NAME2 S2`` is "as its journal holds it" (README), but
    ``journal show`` said only "finished": the final scores are shown, and the standing scores of a game
    still in progress."""
    from kiosk.referee.events import GameCalled

    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    for ev in SCRIPT[:5]:
        assert s.apply(ev)
    assert main(["journal", "show", str(path)]) == 0
    ann, bob = s.state.players
    a, b = s.state.scores
    assert f"5 events, unfinished, scores as they stand: {ann} {a}, {bob} {b}" in capsys.readouterr().out
    assert s.apply(GameCalled(t=s.state.last_t, reason="record ends", as_it_stands=True))
    s.close()
    assert main(["journal", "show", str(path)]) == 0
    assert f"6 events, finished, final: {ann} {a}, {bob} {b}" in capsys.readouterr().out


def test_recover_given_no_journal_is_bad_input_as_show_says_it(tmp_path, capsys):
    """A tester found `recover` exiting 1 on a missing path or a file that is no journal, where `show` exits 2."""
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    for path, says in ((tmp_path / "none.sqlite", "no such journal and no damaged copy kept aside for it"),
                       (text, "is not a kiosk journal (not an SQLite database")):
        assert main(["journal", "recover", str(path)]) == 2
        assert says in capsys.readouterr().err
    assert text.read_text() == "hello\n" and not list(tmp_path.glob("*.corrupt-*"))    # left as it is
    assert main(["journal", "recover", str(tmp_path / "x.sqlite"), "--from", str(tmp_path / "gone.sqlite")]) == 2
    assert "gone.sqlite: no such file" in capsys.readouterr().err
