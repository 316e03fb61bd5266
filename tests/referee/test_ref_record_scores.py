"""A record's scores against the referee's (kiosk.referee.record_scores), the record's time penalties acted out
on the referee's clock, and numbers no game has (kiosk.referee.records): what ``kiosk stream-game`` publishes."""

import pytest

from kiosk.referee.clock import overtime_for_penalty, overtime_penalty
from kiosk.referee.records import MAX_POINTS, RecordEventsError, RecordScoresError, events_from_gcg
from kiosk.referee.referee import Referee
from kiosk.rules.gcg import parse_gcg
from shared_data import SHARED, needs_shared

REAL = SHARED / "corpus" / "gcg" / "real"
HEAD = "#player1 a Ann\n#player2 b Bob\n"


def _final(source, **kw):
    r = Referee.from_events(events_from_gcg(source, check_scores=True, **kw)).state.result
    assert r is not None
    return r


@needs_shared
@pytest.mark.parametrize("name, final, penalty, wins", [
    ("woogles-io_liwords__pkg_omgwords_testdata__vs_josh_time_penalty.gcg", (387, 397), (70, 0), (0.0, 1.0)),
    ("domino14_macondo__preendgame_testdata__issue_476.gcg", (422, 443), (10, 0), (0.0, 1.0)),
])
def test_ref_record_time_penalties_are_charged_by_the_referee_s_clock(name, final, penalty, wins):
    """stream-game skipped '(time)' lines: cesar 457 published and declared the winner, the record has 387."""
    r = _final(REAL / name)
    assert r.final == final and r.time_penalty == penalty and r.wins == wins


def test_ref_record_overtime_for_a_penalty_is_what_the_clock_charges_for_it():
    for per, unit in ((10, 60_000), (5, 30_000), (10, 1_000), (1, 1_500)):
        for points in (per, 3 * per, 7 * per):
            assert overtime_penalty(overtime_for_penalty(points, per, unit), per, unit) == points
    assert overtime_for_penalty(0, 10, 60_000) == 0 and overtime_for_penalty(70, 0, 60_000) == 0


@pytest.mark.parametrize("text, message", [
    # a move's score: the kiosk counts RETAiNS 64 (the blank scores nothing)
    (HEAD + ">a: ?AEINRT 8D RETAiNS +70 70\n",
     r"^r\.gcg:3: a's play 8D RETAiNS: the record has 70, the kiosk counts 64 under preset naspa$"),
    # a challenge bonus far beyond the preset's (naspa: 5)
    (HEAD + ">a: ?AEINRT 8D RETAiNS +64 64\n>a: ?AEINRT (challenge) +12345 12409\n",
     r"^r\.gcg:4: a's challenge bonus: the record has 12345, the kiosk counts 5 under preset naspa$"),
    # a running total that is not the sum of the scores
    (HEAD + ">a: ?AEINRT 8D RETAiNS +64 64\n>b: OXYZZZZ J6 OX(S) +12 31\n",
     r"^r\.gcg:4: b's total after this line: the record has 31, the kiosk counts 12 under preset naspa$"),
    (HEAD + ">a: ?AEINRT 8D RETAiNS +64 64\n>b: OXYZZZZ J6 OX(S) +13 13\n",
     r"^r\.gcg:4: b's play J6 OX\(S\): the record has 13, the kiosk counts 12 under preset naspa$"),
    # two wrong lines: the first named, the other counted (the second is compared from the recorded total on)
    (HEAD + ">a: ?AEINRT 8D RETAiNS +70 70\n>b: OXYZZZZ J6 OX(S) +12 12\n>a: AAAAAAA - +0 71\n",
     r"^r\.gcg:3: a's play .*; 1 more line differs$"),
])
def test_ref_record_a_score_the_referee_does_not_give_is_named_with_its_line(text, message):
    game = parse_gcg(text, "r.gcg")
    events_from_gcg(game)   # without check_scores: the events, as before
    with pytest.raises(RecordScoresError, match=message) as exc:
        events_from_gcg(game, check_scores=True)
    assert exc.value.mismatches[0].line == int(message.split(":")[1]) and "Traceback" not in str(exc.value)


def test_ref_record_scores_that_agree_raise_nothing_and_later_mismatches_are_counted_once():
    ok = HEAD + ">a: ?AEINRT 8D RETAiNS +64 64\n>b: OXYZZZZ J6 OX(S) +12 12\n>b: OXYZZZZ (challenge) +5 17\n" \
         ">a: AAAAAAA - +0 64\n>b: YZZZZ - +0 17\n"
    assert len(events_from_gcg(parse_gcg(ok, "r.gcg"), check_scores=True)) > 1
    with pytest.raises(RecordScoresError) as exc:
        events_from_gcg(parse_gcg(ok.replace("+12 12", "+20 20").replace("+5 17", "+5 25").replace("+0 17", "+0 25"),
                                  "r.gcg"), check_scores=True)
    assert [m.line for m in exc.value.mismatches] == [4]   # the play; its later total follows the record's


@pytest.mark.parametrize("line, at, what", [
    (">a: ?AEINRT 8D RETAiNS +999999999999999999999999 999999999999999999999999\n", 3, "score"),
    (">a: ?AEINRT 8D RETAiNS +64 64\n>a: (time) -99999999999999999999990 -99999999999999999999926\n", 4, "score"),
    (">a: ?AEINRT 8D RETAiNS +64 64\n>b: ABC (adjust) +999999999999999999999 999999999999999999999\n", 4, "score"),
    (">a: ?AEINRT 8D RETAiNS +64 12345678901234567890\n", 3, "total"),
])
def test_ref_record_numbers_no_game_has_are_refused_by_line(line, at, what):
    """A 24-digit score streamed (exit 0), and would overflow the desk's SQLite and the broadcasts' JSON ints.
    (Refused as the record is read, or, for a game built in code, as it is acted out: the same sentence.)"""
    with pytest.raises(RecordEventsError, match=f"r.gcg:{at}: a {what} of .+ points: no game has such a "
                                                f"number \\(at most {MAX_POINTS:,} either way\\)"):
        events_from_gcg(parse_gcg(HEAD + line, "r.gcg"))


def test_ref_record_refusals_of_the_game_s_start_or_end_name_no_line_0():
    """stream-game said 'p3.gcg:0: the referee refuses game_started: ...' for a 3-player record under naspa."""
    three = "#player1 a Ann\n#player2 b Bob\n#player3 c Cy\n>a: ?AEINRT 8D RETAiNS +64 64\n"
    with pytest.raises(RecordEventsError) as exc:
        events_from_gcg(parse_gcg(three, "p3.gcg"))
    assert str(exc.value) == "p3.gcg: the record has 3 players and preset naspa is for 2: give a preset for 3 players"
    assert len(events_from_gcg(parse_gcg(three, "p3.gcg"), "home", check_scores=True)) > 1
