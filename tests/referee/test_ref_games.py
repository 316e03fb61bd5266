"""Scripted whole games under every preset: they end, the books balance, and the rules' events all occur."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from kiosk.referee import Referee, bundled_presets
from kiosk.referee.gcg_export import export_gcg
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import random_game
from kiosk.rules.gcg import parse_gcg
from kiosk.rules.replay import replay_game


def players_for(preset: str, seed: int) -> tuple[str, ...]:
    p = load_preset(preset)
    n = 2 + seed % (p.max_players - 1) if p.max_players > 2 else 2
    return ("Ann", "Bob", "Cy", "Di")[:n]


@pytest.mark.parametrize("preset", bundled_presets())
def test_ref_whole_games_end_and_balance(preset):
    kinds: Counter = Counter()
    for seed in range(4):
        players = players_for(preset, seed)
        events = random_game(preset, seed, players)
        ref = Referee.from_events(events)
        st = ref.state
        assert st.phase == "over", (preset, seed, st.phase)
        r = st.result
        # every point is accounted for by a history line
        for i in range(len(players)):
            assert sum(h.points for h in st.history if h.player == i) == r.final[i]
        assert abs(sum(r.wins) - 1.0) < 1e-9
        assert ref.pending_prompts()[0].kind == "game_over"
        kinds.update(e.type for e in events)
        kinds.update(h.kind for h in st.history)
    assert kinds["play"] > 50 and kinds["pass"] + kinds["exchange"] > 0
    if preset != "casual":
        assert kinds["withdrawn"] > 0 and kinds["challenge"] > 0
    else:
        assert kinds["withdrawn"] == 0 and kinds["challenge_ruled"] > 0  # VOID: phonies never stand


def test_ref_nsf_whole_game_with_holds_courtesy_overtime_and_double_rack():
    p = load_preset("nsf")
    short = replace(p, clock=replace(p.clock, game_ms=9 * 60_000))  # forces overtime in a scripted game
    seen: Counter = Counter()
    for seed in range(8):
        events = random_game(short, seed)
        ref = Referee.from_events(events)
        st = ref.state
        seen.update(e.type for e in events)
        seen.update(h.kind for h in st.history)
        r = st.result
        if r.went_out is not None:
            opp = 1 - r.went_out
            assert r.rack_adjust[r.went_out] == 2 * _value(r.racks[opp])
            assert r.rack_adjust[opp] == 0
        for i in (0, 1):
            over = st.clock.used_ms[i] - short.clock.game_ms
            assert r.time_penalty[i] == (10 * -(-(over // 1000) // 60) if over >= 1000 else 0)
        g = parse_gcg(export_gcg(st), f"nsf-{seed}")
        res = replay_game(g)
        assert [str(x) for x in res.problems] == [] and res.totals == list(r.final)
    for kind in ("hold", "hold_released", "courtesy_draw", "withdrawn", "challenge_bonus", "end_rack",
                 "time_penalty", "blank_designated", "exchange", "window_closed"):
        assert seen[kind] > 0, kind


def _value(rack: str) -> int:
    from kiosk.rules.tiles import ENGLISH

    return ENGLISH.rack_value(rack)


@pytest.mark.parametrize("preset", bundled_presets())
def test_ref_whole_games_ending_in_six_scoreless_turns(preset):
    endings = Counter()
    for seed in range(6):
        events = random_game(preset, seed, players_for(preset, seed), pass_rate=0.55)
        st = Referee.from_events(events).state
        assert st.phase == "over"
        endings[st.result.reason] += 1
        if st.result.reason == "six_scoreless":
            p = load_preset(preset)
            assert events[-1].type == "racks_entered"
            values = [_value(r) for r in st.result.racks]
            expect = [-v for v in values] if p.end.no_out_adjustment == "own_rack" else [0] * len(values)
            assert list(st.result.rack_adjust) == expect
            assert st.scoreless_run >= 6
    assert endings["six_scoreless"] > 0, endings
