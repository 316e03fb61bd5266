"""``kiosk run`` on a table whose screen cannot be opened (SDL's kmsdrm driver without /dev/dri, as the systemd
unit sets it): it crashed with a traceback, then 'terminate called without an active exception' (exit 134), so a
Pi without the screen crash-looped. Now it says in a sentence that the screen cannot be opened and why, and the
table runs on without it: clock buttons, journal, stream (README: device trouble never stops the kiosk)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from common_fixtures import headless_config

from kiosk.app import table
from kiosk.app.config import load_config
from kiosk.store import GameSession

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp: Path) -> Path:
    """A table of Ann and Bob with a scripted press, the synthetic camera, a fullscreen screen (the default)."""
    path = headless_config(tmp, buttons='{backend = "scripted", script = [[300, "left"]]}',
                           display='{backend = "simulated"}')
    path.write_text(path.read_text().replace('camera = {backend = "none"}', 'camera = {backend = "synthetic"}'))
    return path


def test_kiosk_run_goes_on_without_a_screen_that_cannot_be_opened(tmp_path):
    driver = "kmsdrm" if not Path("/dev/dri").exists() else "no-such-driver"  # a driver that cannot open here
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(PYTHONPATH=str(ROOT), SDL_VIDEODRIVER=driver)
    proc = subprocess.run([sys.executable, "-m", "kiosk", "run", "--config", str(_config(tmp_path)), "--seconds", "4"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and "terminate called" not in proc.stderr, proc.stderr
    assert f"kiosk run: The screen cannot be opened with SDL's {driver} video driver (" in proc.stderr
    assert "The table goes on without it: the clock buttons, the journal and the stream work" in proc.stderr
    session = GameSession.open(tmp_path / "journal.sqlite")
    try:  # the config's players started at once, as headless, and the clock button's press reached the journal
        assert [e.type for e in session.referee.events][:2] == ["game_started", "clock_pressed"]
    finally:
        session.close()


def test_a_screen_that_cannot_be_opened_is_said_and_the_game_starts_without_it(tmp_path, monkeypatch, capsys):
    import pygame

    class NoScreen:
        def __init__(self, *a: object, **k: object) -> None:
            raise pygame.error("kmsdrm not available")

    monkeypatch.setattr("kiosk.ui.window.DemoWindow", NoScreen)
    monkeypatch.setenv("SDL_VIDEODRIVER", "kmsdrm")
    cfg = load_config(headless_config(tmp_path, buttons='{backend = "scripted", script = [[100, "left"]]}'))
    assert cfg.fullscreen  # a screen is wanted
    assert table.run_table(cfg, max_seconds=1.5) == 0
    err = capsys.readouterr().err
    assert "The screen cannot be opened with SDL's kmsdrm video driver (kmsdrm not available)." in err
    session = GameSession.open(tmp_path / "journal.sqlite")
    try:
        # (no camera: the press is handed back at once for the judge to enter the move)
        assert [e.type for e in session.referee.events] == ["game_started", "clock_pressed", "press_withdrawn"]
    finally:
        session.close()


def test_a_screen_lost_during_the_game_is_said_and_the_table_goes_on(tmp_path, monkeypatch, capsys):
    import pygame

    closed = []

    class LostScreen:
        def __init__(self, *a: object, **k: object) -> None:
            pass

        def frame(self, kiosk: object) -> bool:
            raise pygame.error("video system not initialized")

        def close(self) -> None:
            closed.append(True)

    monkeypatch.setattr("kiosk.ui.window.DemoWindow", LostScreen)
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    session = GameSession.open(tmp_path / "journal.sqlite")  # a game in progress: the screen is its only starter
    from kiosk.referee.events import GameStarted
    from kiosk.referee.presets import load_preset

    assert session.apply(GameStarted(t=0, preset=load_preset("nsf").to_dict(), players=("Ann", "Bob")))
    session.close()
    cfg = load_config(headless_config(tmp_path, buttons='{backend = "scripted", script = [[300, "left"]]}'))
    assert table.run_table(cfg, max_seconds=1.5) == 0
    assert "kiosk run: The screen cannot be opened (video system not initialized)." in capsys.readouterr().err
    assert closed
    session = GameSession.open(tmp_path / "journal.sqlite")
    try:  # the press after the screen went away still reached the journal
        assert "clock_pressed" in [e.type for e in session.referee.events]
    finally:
        session.close()


def test_a_screen_sdl_draws_off_screen_unasked_is_no_screen_and_the_game_starts(tmp_path, monkeypatch, capsys):
    """Without DISPLAY and SDL_VIDEODRIVER, SDL fell back to its offscreen driver: kiosk run said nothing, exit 0,
    and waited for ever on a new-game screen nobody could see (no game started). A driver that shows nothing is
    taken only when SDL_VIDEODRIVER asks for it."""
    import pygame

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")          # what this machine can open ...
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "offscreen")   # ... SDL's fallback, unasked
    cfg = load_config(headless_config(tmp_path, buttons='{backend = "scripted", script = [[100, "left"]]}'))
    assert table.run_table(cfg, max_seconds=1.5) == 0
    err = capsys.readouterr().err
    assert "(no display was found: SDL fell back to its offscreen driver, which shows nothing)" in err
    session = GameSession.open(cfg.journal)
    try:   # the config's players started at once, as headless
        assert [e.type for e in session.referee.events][:1] == ["game_started"]
    finally:
        session.close()

