"""``kiosk journal recover`` on journals damaged every way a card or a copy can: it never crashes, reads a file cut
short up to the cut, and says what happened in words (no SQLite integrity-check text, no "finished" for a game
that lost its end)."""

from __future__ import annotations

import random
import sqlite3

import pytest

from kiosk.cli import main
from kiosk.commands.journal import add_arguments
from kiosk.referee.events import GameStarted
from kiosk.referee.presets import load_preset
from kiosk.store import GameSession, Journal, JournalError
from tests.store.journal_fixtures import FINISHED_GAME, write_finished_journal

SCRIPT = FINISHED_GAME
PAGE = 4096


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The bytes of a journal holding one finished game (several pages: the last events on the last page)."""
    data = write_finished_journal(tmp_path_factory.mktemp("finished") / "j.sqlite").read_bytes()
    assert len(data) % PAGE == 0 and len(data) >= 6 * PAGE
    return data


def _recover(path, capsys):
    rc = main(["journal", "recover", str(path)])
    out, err = capsys.readouterr()
    assert rc in (0, 1) or rc == 2 and ("nothing to recover from it" in err or "intact: nothing to recover" in err), \
        (rc, err)   # nothing there, or a flip the journal does not hold (a free byte): exit 2
    assert "Traceback" not in err and "Error" not in err, err
    return rc, out, err


@pytest.mark.parametrize("cut", ["mid-page", "page"])
def test_a_journal_cut_short_is_recovered_up_to_the_cut(tmp_path, capsys, finished, cut):
    """A tester's journal cut to 36000 of 36864 bytes crashed `recover` (TypeError: NULLs read from the
    incomplete last page), and cut at 32768 (one page lost) gave "nothing could be read" although the pages
    before the cut held 28 events: the copy is padded to whole pages and its header's page count first."""
    size = len(finished) - (PAGE // 5 if cut == "mid-page" else PAGE)
    path = tmp_path / "j.sqlite"
    path.write_bytes(finished[:size])
    assert main(["journal", "show", str(path)]) == 1
    err = capsys.readouterr().err
    pages = len(finished) // PAGE
    lost = "incomplete" if cut == "mid-page" else "missing"
    assert f"the file is cut short: it ends at byte {size}, so page {pages} of {pages} is {lost}" in err
    assert f"of its {len(SCRIPT)} recorded events (1 game) can still be read from it" in err
    assert "Rowid" not in err and "malformed" not in err and "On tree page" not in err
    rc, out, _ = _recover(path, capsys)
    assert rc == 0, out
    assert "the file is cut short" in out and "on a copy" in out
    assert "; lost events " in out and "(missing: on a page that is damaged or gone)" in out
    assert f"-{len(SCRIPT)} (" in out   # the index still lists the lost events (or the last ones are set aside)
    assert "cut short at event" in out and "finished" not in out.split("note:")[0]
    assert "no game is left to go on" in out   # the game was over: it is not resumed half way
    assert (tmp_path / "j.sqlite.corrupt-1").read_bytes() == finished[:size]   # the damaged copy as it was
    with Journal(path, readonly=True) as j:
        kept = len(j.events(1))
    assert 0 < kept < len(SCRIPT)
    assert main(["journal", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert f"{kept} events, cut short at event {kept} (scores as they stood then: " in shown
    assert "finished" not in shown


def test_recover_never_crashes_on_any_cut_or_flipped_bytes(tmp_path, capsys, finished):
    """Every page boundary and half page, and 150 seeded random byte changes (mostly in the written bytes):
    show, the kiosk's own open and recover each answer in words, exit 0 or 1, never a traceback."""
    rng = random.Random(20)
    written = [i for i, b in enumerate(finished) if b]
    cases = [finished[:n] for n in range(0, len(finished), PAGE // 2)] + [finished[:100], finished[:36000 % len(finished)]]
    for _ in range(150):
        b = bytearray(finished)
        for _ in range(rng.randint(1, 8)):
            b[rng.choice(written) if rng.random() < 0.8 else rng.randrange(len(b))] = rng.randrange(256)
        cases.append(bytes(b))
    for n, data in enumerate(cases):
        path = tmp_path / f"j{n}.sqlite"
        path.write_bytes(data)
        assert main(["journal", "show", str(path)]) in (0, 1, 2)
        assert "Traceback" not in capsys.readouterr().err
        try:
            GameSession.open(path).close()
        except JournalError:
            pass
        _recover(path, capsys)


def test_damage_inside_the_file_is_named_by_page_and_events_read(tmp_path, capsys, finished):
    """The last page's rows overwritten with zeros (the file whole): the message said SQLite's integrity check
    ("On tree page 9 cell 7: Rowid 0 out of order" eight times); now the page and what can still be read."""
    path = tmp_path / "j.sqlite"
    path.write_bytes(finished[:-1000] + bytes(1000))
    assert main(["journal", "show", str(path)]) == 1
    err = capsys.readouterr().err
    pages = len(finished) // PAGE
    assert "is damaged: it is damaged at page" in err and f" and {pages} (of {pages} pages)" in err
    assert "recorded events (1 game) can still be read from it" in err
    assert "Rowid" not in err and "cell" not in err


def test_an_older_game_cut_short_is_never_called_finished(tmp_path, capsys):
    """A journal whose first game lost event 30 onwards and whose second game goes on: recover listed game 1 as
    "finished, scores as they stand" (its real final lost); it is "cut short at event 29"."""
    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    for ev in SCRIPT:
        assert s.apply(ev)
    t = SCRIPT[-1].t + 1_000
    assert s.apply(GameStarted(t=t, preset=load_preset("nsf").to_dict(), players=("Cy", "Di")))
    s.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = replace(body, '\"t\":', '\"t\": ') WHERE game = 1 AND seq = 30")
    db.commit()
    db.close()
    rc, out, _ = _recover(path, capsys)
    assert rc == 0
    assert "kept events 1-29; lost event 30 (damaged: its checksum does not hold); set aside events 31-93" in out
    assert "cut short at event 29 (scores as they stood then)" in out
    assert "game 2 (Cy vs Di): all 1 event kept, unfinished" in out
    assert "the kiosk resumes game 2 from event 1" in out
    assert main(["journal", "show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "game 1: " in shown and "29 events, cut short at event 29 (scores as they stood then: " in shown
    assert "finished" not in shown.splitlines()[0]
    back = GameSession.open(path)   # the kiosk goes on with game 2, not the cut game
    assert back.game == 2 and back.in_game
    back.close()


def test_a_journal_without_its_version_says_so_in_words(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meta WHERE key = 'schema_version'")
    db.commit()
    db.close()
    assert main(["journal", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert "the journal's version is not recorded" in err and "?" not in err


def test_journal_show_help_says_what_it_lists():
    import argparse

    p = argparse.ArgumentParser()
    add_arguments(p)
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    text = next(c.help for c in sub._choices_actions if c.dest == "show")
    assert "their events" not in text and "players" in text and "scores" in text
