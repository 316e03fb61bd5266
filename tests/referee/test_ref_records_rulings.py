"""The one conversion of a record into referee events (kiosk.referee.records.RefereeEvents) as ``kiosk stream-game``
(events_from_gcg with the scores checked, and the command itself on a local broker) and ``kiosk demo --game``
(plan_record) use it: a VOID preset's plays are ruled at once, a failed challenge's penalty is the challenger's
the line names, and a record's numbers have one bound (the GCG reader's)."""

from __future__ import annotations

import json

import pytest

from kiosk.app.record_players import plan_record
from kiosk.cli import main
from kiosk.referee import records
from kiosk.referee.events import Challenge, ChallengeRuled, TilesRemoved
from kiosk.referee.records import RefereeEvents, events_from_gcg
from kiosk.referee.referee import Referee
from kiosk.rules import gcg
from kiosk.rules.gcg import parse_gcg

# Ann plays, Cy (the third player, not the next) challenges and loses: team charges the challenger 10 points
THREE = """#player1 Ann Ann
#player2 Bob Bob
#player3 Cy Cy
>Ann: AEINRST 8D RETAINS +66 66
>Cy: (challenge) -10 -10
>Bob: ABCDEFG - +0 0
>Cy: EIOUVWY - +0 -10
"""

# casual (VOID): Ann's phony is refused before it stands and she plays again; Bob's play stands at once
VOID = """#player1 A Ann
#player2 B Bob
>A: AEINRST 8D RETAINS +66 66
>A: AEINRST -- -66 0
>A: AEINRST 8D RETAINS +66 66
>B: ADEHIRT 9F HAD +19 19
"""


@pytest.fixture(scope="module")
def p4(tmp_path_factory) -> str:
    """``kiosk selfplay --seed 12 --players 4 --preset team``: a whole 4-player game, no challenges."""
    path = tmp_path_factory.mktemp("selfplay") / "p4.gcg"
    assert main(["selfplay", "--seed", "12", "--players", "4", "--preset", "team", "--quiet", "-o", str(path)]) == 0
    return path.read_text(encoding="utf-8")


def test_a_failed_challenges_penalty_is_the_challenger_the_line_names():
    events = events_from_gcg(parse_gcg(THREE, "r.gcg"), "team", check_scores=True)   # stream-game's conversion
    assert [e.player for e in events if isinstance(e, Challenge)] == [2]   # Cy, not Bob (the player after Ann)
    st = Referee.from_events(events).state
    assert st.scores == (66, 0, -10)    # the record's totals (Bob was charged before: 66, -10, 0)


def test_the_demo_has_the_challenger_the_line_names():
    plan = plan_record(parse_gcg(THREE, "r.gcg"))   # kiosk demo --game: the events each record line became
    assert [(e.type, getattr(e, "player", None)) for e in plan.acts[5]] == [("challenge", 2),
                                                                            ("challenge_ruled", None)]


def test_a_void_presets_record_is_refereed_to_its_end(p4):
    """casual (VOID): each play is ruled at once; it never waited for a ruling that never came."""
    events = events_from_gcg(parse_gcg(p4, "p4.gcg"), "casual", check_scores=True)
    st = Referee.from_events(events).state
    assert st.phase == "over" and st.scores == (216, 117, 160, 148)   # the record's finals
    assert all(e.acceptable for e in events if isinstance(e, ChallengeRuled))
    assert not any(isinstance(e, Challenge) for e in events)


def test_a_void_presets_phony_is_refused_before_it_stands():
    conv = RefereeEvents("casual")
    events = parse_gcg(VOID, "r.gcg").accept(conv)
    conv.check_scores()    # the refused play never entered the scoresheet: nor are its lines compared
    acts = conv.by_line()
    assert [type(e) for e in acts[4]] == [ChallengeRuled, TilesRemoved] and not acts[4][0].acceptable
    assert [e.acceptable for e in events if isinstance(e, ChallengeRuled)] == [False, True, True]
    assert Referee.from_events(events).state.scores == (66, 19)


def test_the_demo_plans_a_void_presets_record(p4):
    plan = plan_record(parse_gcg(p4, "p4.gcg"), "casual")   # was "the referee cannot follow the record"
    assert plan.preset.challenge.rule == "void"
    plays = [e.line for e in plan.events if e.kind is gcg.EventKind.PLAY]
    assert all(any(isinstance(a, ChallengeRuled) and a.acceptable for a in plan.acts[line]) for line in plays)


@pytest.mark.parametrize("preset, record", [("team", "three"), ("casual", "p4"), ("casual", "void")])
def test_stream_game_publishes_the_records_scores(broker, tmp_path, p4, preset, record):
    text = {"three": THREE, "p4": p4, "void": VOID}[record]
    path = tmp_path / f"{record}.gcg"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "records"
    out.mkdir()
    assert main(["stream-game", str(path), "--mqtt", f"127.0.0.1:{broker.port}", "--preset", preset,
                 "--records", str(out), "--timeout", "20"]) == 0
    (result,) = out.glob("*.result.json")
    finals = {"three": [66, 0, -10], "p4": [216, 117, 160, 148], "void": [66, 19]}[record]
    assert json.dumps(finals) in json.dumps(json.loads(result.read_text(encoding="utf-8")))


def test_a_records_numbers_have_one_bound():
    assert records.MAX_POINTS is gcg.MAX_POINTS   # the conversion's limit is the GCG reader's, not a copy


def test_a_record_of_another_tile_set_is_named_with_the_preset_that_fits(tmp_path):
    # a German game (umlauts) under an English preset: its first such play was refused as "not a tile of the
    # english set on H8", with no word on how to stream or judge a German game
    import pytest

    from kiosk.referee.records import RecordEventsError
    text = "#player1 A Anna\n#player2 B Ben\n>A: ÄEGLRST 8D GLÄSERT +70 70\n"
    with pytest.raises(RecordEventsError) as exc:
        events_from_gcg(parse_gcg(text, "de.gcg"), "naspa")
    assert str(exc.value) == ("de.gcg: the record's tiles hold Ä, which the english set of preset naspa does not "
                              'have: give a preset of the german set: a file holding extends = "naspa" and '
                              'tile_set = "german", given as the preset (FILE.toml)')
    preset = tmp_path / "de.toml"
    preset.write_text('extends = "naspa"\nname = "naspa-german"\ntile_set = "german"\n')
    assert events_from_gcg(parse_gcg(text, "de.gcg"), str(preset))[0].type == "game_started"


def test_a_record_of_one_player_is_said_in_the_singular():
    import pytest

    from kiosk.referee.records import RecordEventsError
    with pytest.raises(RecordEventsError, match=r"^one\.gcg: 1 player in the record \(a game has 2 to 4\)$"):
        events_from_gcg(parse_gcg("#player1 A Ann\n", "one.gcg"), "naspa")
