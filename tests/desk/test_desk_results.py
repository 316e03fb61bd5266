"""What the desk makes of finished games: who won (the referee's verdict), and the exports of them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder, messages  # noqa: E402

from kiosk.desk.event import load_event  # noqa: E402
from kiosk.desk.message import parse  # noqa: E402
from kiosk.desk.standings import standings  # noqa: E402
from kiosk.desk.store import Result, ResultsStore  # noqa: E402
from kiosk.desk.tables import Tables  # noqa: E402
from kiosk.referee.events import JudgeAdjustment  # noqa: E402
from kiosk.referee.referee import Referee  # noqa: E402
from kiosk.referee.simulate import random_game  # noqa: E402


def _tied_on_points_game() -> list:
    """A game under the ``team`` preset (tie rule "pre_adjustment") whose finals tie 687-687 after a judge's
    adjustment while before the racks Ann led 694-680: the referee gives Ann the win."""
    events = random_game("team", seed=1, players=("Ann", "Bob"))
    ref = Referee()
    for ev in events:
        assert ref.apply(ev).accepted
    events.append(JudgeAdjustment(t=ref.state.last_t + 1000, player=0, points=169, reason="scoring error"))
    assert ref.apply(events[-1]).accepted
    res = ref.state.result
    assert res.final == (687, 687) and res.before_racks == (694, 680) and res.wins == (1.0, 0.0)
    return events


def test_standings_take_the_referees_verdict_not_a_tie_on_the_finals(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    store = ResultsStore(tmp_path / "desk.sqlite")
    tables = Tables(cfg, store)
    tables.take_all(parse(ROOT, t, p) for t, p in messages(_tied_on_points_game(), 1))
    [stored] = store.results()
    assert stored.scores == (687, 687) and stored.wins == (1.0, 0.0)
    st = {p["name"]: p for p in standings(cfg, store.results(), {})["A"]["players"]}
    assert (st["Ann"]["wins"], st["Ann"]["losses"]) == (1.0, 0.0)
    assert (st["Bob"]["wins"], st["Bob"]["losses"]) == (0.0, 1.0)
    store.close()
    again = ResultsStore(tmp_path / "desk.sqlite")   # the verdict is kept with the result
    assert again.results()[0].wins == (1.0, 0.0)


def test_a_result_without_the_verdict_counts_a_tie_on_points_half(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    old = Result(1, "g1", 1, "A", (("Ann", 400), ("Bob", 400)), "naspa", "out_play", "", 30, 1)
    st = {p["name"]: p for p in standings(cfg, [old], {})["A"]["players"]}
    assert st["Ann"]["wins"] == st["Bob"]["wins"] == 0.5


def test_a_four_player_game_ranks_the_winner_first_then_the_others_by_points(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    r = Result(1, "g4", 1, "A", (("Ann", 300), ("Bob", 310), ("Cid", 200), ("Dee", 200)), "team", "out_play", "",
               30, 1, wins=(1.0, 0.0, 0.0, 0.0))   # Bob lost by rule (a forfeit) with the most points
    st = {p["name"]: p for p in standings(cfg, [r], {})["A"]["players"]}
    assert st["Ann"]["wins"] == 3 and st["Bob"]["wins"] == 2 and st["Cid"]["wins"] == st["Dee"]["wins"] == 0.5
