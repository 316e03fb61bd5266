"""``kiosk run``'s loop (kiosk.app.table.run_table) headless, with scripted clock buttons and no camera: a press
reaches the journal; a bad device config is refused with its name, before any game starts."""

from __future__ import annotations

from pathlib import Path

from kiosk.app.config import load_config
from kiosk.app.table import run_table
from kiosk.store import GameSession


def _config(tmp: Path, buttons: str) -> Path:
    path = tmp / "kiosk.toml"
    path.write_text(f"""[table]
players = ["Ann", "Bob"]
judge_pin = "2468"
journal = "{tmp / 'journal.sqlite'}"
[devices]
buttons = {buttons}
camera = {{backend = "none"}}
display = {{backend = "null"}}
""")
    return path


def test_a_scripted_press_reaches_the_journal_and_a_restart_resumes_the_game(tmp_path, capsys):
    cfg = load_config(_config(tmp_path, '{backend = "scripted", script = [[100, "left"]]}'))
    assert run_table(cfg, headless=True, max_seconds=2) == 0
    session = GameSession.open(tmp_path / "journal.sqlite")
    events = session.referee.events
    assert [e.type for e in events] == ["game_started", "clock_pressed"] and events[1].player == 0
    assert session.state.players == ("Ann", "Bob")
    session.close()
    assert run_table(load_config(_config(tmp_path, '{backend = "scripted", script = []}')), headless=True,
                     max_seconds=0.5) == 0
    again = GameSession.open(tmp_path / "journal.sqlite")
    assert [e.type for e in again.referee.events][:2] == ["game_started", "clock_pressed"]
    assert sum(e.type == "game_started" for e in again.referee.events) == 1  # resumed, not a new game


def test_a_bad_device_config_is_refused_before_a_game_starts(tmp_path, capsys):
    cfg = load_config(_config(tmp_path, '{backend = "telepathy"}'))
    assert run_table(cfg, headless=True, max_seconds=1) == 2
    assert "kiosk run: config [devices]:" in capsys.readouterr().err
    assert GameSession.open(tmp_path / "journal.sqlite").referee.events == ()
