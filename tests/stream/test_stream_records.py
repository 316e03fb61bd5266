"""Records (GCG + result file), overlay fields, the recorded-game driver, the schema file being current."""

from __future__ import annotations

import csv
import json
import re

import pytest

from kiosk.referee.events import GameStarted, JudgeAdjustment
from kiosk.referee.presets import load_preset
from kiosk.referee.records import RecordEventsError, events_from_gcg
from kiosk.referee.referee import Referee
from kiosk.referee.simulate import random_game
from kiosk.rules.gcg import parse_gcg
from kiosk.rules.replay import replay_game
from kiosk.stream.envelope import SCHEMA_PATH
from kiosk.stream.hub import StreamHub
from kiosk.stream.overlay import clock_text, fields, unseen_text
from kiosk.stream.records import RecordsWriter, gcg_text, result_dict
from kiosk.stream.schema_gen import schema_text
from kiosk.stream.snapshot import snapshot
from shared_data import SHARED, needs_shared

CORPUS = SHARED / "corpus" / "gcg"


def test_schema_file_is_generated_from_the_current_event_model():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), \
        "run: python -m kiosk.stream.schema_gen (the referee's event model changed)"


def _manifest_games(step: int) -> list:
    if not SHARED.is_dir():
        return [pytest.param("", [], marks=needs_shared)]
    rows = list(csv.DictReader((CORPUS / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))
    out = []
    for r in rows:
        n = r["notes"]
        if ("complete; end=NASPA_2x" not in n or "FRAGMENT" in n or "time_pen" in n or "+10" in n
                or "quackle" in r["file"] or not r["file"].startswith(("real/", "selfplay/"))):
            continue
        finals = [int(x.rsplit(":", 1)[1]) for x in re.search(r"final=(\S+)", n).group(1).split("/")]
        out.append((r["file"], finals))  # Quackle test positions / legacy notation are left out above
    return out[::step]


@needs_shared
@pytest.mark.parametrize("name, finals", _manifest_games(12))
def test_recorded_games_referee_to_their_recorded_finals_and_gcg_round_trips(name, finals):
    events = events_from_gcg(CORPUS / name)
    ref = Referee.from_events(events)
    assert ref.state.phase == "over"
    assert list(ref.state.scores) == finals
    text = gcg_text(ref.state, game_id="g1", board=5)
    game = parse_gcg(text)
    assert game.errors == [] and "kiosk g1" in game.pragmas["id"][0] and game.title == "Table 5"
    res = replay_game(game)
    assert res.totals == finals and not res.errors


@needs_shared
def test_a_record_the_referee_cannot_follow_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.gcg"
    bad.write_text("#player1 a Ann\n#player2 b Bob\n>a: ABC 8H CAB +14 14\n>b: XYZ 8H ZZZ +30 30\n")
    with pytest.raises(RecordEventsError, match=r"bad.gcg:4: the referee refuses play"):
        events_from_gcg(bad)
    with pytest.raises(RecordEventsError, match="no_such.gcg"):
        events_from_gcg(tmp_path / "no_such.gcg")
    with pytest.raises(RecordEventsError, match="preset"):
        events_from_gcg(CORPUS / "real" / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg", preset="nope")


def test_result_file_scores_spread_adjustments():
    events = random_game("nsf", seed=21)
    ref = Referee()
    for ev in events:
        assert ref.apply(ev).accepted
    r = ref.state.result
    res = result_dict(ref.state, game_id="sim-21", board=4)
    assert res["finished"] and res["scores"] == list(r.final)
    assert res["spread"] == r.final[0] - r.final[1]
    assert [p["spread"] for p in res["players"]] == [r.final[0] - r.final[1], r.final[1] - r.final[0]]
    assert res["preset"] == "nsf" and res["adjustments"]["rack"] == list(r.rack_adjust)
    assert [p["name"] for p in res["players"]] == ["Ann", "Bob"]


def test_judge_adjustments_appear_in_the_result_and_as_gcg_notes():
    ref = Referee()
    for ev in (GameStarted(t=0, preset=load_preset("nsf").to_dict(), players=("Ann", "Bob")),
               JudgeAdjustment(t=10, player=1, points=-10, reason="slow to draw")):
        assert ref.apply(ev).accepted
    res = result_dict(ref.state)
    assert res["adjustments"]["entries"] == [{"player": 1, "kind": "judge", "points": -10, "note": "slow to draw"}]
    assert res["scores"] == [0, -10] and not res["finished"]
    text = gcg_text(ref.state)
    assert "slow to draw" in text and "#incomplete" in text


def test_records_writer_updates_after_every_move_and_finishes(tmp_path):
    hub = StreamHub(2, tick_ms=0)
    rec = RecordsWriter(tmp_path / "records")
    hub.add_sink(rec)
    events = random_game("naspa", seed=3)
    gcg_path, result_path = rec.paths("sim-3")
    plays_seen = []
    for ev in events:
        hub.publish(ev)
        hub.pump()
        plays_seen.append(gcg_path.read_text().count("\n>"))
        if ev is not events[-1]:
            assert json.loads(result_path.read_text())["finished"] is False
    assert plays_seen == sorted(plays_seen) and plays_seen[-1] > 10
    final = json.loads(result_path.read_text())
    assert final["finished"] is True and final["game_id"] == "sim-3" and final["board"] == 2
    assert "#incomplete" not in gcg_path.read_text()
    assert replay_game(parse_gcg(gcg_path.read_text())).totals == list(Referee.from_events(events).state.scores)


def test_records_writer_reports_an_unwritable_folder_instead_of_raising(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rec = RecordsWriter(blocker / "records")
    hub = StreamHub(2, tick_ms=0)
    hub.add_sink(rec)
    for ev in random_game("nsf", seed=1)[:3]:
        hub.publish(ev)
    hub.pump()
    assert rec.errors and "cannot write" in rec.errors[0] and hub.latest("judge")["seq"] == 3


def test_overlay_fields_follow_broadcast_conventions():
    ref = Referee.from_events(random_game("nsf", seed=6))
    st = snapshot(ref.state)
    f = fields(st, 9)
    s = ref.state.scores
    assert f["score.txt"] == f"{s[0]} - {s[1]}"
    assert f["player1_score.txt"] == str(s[0]) and f["player2_name.txt"] == "Bob" and f["player3_name.txt"] == ""
    assert f["table.txt"] == "Table 9"
    assert f["unseen_count.txt"] == str(sum(n for _, n in ref.state.unseen))
    assert f["last_play.txt"] == st["last_move"] != ""
    blanks = [c for c in ref.state.board if c and c.islower()]
    assert len(f["blanks.txt"].split()) == len(blanks)
    assert unseen_text("BA?AE") == "AA B E ?"
    assert clock_text(25 * 60_000) == "25:00" and clock_text(-65_000) == "-1:05" and clock_text(None) == ""


def test_three_player_game_fields_and_records():
    events = random_game("home", seed=2, players=("Ann", "Bob", "Cy"))
    ref = Referee.from_events(events)
    f = fields(snapshot(ref.state), 1)
    s = ref.state.scores
    assert f["score.txt"] == f"{s[0]} - {s[1]} - {s[2]}" and f["player3_name.txt"] == "Cy"
    assert f["player3_clock.txt"] == "" and f["player4_name.txt"] == ""  # no chess clock for 3 players
    res = result_dict(ref.state)
    assert isinstance(res["spread"], list) and res["spread"][0] == s[0] - max(s[1], s[2])
    assert parse_gcg(gcg_text(ref.state)).errors == []


def test_records_and_exports_are_written_readable_by_all(tmp_path):
    """The records and the desk's exports (write_atomic) were written owner-only (mkstemp's 0600): the web server
    and a broadcaster's tools, running as other users, could not read them."""
    from kiosk.files import write_atomic

    for durable in (False, True):
        out = tmp_path / f"game-{durable}.gcg"
        write_atomic(out, "#player1 A A\n", durable=durable)
        assert out.read_text() == "#player1 A A\n" and out.stat().st_mode & 0o777 == 0o644
