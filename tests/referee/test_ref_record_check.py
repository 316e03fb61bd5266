"""``kiosk replay --preset``: a record judged by the referee under the preset, every rule of it
(:mod:`kiosk.referee.record_check`), where the replay used to check only the preset's scoring part."""

from pathlib import Path

import pytest

from kiosk.cli import main
from kiosk.referee.presets import load_preset
from kiosk.referee.record_check import judge_record
from kiosk.rules.gcg import parse_gcg, read_gcg
from kiosk.rules.replay import replay_game

TWO = "#player1 A Ann\n#player2 B Bob\n"


@pytest.fixture(scope="module")
def selfplay(tmp_path_factory) -> dict[str, str]:
    """sp: ``selfplay --seed 5`` (two players, naspa); p4: ``selfplay --seed 12 --players 4 --preset team``."""
    d = tmp_path_factory.mktemp("selfplay")
    assert main(["selfplay", "--seed", "5", "--quiet", "-o", str(d / "sp.gcg")]) == 0
    assert main(["selfplay", "--seed", "12", "--players", "4", "--preset", "team", "--quiet", "-o",
                 str(d / "p4.gcg")]) == 0
    return {k: (d / f"{k}.gcg").read_text(encoding="utf-8") for k in ("sp", "p4")}


def judged(text: str, preset: str) -> list[str]:
    return [str(p) for p in judge_record(parse_gcg(text, "r.gcg"), load_preset(preset)).problems]


def test_end_of_game_rack_points_follow_the_preset(selfplay):
    sp, p4 = selfplay["sp"], selfplay["p4"]
    assert ">Ada: (IU) +4 426" in sp and ">Ada: (DLQTU) +15 216" in p4
    assert judged(sp, "naspa") == []   # NASPA: twice the opponent's rack
    # club-reading adds nothing at the end (its scoring rule 6); the replay said "computed 4, recorded 0"
    assert judged(sp.replace(">Ada: (IU) +4 426", ">Ada: (IU) +0 422"), "club-reading") == []
    assert judged(sp, "club-reading") == ["r.gcg:37: mismatch: Ada's end-of-game rack points under preset "
                                          "club-reading: computed 0, recorded 4"]
    assert judged(p4, "team") == []
    # home: the out player adds nothing (own_only); the replay accepted +15 and refused the right +0
    assert judged(p4, "home") == [
        "r.gcg:37: mismatch: Ada's end-of-game rack points under preset home: computed 0, recorded 15"]
    assert judged(p4.replace(">Ada: (DLQTU) +15 216", ">Ada: (DLQTU) +0 201"), "home") == []


@pytest.mark.parametrize("bonus", ["+5 71", "+12345 12411"])
def test_the_challenge_bonus_is_the_presets(bonus):
    text = TWO + f">A: AEINRST 8D RETAINS +66 66\n>A: AEINRST (challenge) {bonus}\n"
    recorded = int(bonus.split()[0])
    assert judged(text, "nsf") == [f"r.gcg:4: mismatch: A's challenge bonus under preset nsf: computed 10, "
                                   f"recorded {recorded}"]
    assert judged(TWO + ">A: AEINRST 8D RETAINS +66 66\n>A: AEINRST (challenge) +10 76\n", "nsf") == []


def test_exchange_counts_and_the_scoreless_end_are_the_referees():
    three = TWO + ">A: ABCDEFG -ABC +0 0\n>B: AEINRST 8D RETAINS +66 66\n"
    assert judged(three, "team") == ["r.gcg:3: error: preset team: the referee refuses this exchange: "
                                     "under 'team' exchange one tile or all 7"]
    assert judged(three, "nsf") == []
    passes = "".join(f">{'AB'[i % 2]}: ABCDEFG - +0 0\n" for i in range(6))
    six = TWO + passes + ">A: AEINRST 8D RETAINS +66 66\n>B: AEIOUUV -UUV +0 0\n"
    assert judged(six, "nsf") == []    # nsf III.A: six scoreless turns end the game unless the score is 0-0
    assert judged(six, "naspa") == ["r.gcg:9: error: move after the game ended (six scoreless turns)"]
    assert [str(p) for p in replay_game(parse_gcg(six, "r.gcg")).problems] == [
        "r.gcg:9: error: move after the game ended (six scoreless turns)"]   # no preset: as GCG engines


def test_the_presets_player_count(selfplay):
    assert judged(selfplay["p4"], "nsf") == ["r.gcg: error: 4 players in the record, but preset nsf is for 2 players"]


def test_a_void_preset_rules_every_play_at_once(selfplay):
    assert judged(selfplay["p4"], "casual") == []
    # VOID: a phony is refused before it stands, and its player plays again
    withdrawn = TWO + ">A: AEINRST 8D RETAINS +66 66\n>A: AEINRST -- -66 0\n>{} AEINRST 8D RETAINS +66 66\n"
    assert judged(withdrawn.format("A:"), "casual") == []
    assert judged(withdrawn.format("B:"), "casual") == [
        "r.gcg:5: error: preset casual: the referee refuses this play: it is Ann's turn, not Bob's"]


def test_cli_judges_by_the_preset(selfplay, tmp_path, capsys):
    sp = tmp_path / "sp.gcg"
    sp.write_text(selfplay["sp"].replace(">Ada: (IU) +4 426", ">Ada: (IU) +0 422"), encoding="utf-8")
    assert main(["replay", "--preset", "club-reading", str(sp)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 games, 31 moves, 0 mismatches"
    assert main(["replay", "--preset", "naspa", str(sp)]) == 1
    assert f"{sp}:37: mismatch: Ada's end-of-game rack points under preset naspa: computed 4, recorded 0" in capsys.readouterr().out
    p4 = tmp_path / "p4.gcg"
    p4.write_text(selfplay["p4"], encoding="utf-8")
    assert main(["replay", "--preset", "nsf", "--json", str(p4)]) == 1
    out = capsys.readouterr().out
    assert "4 players in the record, but preset nsf is for 2 players" in out and "Traceback" not in out


def test_records_of_the_kiosks_own_referee_are_judged_clean(tmp_path):
    """Every bundled preset: a game the referee played, exported as GCG, is judged clean under that preset."""
    from kiosk.referee.gcg_export import export_gcg
    from kiosk.referee.presets import bundled_presets
    from kiosk.referee.referee import Referee
    from kiosk.referee.simulate import random_game

    for name in bundled_presets():
        preset = load_preset(name)
        players = ("Ann", "Bob", "Cy")[:max(2, min(3, preset.max_players))]
        ref = Referee()
        for ev in random_game(name, seed=3, players=players):
            ref.apply(ev)
        path = Path(tmp_path / f"{name}.gcg")
        path.write_text(export_gcg(ref.state), encoding="utf-8")
        res = judge_record(read_gcg(path), preset)
        assert [str(p) for p in res.problems] == [], name
