"""An event's own preset file in ``table.preset`` is the touchscreen's rules too: its new-game screen names them
and Start begins a game under them (it said "rules: nsf" and started 25:00 clocks)."""

from __future__ import annotations

from common_fixtures import PIN, make_kiosk

from kiosk.app.config import load_config
from kiosk.app.table import _screen
from kiosk.control.rules_choice import rules_choices
from kiosk.devices.buttons import ScriptedButtons


class _Devices:
    buttons = ScriptedButtons([])


def test_the_new_game_screen_names_and_starts_the_events_preset_file(tmp_path, monkeypatch):
    short = tmp_path / "short.toml"
    short.write_text('extends = "nsf"\nname = "short"\n[clock]\ngame_s = 15\n')
    cfg_path = tmp_path / "t.toml"
    cfg_path.write_text(f'[table]\nplayers = ["Ada", "Bo"]\npreset = "{short}"\njudge_pin = "{PIN}"\n'
                        f'journal = "{tmp_path / "j.sqlite"}"\n[screen]\nsize = [800, 480]\nfullscreen = false\n')
    cfg = load_config(cfg_path)
    kiosk, _ = make_kiosk(tmp_path, players=("Ada", "Bo"), start=False)
    monkeypatch.setenv("DISPLAY", ":0")  # windowed (SDL's dummy driver: no screen needed)
    window = _screen(cfg, kiosk, _Devices(), None, headless=False)
    try:
        assert window is not None and not kiosk.session.in_game  # the players start it on the screen
        window.frame(kiosk)
        ui = window.ui
        assert ui.draw() == "new_game"
        assert "Rules: short" in ui.texts, ui.texts
        ui.tap("Start")
        st = kiosk.state
        assert st.preset == "short" and st.clock.game_ms == 15_000
    finally:
        window.close()
    assert rules_choices(str(short))[0] == str(short) and "short" not in rules_choices(str(short))
    assert "nsf" in rules_choices(str(short))
