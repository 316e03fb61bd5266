"""The referee and its one GCG conversion with 3 and 4 players (seeds 003 home and 004 team: 2-4 players or
teams): a self-play record becomes referee events whose result is the record's totals, and the kiosk's GCG export
of that game (``#player3``/``#player4``) replays under the preset to the same totals."""

from __future__ import annotations

import pytest

from kiosk.referee.gcg_export import export_gcg
from kiosk.referee.presets import load_preset
from kiosk.referee.records import events_from_gcg
from kiosk.referee.referee import Referee
from kiosk.rules.gcg import parse_gcg
from kiosk.rules.replay import replay_game
from kiosk.tools.selfplay import self_play


@pytest.mark.parametrize(("preset", "names", "seed"), [("team", ("Ada", "Bo", "Cy", "Di"), 1),
                                                        ("home", ("Ada", "Bo", "Cy"), 1)])
def test_n_player_record_referee_and_export_agree(preset, names, seed):
    p = load_preset(preset)
    game = self_play(seed, names, preset=p)
    recorded = replay_game(game, rules=p.scoring_rules())
    assert not recorded.problems and recorded.ended == "out"
    ref = Referee()
    for ev in events_from_gcg(game, preset):
        assert ref.apply(ev), ev
    st = ref.state
    assert st.result is not None and list(st.result.final) == recorded.totals
    # each other player's own rack, as the record's own-rack lines have them (the out player's line lists
    # every other rack together and is no rack of his: it was entered as his before, and the racks split anyhow)
    own = {ev.nick: ev.tiles for ev in game.events if ev.kind == "end_rack" and ev.score < 0}
    assert {names[i]: r for i, r in enumerate(st.result.racks) if r} == own
    text = export_gcg(st)
    assert f"#player{len(names)} {names[-1]}" in text
    exported = replay_game(parse_gcg(text, "export.gcg"), rules=p.scoring_rules())
    assert not exported.problems and exported.totals == recorded.totals
