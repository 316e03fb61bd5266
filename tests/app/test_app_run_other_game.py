"""``kiosk run`` resumes only its own table's game: a tester's config of Ann and Ben with ``journal =`` a demo's
journal logged "resumed game 1" and the table became "Éléonore vs 😀". A journal whose unfinished game is a
demo's, or has players or rules the config cannot make, is refused at start (exit 2) naming the journal and both
sets of names; a game the new-game screen made from the config's names and a bundled preset still resumes."""

from __future__ import annotations

import pytest
from common_fixtures import headless_config

from kiosk.app.config import load_config
from kiosk.app.table import run_table
from kiosk.referee.events import GameStarted
from kiosk.referee.presets import load_preset
from kiosk.store import GameSession


def _journal_with(path, players, preset="nsf", game_id=""):
    s = GameSession.open(path)
    p = {**load_preset("nsf" if preset == "nsf-as-recorded" else preset).to_dict(), "name": preset}
    assert s.apply(GameStarted(t=1_000, preset=p, players=players, game_id=game_id))
    s.close()


@pytest.mark.parametrize("players, preset, game_id, kind", [
    (("Éléonore", "😀"), "nsf-as-recorded", "demo:0123456789abcdef", " (a kiosk demo's game)"),
    (("Ann", "Bob"), "nsf", "demo:0123456789abcdef", " (a kiosk demo's game)"),
    (("Cy", "Di"), "nsf", "", ""),
])
def test_a_journal_holding_another_tables_game_is_refused_by_name(tmp_path, capsys, players, preset, game_id, kind):
    config = headless_config(tmp_path, buttons='{backend = "scripted", script = []}')
    journal = tmp_path / "journal.sqlite"
    _journal_with(journal, players, preset, game_id)
    assert run_table(load_config(config), headless=True, max_seconds=0.5) == 2
    err = capsys.readouterr().err
    assert (f"kiosk run: journal {journal} holds an unfinished game{kind} of {' vs '.join(players)} under {preset}, "
            f"but {config} has Ann vs Bob under nsf: it is not this table's game and was not resumed") in err
    s = GameSession.open(journal)   # left as it was: not resumed, nothing added
    assert [e.type for e in s.referee.events] == ["game_started"]
    s.close()


def test_a_game_the_new_game_screen_made_still_resumes(tmp_path, caplog):
    config = headless_config(tmp_path, buttons='{backend = "scripted", script = []}')
    journal = tmp_path / "journal.sqlite"
    _journal_with(journal, ("Bob", "Ann", "Player 3"), "home")   # order, count and preset chosen on the screen
    with caplog.at_level("INFO"):
        assert run_table(load_config(config), headless=True, max_seconds=0.5) == 0
    assert any(m.startswith("resumed game 1") for m in caplog.messages)
