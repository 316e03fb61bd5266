"""Events are plain values: to_dict/from_dict round trips through JSON; bad dicts name the field."""

from __future__ import annotations

import json

import pytest

from kiosk.referee.events import EVENT_TYPES, EventError, GameStarted, Play, RacksEntered, event_from_dict
from kiosk.referee.simulate import random_game


def test_ref_every_event_type_round_trips_through_json():
    seen = set()
    for preset in ("nsf", "casual", "club-reading", "team"):
        for ev in random_game(preset, seed=3):
            back = event_from_dict(json.loads(json.dumps(ev.to_dict())))
            assert back == ev
            assert back.to_dict()["type"] == ev.type
            seen.add(ev.type)
    # every type can be built from defaults and round-trips too
    for kind, cls in EVENT_TYPES.items():
        ev = cls(t=5)
        assert event_from_dict(json.loads(json.dumps(ev.to_dict()))) == ev, kind
    assert {"play", "challenge", "challenge_ruled", "window_closed"} <= seen


def test_ref_tuples_survive_serialisation():
    ev = Play(t=1, player=1, tiles=((112, "Q"), (113, "?")))
    d = ev.to_dict()
    assert d == {"type": "play", "t": 1, "player": 1, "tiles": [[112, "Q"], [113, "?"]]}   # as before by_judge
    assert event_from_dict(d).tiles == ((112, "Q"), (113, "?"))
    assert event_from_dict(d) == ev and not ev.by_judge
    entered = Play(t=1, player=1, tiles=((112, "Q"),), by_judge=True)
    assert entered.to_dict()["by_judge"] is True and event_from_dict(entered.to_dict()) == entered
    assert event_from_dict(RacksEntered(t=2, racks=("AB", "")).to_dict()).racks == ("AB", "")


@pytest.mark.parametrize("data, words", [
    ({"type": "nope", "t": 1}, "unknown event type 'nope'"),
    ({"t": 1}, "unknown event type None"),
    ([1, 2], "an event is an object"),
    ({"type": "play", "player": 0}, "play.t: missing field"),
    ({"type": "play", "t": 1, "player": "Ann"}, "play.player: expected a whole number"),
    ({"type": "play", "t": 1, "tiles": [[1]]}, "play.tiles: expected a list of [square, tile] pairs"),
    ({"type": "pass", "t": 1, "player": 0, "colour": "red"}, "pass.colour: unknown field"),
    ({"type": "challenge_ruled", "t": 1, "acceptable": "yes"}, "challenge_ruled.acceptable: expected true/false"),
    ({"type": "game_started", "t": 1, "preset": "nsf"}, "game_started.preset: expected an object"),
])
def test_ref_bad_event_dicts_name_the_field(data, words):
    with pytest.raises(EventError, match=words.replace("[", r"\[").replace("]", r"\]")):
        event_from_dict(data)


def test_ref_game_started_carries_the_whole_preset():
    from kiosk.referee.presets import load_preset, preset_from_dict

    p = load_preset("nsf")
    ev = GameStarted(t=0, preset=p.to_dict(), players=("Ann", "Bob"))
    back = event_from_dict(json.loads(json.dumps(ev.to_dict())))
    assert preset_from_dict(back.preset) == p


def test_ref_event_class_from_dict():
    from kiosk.referee.events import Event, Pass

    d = Pass(t=3, player=1).to_dict()
    assert Event.from_dict(d) == Pass.from_dict(d) == Pass(t=3, player=1)
    with pytest.raises(EventError, match="expected a 'play' event, got 'pass'"):
        Play.from_dict(d)


def test_ref_state_prompts_and_results_serialise_for_the_stream():
    from kiosk.referee.simulate import Script

    s = Script("nsf")
    res = s.play(0, "8D", "QUIRT", 30_000)
    d = json.loads(json.dumps(s.state.to_dict()))
    assert d["scores"] == [48, 0] and d["last_play"]["word"] == "QUIRT" and d["clock"]["running"] == 1
    prompt = s.ref.pending_prompts()[0].to_dict()
    assert prompt["kind"] == "challenge_window" and prompt["until_ms"] == 50_000
    assert res.to_dict() == {"accepted": True, "reason": "", "code": "", "judge": False, "squares": []}
