"""A GCG record as referee events (kiosk.referee.records): each kind of line acted out as at a real table."""

import pytest

from kiosk.referee.records import RecordEventsError, RefereeEvents, events_from_gcg, tiles_laid
from kiosk.referee.referee import Referee
from kiosk.rules.board import parse_coordinate
from kiosk.rules.gcg import parse_gcg

RECORD = """#player1 a Ann
#player2 b Bob
>a: ?AEINRT 8D RETAiNS +66 66
>b: OXYZZZZ J6 OX(S) +13 13
>b: OXYZZZZ -- -13 0
>a: AAAAAAA - +0 66
>b: OXYZZZZ J6 OX(S) +13 13
>b: (challenge) +5 18
"""


def test_ref_record_lines_become_the_events_a_table_makes():
    game = parse_gcg(RECORD, "r.gcg")
    events = events_from_gcg(game)
    assert [e.type for e in events] == [
        "game_started",
        "play", "blank_designated",                           # the blank is placed as ? and then named
        "play", "challenge", "challenge_ruled", "tiles_removed",  # "--": challenged off
        "pass",
        "play", "challenge", "challenge_ruled",               # "(challenge) +5": the play stood
    ]
    retains = parse_coordinate("8D").squares(7)
    assert events[1].tiles == tuple(zip(retains, "RETA?NS"))
    assert (events[2].square, events[2].letter) == (retains[4], "I")
    assert events[3].tiles == tuple(zip(parse_coordinate("J6").squares(2), "OX"))  # S played through
    assert [e.acceptable for e in events if e.type == "challenge_ruled"] == [False, True]
    assert [e.player for e in events if e.type == "challenge"] == [0, 0]
    times = [e.t for e in events]
    assert times == sorted(times) and times[0] == 1_000 and times[1] - times[0] == 15_000
    st = Referee.from_events(events).state
    assert st.scores == (64, 17) and st.phase == "playing" and st.on_move == 0  # naspa: RETAiNS 64
    visitor = RefereeEvents("naspa")
    assert game.accept(visitor) == events  # the visitor itself
    acts = visitor.by_line()  # what each record line became (the demo's players act these out)
    assert sorted(acts) == [3, 4, 5, 6, 7, 8] and acts[3] == tuple(events[1:3]) and acts[5] == tuple(events[4:7])
    assert tiles_laid(acts[3]) == tuple(zip(retains, "RETAiNS")) and tiles_laid(acts[6]) == ()


@pytest.mark.parametrize("text, message", [
    (RECORD.replace(">a: ?AEINRT 8D RETAiNS +66 66", ">a: ?AEINRT 8D RETAiNS 66"), r"r.gcg:3: no score"),
    (RECORD.replace("J6 OX(S) +13 13\n>b: OXYZZZZ --", "J6 OXY +13 13\n>b: OXYZZZZ --"),
     r"r.gcg:4: the referee refuses play"),
    ("#player1 a Ann\n", "r.gcg: 1 player in the record"),
])
def test_ref_record_the_referee_cannot_follow_is_named(text, message):
    with pytest.raises(RecordEventsError, match=message):
        events_from_gcg(parse_gcg(text, "r.gcg"))


def test_ref_record_letters_already_on_the_board_are_played_through_without_parentheses():
    # old Quackle files write played-through letters plainly: OXS over the S of RETAiNS is the same move as OX(S)
    # (the game ids differ: without #id a record's id hashes its lines as written, kiosk.referee.game_id)
    plain = events_from_gcg(parse_gcg(RECORD.replace("OX(S)", "OXS"), "r.gcg"), game_id="r")
    assert plain == events_from_gcg(parse_gcg(RECORD, "r.gcg"), game_id="r")


def test_ref_record_with_one_nick_for_both_players_goes_by_turn_order():
    record = "#player1 x Ann\n#player2 x Bob\n>x: ?AEINRT 8D RETAiNS +64 64\n>x: OXYZZZZ J6 OX(S) +12 12\n"
    events = events_from_gcg(parse_gcg(record, "r.gcg"))
    assert [(e.type, e.player) for e in events if e.type == "play"] == [("play", 0), ("play", 1)]
    assert Referee.from_events(events).state.scores == (64, 12)
