"""The judge's rulings at the table (issue 18), tapped through the judge menu: stop the game with the scores as
they stand (002 III.G), an extra minute (002 II.F/II.O), a late arrival before the first move (000 rule 19),
a resignation (002 III.G) and a correction after the end (002 III.E/F). Screenshots under artifacts/ui/."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, open_judge_menu, shot, touch
from ui_fixtures import PIN, display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI


def _last(k):
    return k.session.referee.events[-1]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_002_III_G_the_director_stops_the_game_as_it_stands_then_corrects_it(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 5_000
    open_judge_menu(ui)
    shot(ui, "40-judge-menu-rulings", "judge")
    touch(ui, "Stop, scores as they stand")
    e = _last(k)
    assert e.type == "game_called" and e.as_it_stands
    assert k.state.phase == "over" and k.state.result.final == (48, 0)  # no racks, no rack adjustment
    shot(ui, "41-over-judge", "over")
    # 002 III.E/F: the final table keeps the judge's way to a correction
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Adjust a score")
    touch(ui, "adj_player", player=1)
    touch(ui, "+5")
    touch(ui, "Apply")
    assert _last(k).type == "judge_adjustment" and k.state.result.final == (48, 5)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_002_II_F_the_judge_adds_a_minute_for_the_chosen_player(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 5_000
    before = k.remaining_ms(1)
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=1)
    shot(ui, "42-judge-player", "judge_player")
    touch(ui, "Add a minute")
    e = _last(k)
    assert e.type == "time_added" and e.player == 1 and e.added_ms == 60_000
    assert k.remaining_ms(1) == before + 60_000
    assert k.view.message == "The judge gave Bartholomew one more minute."


def test_000_R19_a_late_arrival_before_the_first_move_by_touch(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=1)
    ui.draw()
    assert not any(b.action == "judge_late" and b.enabled for b in ui.buttons)  # 0 minutes: nothing to tell
    for _ in range(4):
        touch(ui, "+1 min")
    touch(ui, "Late arrival")
    e = _last(k)
    assert e.type == "late_arrival" and e.player == 1 and e.late_ms == 240_000
    assert k.view.message == "Bartholomew arrived 4 minutes late."
    assert play(k, c, 0, "8D", "QUIRT")
    touch(ui, "A player: time, late, resign")
    ui.draw()
    assert not any(b.action == "judge_late" and b.enabled for b in ui.buttons)  # after the first move: no more


def test_002_III_G_a_player_resigns_by_the_judges_touch(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (720, 1280))
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 5_000
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=0)
    touch(ui, "Resign")
    touch(ui, "Annabel resigns")
    e = _last(k)
    assert e.type == "resigned" and e.player == 0
    r = k.state.result
    assert k.state.phase == "over" and r.wins[0] == 0 and r.wins[1] == 1
    assert ui.draw() == "over"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_judge_player_screen_names_each_of_four_players(tmp_path, size):
    from common_fixtures import make_kiosk as make_table

    k, c = make_table(tmp_path, "home", players=("Annabel", "Bartholomew", "Constance", "Desmond"))
    ui = KioskUI(k, size)
    open_judge_menu(ui)
    touch(ui, "A player: time, late, resign")
    touch(ui, "adj_player", player=3)
    shot(ui, "43-judge-player-4", "judge_player")
    assert [b.label for b in ui.buttons if b.action == "adj_player"] == list(k.state.players)
    assert not any(b.action == "judge_add_minute" and b.enabled for b in ui.buttons)  # home: no chess clock
    for _ in range(2):
        touch(ui, "+1 min")
    touch(ui, "Late arrival")
    e = _last(k)
    assert e.type == "late_arrival" and e.player == 3 and e.late_ms == 120_000


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_002_III_G_the_director_stops_a_game_waiting_for_its_racks(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 5_000
    open_judge_menu(ui)
    touch(ui, "End the game")
    shot(ui, "44-racks-judge", "racks")
    open_judge_menu(ui)
    touch(ui, "Stop, scores as they stand")
    e = _last(k)
    assert e.type == "game_called" and e.as_it_stands
    assert k.state.phase == "over" and k.state.result.final == (48, 0)  # the racks were never entered


def test_the_tiles_the_judge_enters_show_on_the_board_as_he_enters_them(tmp_path):
    """With no reading from the camera the judge enters the move square by square on the screen (the kiosk
    then takes it as entered): each tile he enters is drawn on its square as a new tile; an empty square is not.
    A kiosk without a camera takes the entered move at the next press (it scored a pass before)."""
    from kiosk.ui.board_view import TILE_NEW

    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    assert play(k, c, 0, "8D", "QUIRT")
    open_judge_menu(ui)
    touch(ui, "Correct a square")
    ui.draw()
    spot = {b.kw["square"]: b.rect.topleft for b in ui.buttons if b.action == "square"}
    corner = {sq: (x + 3, y + 3) for sq, (x, y) in spot.items()}
    assert tuple(ui.surface.get_at(corner[97]))[:3] != TILE_NEW    # H7: empty before the judge enters it
    touch(ui, "square", square=97)
    touch(ui, "I")
    touch(ui, "square", square=98)
    touch(ui, "empty")
    assert k.view.corrections == {97: "I", 98: "."}
    ui.draw()
    assert tuple(ui.surface.get_at(corner[97]))[:3] == TILE_NEW     # the I he entered, drawn as a new tile
    assert tuple(ui.surface.get_at(corner[98]))[:3] != TILE_NEW
    shot(ui, "42-judge-enters-a-move", "judge_correct")
    c.t += 5_000   # this kiosk has no camera: the press takes the move as the judge entered it
    assert k.press("right") == "play" and k.state.last_play.word == "IT" and k.state.scores == (48, 2)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_no_reading_screen_tells_how_the_judge_enters_the_move(tmp_path, size):
    """With no reading there is no marked tile to fix: the screen says the camera gave none and how the judge
    enters the move, in sentences that fit their boxes (the kiosk's own problem sentence)."""
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    k.view.problem_text = ("The camera gave no reading (no stable reading within 15 s: frame not usable: hand over "
                           "the board). Press the clock again, or call the judge to enter the move.")
    k.view.needs_judge = True
    shot(ui, "44-no-reading", "problem")
    ui.draw()
    labels = [b.label for b in ui.buttons if b.label]
    assert "Judge" in labels
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Correct a square")
    assert ui.draw() == "judge_correct"
