"""Screenshot tests: every screen at 800x480 and 720x1280, driven by posted touch events, saved as PNGs under
artifacts/ui/; a screen whose text does not fit its box fails."""

from __future__ import annotations

import pygame
import pytest
from ui_fixtures import ARTIFACTS, PIN, display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI
from kiosk.ui.screens import clock_text

SIZES = [(800, 480), (720, 1280)]


def touch(ui: KioskUI, label: str, **match) -> None:
    """Post a finger tap on the button (plus SDL's synthetic mouse copy) and let the UI handle the queue."""
    ui.draw()
    for b in ui.buttons:
        if b.enabled and label in (b.label, b.action) and all(b.kw.get(k) == v for k, v in match.items()):
            x, y = b.rect.center
            w, h = ui.size
            pygame.event.clear()
            for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
                pygame.event.post(pygame.event.Event(kind, x=x / w, y=y / h, touch_id=1, finger_id=0, dx=0, dy=0,
                                                     pressure=1.0))
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1, touch=True))
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(x, y), button=1, touch=True))
            acted = [a for a in (ui.handle_event(e) for e in pygame.event.get()) if a]
            assert acted == [b.action], f"tap on {label!r} acted {acted}"
            return
    raise AssertionError(f"screen {ui.screen}: no enabled button {label!r} {match}")


def open_judge_menu(ui: KioskUI) -> None:
    """Tap Judge and the judge's PIN: the judge's menu is shown."""
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    assert ui.draw() == "judge"


def end_the_game(ui: KioskUI) -> None:
    """Open the judge's menu and end the game: the rack entry is shown."""
    open_judge_menu(ui)
    touch(ui, "End the game")
    assert ui.draw() == "racks"


def enter_racks(ui: KioskUI, k) -> None:  # noqa: ANN001 - the kiosk
    """On the rack entry, give each player the first letters the keys offer until his rack is full, then Done: the
    final table is shown."""
    for p in range(len(k.state.players)):
        ui.rack_player = p
        while len(ui.racks[p]) < k.state.racks[p]:
            touch(ui, "rack_letter", letter=ui.rack_choices()[0][0])
    touch(ui, "Done")
    assert ui.draw() == "over"


def shot(ui: KioskUI, name: str, expect: str) -> None:
    screen = ui.draw()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    w, h = ui.size
    pygame.image.save(ui.surface, str(ARTIFACTS / f"{name}-{w}x{h}.png"))
    assert screen == expect
    assert not ui.overflows, f"{name}: text outside its box: {[o.text for o in ui.overflows]}"
    for b in ui.buttons:
        if b.label:
            assert b.rect.h >= 40 * min(w, h) / 480, f"{name}: button {b.label!r} too small for a finger"
            assert ui.surface.get_rect().contains(b.rect), f"{name}: button {b.label!r} off the screen"
    labelled = [b for b in ui.buttons if b.label]
    for i, a in enumerate(labelled):   # the 720x1280 score adjustment drew Apply and Back over its reasons' row
        for b in labelled[i + 1:]:
            assert not a.rect.colliderect(b.rect), f"{name}: button {a.label!r} overlaps {b.label!r}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_screen(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size, players=("Annabel", "Bartholomew"))
    shot(ui, "01-main-start", "main")
    assert play(k, c, 0, "8D", "QUIRT")
    shot(ui, "02-main-after-play", "main")
    c.t += 3_000
    touch(ui, "Hold")
    assert k.state.hold_by == 1
    shot(ui, "03-hold", "hold")
    c.t += 61_000
    k.poll()
    assert k.state.courtesy_given
    shot(ui, "04-hold-courtesy", "hold")
    touch(ui, "Challenge")
    shot(ui, "05-ruling", "ruling")
    touch(ui, "Unacceptable")
    shot(ui, "06-pin", "pin")
    for d in "1111":
        touch(ui, d)
    touch(ui, "OK")
    assert k.view.message == "Wrong PIN. You have 2 more tries."
    shot(ui, "07-pin-wrong", "pin")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    shot(ui, "08-remove-tiles", "remove")
    c.t += 2_000
    touch(ui, "Judge")  # the camera cannot see the tiles go: the judge confirms
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Withdrawn tiles are off")
    assert k.state.phase == "playing"
    assert play(k, c, 1, "H4", "JIn?")
    shot(ui, "09-blank-picker", "blank")
    touch(ui, "letter", letter="X")
    assert k.state.last_play.word == "JInx"
    touch(ui, "Exchange")
    shot(ui, "10-exchange", "exchange")
    touch(ui, "exchange", count=0)
    k.view.problem_text = "the board does not read right: fix it and press again, or call the judge"
    k.view.problem_squares = (0, 1)
    shot(ui, "11-board-problem", "problem")
    k.view.problem_text, k.view.problem_squares = "", ()
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    shot(ui, "12-judge-menu", "judge")
    touch(ui, "Adjust a score")
    touch(ui, "adj_player", player=0)
    touch(ui, "+5")
    shot(ui, "13-judge-adjust", "judge_adjust")
    touch(ui, "Apply")
    assert k.state.history[-1].kind == "judge" and k.state.history[-1].points == 5
    touch(ui, "Correct a square")
    touch(ui, "square", square=112)
    shot(ui, "14-judge-correct", "judge_correct")
    touch(ui, "Back")
    touch(ui, "Close")
    c.t += 1_600_000
    k.poll()
    assert k.remaining_ms(0) < 0
    shot(ui, "15-main-overtime", "main")
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "End the game")
    shot(ui, "16-rack-entry", "racks")
    for p in (0, 1):
        ui.rack_player = p
        while len(ui.racks[p]) < k.state.racks[p]:
            touch(ui, "rack_letter", letter=ui.rack_choices()[0][0])
    touch(ui, "Done")
    shot(ui, "17-final-table", "over")
    assert k.state.result is not None
    touch(ui, "New game")
    shot(ui, "18-new-game", "new_game")


def test_out_play_window_screen(tmp_path):
    from kiosk.referee.simulate import random_game

    for seed in range(40):  # a scripted random game whose last play goes out
        k, c = make_kiosk(tmp_path / str(seed))
        events = random_game("nsf", seed=seed, players=("Annabel", "Bartholomew"))
        for ev in events[1:]:
            if k.state.phase == "outplay":
                break
            assert k.apply(ev), ev
        if k.state.phase == "outplay":
            break
    else:
        pytest.fail("no scripted game reached an out-play")
    c.t = k.state.last_t
    ui = KioskUI(k, (800, 480))
    shot(ui, "19-outplay-window", "outplay")
    touch(ui, "Accept")
    shot(ui, "20-final-after-outplay", "over")


def test_synthetic_mouse_copy_of_a_touch_is_ignored_but_a_real_click_acts(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    ui.draw()
    b = next(b for b in ui.buttons if b.label == "Exchange")
    assert ui.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=b.rect.center, button=1, touch=True)) is None
    assert ui.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=b.rect.center, button=1, touch=True)) is None
    assert ui.overlay is None
    ui.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=b.rect.center, button=1, touch=False))
    assert ui.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=b.rect.center, button=1,
                                              touch=False)) == "exchange_open"
    # a press that slides off the button before release is no tap
    ui.draw()
    b = next(b for b in ui.buttons if b.label == "Cancel")
    ui.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=b.rect.center, button=1, touch=False))
    assert ui.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(1, 1), button=1, touch=False)) is None


def test_players_cannot_reach_the_judge_menu_without_the_pin(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    touch(ui, "Judge")
    for _ in range(3):
        for d in "9999":
            touch(ui, d)
        touch(ui, "OK")
    assert ui.screen != "judge" and ui.draw() == "pin"
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    assert ui.draw() == "pin"   # locked out even with the right PIN
    assert k.view.message == "Too many wrong PINs. Wait 1 second, then try again."
    assert k.pin.wrong_total == 3


def test_clock_text_matches_the_clock_displays_with_tenths_below_10_s():
    from kiosk.devices.sevenseg import clock_face

    assert clock_text(25 * 60_000) == "25:00"
    assert clock_text(61_500) == "1:02"  # a clock shows a second until it has run out, as the displays do
    for ms in (61_500, 60_001, 10_000, 12_345, -1, -61_000, -599_999):
        assert clock_text(ms) == str(clock_face(ms)).strip().rstrip("."), ms
    assert clock_text(-1) == "-0:00" and clock_text(-61_000) == "-1:01"
    assert clock_text(9_999) == "0:10" and clock_text(9_900) == "0:09.9" and clock_text(401) == "0:00.5"
    assert clock_text(0) == "0:00" and clock_text(3_000, tenths=False) == "0:03"
    assert clock_text(None) == "--:--"


def test_judge_undoes_the_last_move_and_changes_rules_before_move_one_by_touch(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    players = k.state.players

    def unlock() -> None:
        touch(ui, "Judge")
        for d in PIN:
            touch(ui, d)
        touch(ui, "OK")
        assert ui.draw() == "judge"

    unlock()
    touch(ui, "Rules (before move 1)")
    assert ui.draw() == "new_game"
    while ui.new_preset != "wespa":
        touch(ui, "Rules")
    touch(ui, "Start")
    assert k.state.preset == "wespa" and k.state.history == ()
    assert k.state.players == players  # the same game, other rules
    assert play(k, c, 0, "8D", "QUIRT")
    unlock()
    touch(ui, "Undo the last move")
    assert k.state.history == () and k.state.on_move == 0 and ui.draw() == "main"
    assert "took the last turn back" in k.view.message
