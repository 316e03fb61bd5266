"""``kiosk journal``: the operator's way to see a journal and to unblock a damaged journal's path."""

from __future__ import annotations

from kiosk.cli import main
from kiosk.store import GameSession, Journal, JournalCorrupt


def test_damaged_journal_names_the_command_that_unblocks_it(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not a journal\n" * 10)
    for _ in range(2):  # damaged, then blocked: both messages say how to go on
        try:
            Journal(path)
        except JournalCorrupt as exc:
            assert f"kiosk journal acknowledge {path}" in str(exc)
        else:
            raise AssertionError("a damaged journal was opened")
    assert (tmp_path / "j.sqlite.corrupt-1").read_bytes().startswith(b"this is not a journal")
    assert main(["journal", "acknowledge", str(path)]) == 0
    out = capsys.readouterr().out
    assert "is damaged" in out and "may be used again" in out
    assert main(["journal", "acknowledge", str(path)]) == 2  # nothing left to acknowledge
    assert "no corruption report" in capsys.readouterr().out
    session = GameSession.open(path)  # usable again, the damaged copy kept
    assert not session.in_game
    session.close()
    assert (tmp_path / "j.sqlite.corrupt-1").exists()


def test_journal_show_lists_games_and_refuses_a_missing_file(tmp_path, capsys):
    assert main(["journal", "show", str(tmp_path / "none.sqlite")]) == 2
    assert "no such journal file" in capsys.readouterr().out
    from kiosk.referee.events import GameStarted
    from kiosk.referee.presets import load_preset

    path = tmp_path / "j.sqlite"
    s = GameSession.open(path)
    assert s.apply(GameStarted(t=0, preset=load_preset("nsf").to_dict(), players=("Ann", "Bob")))
    s.close()
    assert main(["journal", "show", str(path)]) == 0
    assert "game 1: Ann vs Bob, 1 events, unfinished" in capsys.readouterr().out
