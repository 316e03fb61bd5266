"""Any event, however wrong, is either applied or refused with a reason; a refusal changes nothing."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.referee import Referee
from kiosk.referee import events as E
from kiosk.referee.simulate import random_game

BASE = random_game("nsf", seed=13)
CUTS = [5, 20, 40, len(BASE) - 3]
_REFS = {}


def referee_at(cut: int) -> Referee:
    if cut not in _REFS:
        _REFS[cut] = BASE[:cut]
    return Referee.from_events(_REFS[cut])


players = st.one_of(st.integers(0, 1), st.integers(0, 1), st.integers(-2, 4))
times = st.just(0)  # replaced by the referee's last time plus an offset when applied
offsets = st.one_of(st.integers(0, 30_000), st.integers(-2_000, 2_000_000))
squares = st.integers(-5, 230)
letters = st.sampled_from(["A", "Z", "?", "a", "e", "Q", "1", "", "AB", "Ä"])
tiles = st.lists(st.tuples(squares, letters), max_size=9).map(tuple)
words = st.lists(st.sampled_from(["QI", "ZZZ", "", "cat", "AE"]), max_size=3).map(tuple)

any_event = st.one_of(
    st.builds(E.ClockPressed, t=times, player=players),
    st.builds(E.Play, t=times, player=players, tiles=tiles),
    st.builds(E.BlankDesignated, t=times, player=players, square=squares, letter=letters),
    st.builds(E.Pass, t=times, player=players),
    st.builds(E.Exchange, t=times, player=players, count=st.integers(-2, 9)),
    st.builds(E.Drew, t=times, player=players),
    st.builds(E.Hold, t=times, player=players),
    st.builds(E.HoldReleased, t=times, player=players),
    st.builds(E.CourtesyNotice, t=times),
    st.builds(E.CourtesyDraw, t=times, player=players),
    st.builds(E.Challenge, t=times, player=players, words=words),
    st.builds(E.ChallengeRuled, t=times, acceptable=st.booleans(), invalid=words),
    st.builds(E.ChallengeWithdrawn, t=times, player=players),
    st.builds(E.TilesRemoved, t=times),
    st.builds(E.OutplayAccepted, t=times, player=players),
    st.builds(E.WindowClosed, t=times),
    st.builds(E.TimeWarning, t=times, kind=st.sampled_from(["turn", "session", "x"]),
              remaining_ms=st.integers(0, 400_000)),
    st.builds(E.TurnTimeExpired, t=times, player=players),
    st.builds(E.OvertimeStarted, t=times, player=players),
    st.builds(E.OvertimeCapExceeded, t=times, player=players),
    st.builds(E.SessionTimeUp, t=times),
    st.builds(E.ClockNeutralised, t=times, reason=st.sampled_from(["", "judge", " "])),
    st.builds(E.ClockResumed, t=times),
    st.builds(E.JudgeAdjustment, t=times, player=players, points=st.integers(-50, 50),
              reason=st.sampled_from(["", "fix"])),
    st.builds(E.GameCalled, t=times, reason=st.sampled_from(["", "time"]), as_it_stands=st.booleans()),
    st.builds(E.PressWithdrawn, t=times, player=players),
    st.builds(E.Resigned, t=times, player=players, reason=st.sampled_from(["", "unwell"])),
    st.builds(E.LateArrival, t=times, player=players, late_ms=st.sampled_from([-1, 0, 200_000, 1_000_000])),
    st.builds(E.TimeAdded, t=times, player=players, added_ms=st.sampled_from([0, 60_000]),
              reason=st.sampled_from(["", "objections"])),
    st.builds(E.RacksEntered, t=times, racks=st.lists(st.sampled_from(["", "AEIOU??", "ZZ", "EEEEEEE", "x"]),
                                                       max_size=3).map(tuple)),
    st.builds(E.KioskResumed, t=times, down_since=times),
    st.builds(E.GameStarted, t=times, preset=st.just({"name": "x"}), players=st.just(("A", "B"))),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.sampled_from(CUTS), evs=st.lists(st.tuples(any_event, offsets), min_size=1, max_size=8))
def test_ref_any_event_is_applied_or_refused_without_change(cut, evs):
    ref = referee_at(cut)
    for ev, offset in evs:
        before, n = ref.state, len(ref.events)
        t = max(0, before.last_t + offset)
        ev = replace(ev, t=t, **({"down_since": max(0, t - offset // 2)} if isinstance(ev, E.KioskResumed) else {}))
        res = ref.apply(ev)
        assert res.code != "internal", res.reason
        if res.accepted:
            assert len(ref.events) == n + 1
        else:
            assert res.reason and ref.state == before and len(ref.events) == n
        st_ = ref.state
        assert st_.bag >= 0 and all(r >= 0 for r in st_.racks)
    # what was accepted replays to the same state
    assert Referee.from_events(ref.events).state == ref.state
