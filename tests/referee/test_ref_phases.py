"""The phase table: every event has one row, docs/phases.md is rendered from it, refusals follow it."""

from __future__ import annotations

from pathlib import Path

from kiosk.referee import Referee
from kiosk.referee.events import EVENT_TYPES, Challenge, ChallengeRuled, GameStarted, Pass, RacksEntered
from kiosk.referee.phase import ALLOWED, Phase, allowed_in, phases_markdown
from kiosk.referee.presets import load_preset

DOC = Path(__file__).resolve().parents[2] / "docs" / "phases.md"


def test_ref_every_event_type_has_one_row_in_the_phase_table():
    assert set(ALLOWED) == set(EVENT_TYPES.values())
    assert all(phases for phases in ALLOWED.values())


def test_ref_phases_doc_is_rendered_from_the_table():
    text = phases_markdown()
    assert DOC.read_text(encoding="utf-8") == text, (
        "docs/phases.md is stale: write kiosk.referee.phase.phases_markdown() to it")
    assert "| `challenged` | `drew`, `courtesy_draw`, `challenge_ruled`, `challenge_withdrawn`" in text


def test_ref_challenged_allows_only_its_row():
    names = {cls.type for cls in allowed_in(Phase.CHALLENGED)}
    assert {"challenge_ruled", "challenge_withdrawn", "judge_adjustment", "move_undone"} <= names
    assert not {"play", "pass", "clock_pressed", "hold", "challenge", "racks_entered"} & names


def test_ref_an_event_outside_its_phases_is_refused_by_the_table():
    ref = Referee()
    assert ref.apply(Pass(t=0, player=0)).code == "not_started"
    assert ref.apply(GameStarted(t=0, preset=load_preset("nsf").to_dict(), players=("A", "B")))
    res = ref.apply(RacksEntered(t=10, racks=("", "")))
    assert (res.code, res.reason) == ("wrong_phase", "'racks_entered' is not allowed now (the game is in "
                                                     "'playing', needs rack_entry)")
    res = ref.apply(ChallengeRuled(t=10, acceptable=True))
    assert res.reason.endswith("needs challenged)")
    assert ref.apply(Challenge(t=10, player=1)).code == "window_closed"  # allowed phase, the handler's own check
    assert ref.state.phase == Phase.PLAYING == "playing"


def test_ref_a_handler_leading_outside_the_table_is_refused_as_a_bug(monkeypatch):
    from kiosk.referee.phase import TRANSITIONS
    ref = Referee()
    assert ref.apply(GameStarted(t=0, preset=load_preset("nsf").to_dict(), players=("A", "B")))
    before = ref.state
    monkeypatch.setitem(TRANSITIONS[Pass], Phase.PLAYING, frozenset({Phase.RACK_ENTRY}))
    res = ref.apply(Pass(t=10, player=0))
    assert (res.accepted, res.code, res.judge) == (False, "internal", True)
    assert "pass led from playing to playing" in res.reason
    assert ref.state == before
    monkeypatch.undo()
    assert ref.apply(Pass(t=10, player=0))


def test_ref_allowed_is_the_rows_of_the_transition_table():
    from kiosk.referee.phase import TRANSITIONS
    assert {cls: frozenset(rows) for cls, rows in TRANSITIONS.items()} == ALLOWED
    assert all(to <= set(Phase) - {Phase.NOT_STARTED} for rows in TRANSITIONS.values() for to in rows.values())
