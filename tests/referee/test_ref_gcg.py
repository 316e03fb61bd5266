"""Real games refereed from their GCG records give the recorded finals; the referee's GCG export replays clean.

Reads ../shared/corpus (skips when ../shared is absent). A record's events become referee events: plays as
board readings, withdrawn phonies as challenges ruled unacceptable, challenge bonuses as failed challenges,
the out-play accepted, six-zero endings with the racks entered.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from kiosk.referee import Referee
from kiosk.referee.events import Challenge, ChallengeRuled, Pass, TilesRemoved
from kiosk.referee.gcg_export import export_gcg
from kiosk.referee.presets import load_preset
from kiosk.referee.records import events_from_gcg
from kiosk.referee.simulate import random_game
from kiosk.rules.gcg import EventKind, parse_gcg, read_gcg
from kiosk.rules.replay import replay_game
from shared_data import SHARED, needs_shared

CORPUS = SHARED / "corpus" / "gcg"


def corpus_files(limit_real: int = 60, limit_self: int = 25) -> list[Path]:
    """Complete English two-player games with a standard ending, from the corpus manifest."""
    if not CORPUS.is_dir():
        return []
    out_real, out_self = [], []
    for line in (CORPUS / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        name, notes = cols[0], cols[-1]
        if "| complete;" not in notes or "english-score-check" not in notes or "scrabscrap" in name:
            continue
        m = re.search(r"english-score-check (\d+)/(\d+) ok", notes)
        if not m or m.group(1) != m.group(2) or not re.search(r"end=(NASPA_2x|WESPA_1x|six_zero_penalties)", notes):
            continue
        if "time_penalty" in notes:  # the referee charges time from its own clock, not from a record's line
            continue
        (out_self if name.startswith("selfplay/") else out_real).append(CORPUS / name)
    return out_real[:limit_real] + out_self[:limit_self]


def referee_events(game) -> tuple[list, dict]:
    """Referee events for a parsed GCG game (the one conversion, kiosk.referee.records, under a preset that
    follows the record's challenge bonus and end style); also returns facts about the record."""
    bonus = [e.score for e in game.events if e.kind is EventKind.CHALLENGE_BONUS]
    out_lines = [e for e in game.events if e.kind is EventKind.END_RACK and e.score > 0]
    opp_lines = [e for e in game.events if e.kind is EventKind.END_RACK and e.score < 0]
    one_x = bool(out_lines and opp_lines)
    base = load_preset("wespa" if one_x else "naspa")
    preset = replace(base, name="corpus", challenge=replace(base.challenge, rule="custom", wrong_bonus=bonus[0] if bonus else 5,
                                                           wrong_bonus_per_word=False),
                     end=replace(base.end, scoreless_needs_nonzero=False))
    evs = events_from_gcg(game, preset, step_ms=10_000, start_ms=0)
    return evs, {"finals": _finals(game)}


def _finals(game) -> list[int]:
    last = {}
    for e in game.events:
        last[game.player_index(e.nick)] = e.cumulative
    return [last.get(i, 0) for i in range(len(game.players))]


@needs_shared
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name[:60])
def test_ref_corpus_game_refereed_to_the_recorded_final(path):
    game = read_gcg(path)
    assert not game.errors and not any(e.kind is EventKind.TIME_PENALTY for e in game.events), path.name
    events, facts = referee_events(game)
    ref = Referee.from_events(events)
    st = ref.state
    assert st.phase == "over", f"{path.name}: game did not end ({st.phase})"
    assert list(st.result.final) == facts["finals"]
    # the export of the refereed game replays with no mismatch and no error
    text = export_gcg(st, title=path.stem)
    res = replay_game(parse_gcg(text, path.name))
    assert [str(p) for p in res.problems] == []
    assert res.totals == list(st.result.final)


@needs_shared
def test_ref_corpus_has_challenges_and_six_zero_endings():
    files = corpus_files()
    notes = " ".join(read_gcg(f).name for f in files)
    kinds = set()
    for f in files:
        kinds.update(e.kind for e in read_gcg(f).events)
    assert {EventKind.WITHDRAWN, EventKind.CHALLENGE_BONUS, EventKind.EXCHANGE} <= kinds, notes[:100]


@pytest.mark.parametrize("preset", ["nsf", "naspa", "wespa", "home", "casual"])
def test_ref_export_of_refereed_games_replays_clean(preset):
    for seed in range(6):
        ref = Referee.from_events(random_game(preset, seed))
        st = ref.state
        text = export_gcg(st, lexicon="NWL2023", title=f"{preset} {seed}")
        g = parse_gcg(text, f"{preset}-{seed}")
        assert g.errors == []
        res = replay_game(g)
        assert [str(p) for p in res.problems] == [], text
        assert res.totals == list(st.result.final)
        kinds = {e.kind for e in g.events}
        assert EventKind.PLAY in kinds and EventKind.END_RACK in kinds or st.result.rack_adjust == (0, 0)


def test_ref_export_writes_challenge_withdrawn_time_and_end_lines():
    from dataclasses import replace as rep

    from kiosk.referee.simulate import Script

    p = load_preset("nsf")
    s = Script(rep(p, clock=rep(p.clock, game_ms=60_000)))
    s.play(0, "8D", "QUIRT", 90_000)                                  # Ann 30 s over
    s.do(Challenge, 95_000, player=1)
    s.do(ChallengeRuled, 96_000, acceptable=True)                     # +10 to Ann, Bob keeps the turn
    s.play(1, "E7", "OU", 100_000)
    s.do(Challenge, 101_000, player=0)
    s.do(ChallengeRuled, 102_000, acceptable=False)                   # Bob's phony comes off
    s.do(TilesRemoved, 103_000)
    for i, who in enumerate((0, 1, 0, 1, 0)):
        s.do(Pass, 104_000 + i * 1_000, player=who)                  # six scoreless turns with the withdrawal
    assert s.state.phase == "rack_entry"
    from kiosk.referee.events import RacksEntered as RE

    s.do(RE, 120_000, racks=("AAAAAAA", "EEEEEEE"))
    text = export_gcg(s.state)
    lines = [ln for ln in text.splitlines() if ln.startswith(">")]
    assert lines[0] == ">Ann: 8D QUIRT +48 48"
    assert lines[1] == ">Ann: (challenge) +10 58"
    assert lines[3] == ">Bob: -- -2 0"
    assert ">Ann: AAAAAAA (AAAAAAA) -7 51" in lines and ">Bob: EEEEEEE (EEEEEEE) -7 -7" in lines
    assert lines[-1] == ">Ann: (time) -10 41"
    res = replay_game(parse_gcg(text, "x"))
    assert [str(p) for p in res.problems] == [] and res.totals == [41, -7]


def test_ref_kiosk_replay_command_accepts_the_export(tmp_path, capsys):
    import argparse

    from kiosk.commands import replay

    ref = Referee.from_events(random_game("nsf", seed=21))
    path = tmp_path / "game.gcg"
    path.write_text(export_gcg(ref.state, title="kiosk replay check"), encoding="utf-8")
    parser = argparse.ArgumentParser()
    replay.add_arguments(parser)
    assert replay.run(parser.parse_args([str(path)])) == 0
    assert "1 games" in capsys.readouterr().out
