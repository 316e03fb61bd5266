"""Screenshot tests for 3 and 4 players (home 003 and team 004 are for 2-4 players or teams), at 800x480 and
720x1280, driven by touches: the score panel for N, a Challenge for every other side, the "Done" of a side with
no clock button, rack entry for all, the out-play, the final table and the new-game screen's player count.
PNGs under artifacts/ui/ (players-*)."""

from __future__ import annotations

import pytest
from common_fixtures import PIN
from common_fixtures import make_kiosk as _make_kiosk
from test_ui_screens import SIZES, shot, touch
from ui_fixtures import display, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.ui.app import KioskUI

NAMES = ("Annabel", "Bartholomew", "Cunegonde", "Dorothea")
PRESET = {3: "home", 4: "team"}


def _labels(ui: KioskUI, action: str) -> dict[str, bool]:
    ui.draw()
    return {b.label: b.enabled for b in ui.buttons if b.action == action}


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_n_player_screens(tmp_path, size, n):
    k, c = _make_kiosk(tmp_path, PRESET[n], players=NAMES[:n])
    ui = KioskUI(k, size, players=NAMES[:n], preset=PRESET[n])
    tag = f"players{n}"
    shot(ui, f"{tag}-01-main-start", "main")
    assert play(k, c, 0, "8D", "QUIRT")
    # any other side may challenge the play: one button each, in turn order after the player
    assert _labels(ui, "challenge") == {name: True for name in NAMES[1:n]}
    shot(ui, f"{tag}-02-main-challenge-by-any", "main")
    touch(ui, "challenge", player=n - 1)
    assert k.state.challenge_by == n - 1  # not "player -1 is not in this game"
    shot(ui, f"{tag}-03-ruling", "ruling")
    touch(ui, "Acceptable")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    assert k.state.phase == "playing" and not k.state.last_play.withdrawn
    while k.state.on_move in (0, 1):  # the players with the chess clock's sides press it (here: pass)
        c.t += 5_000
        k.press("left" if k.state.on_move == 0 else "right")
    seat = k.state.on_move
    assert seat >= 2 and "Done" in _labels(ui, "done")
    shot(ui, f"{tag}-04-main-done-button", "main")
    c.t += 5_000
    touch(ui, "Done")
    assert k.state.history[-1].player == seat and k.state.history[-1].kind == "pass"
    touch(ui, "Judge")
    for d in PIN:
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "End the game")
    shot(ui, f"{tag}-05-rack-entry", "racks")
    for p in range(n):
        assert ui.rack_player == p
        while len(ui.racks[p]) < k.state.racks[p]:
            touch(ui, "rack_letter", letter=ui.rack_choices()[0][0])
        touch(ui, "Next rack")
    touch(ui, "Done")
    assert k.state.result is not None, k.view.message
    shot(ui, f"{tag}-06-final-table", "over")
    touch(ui, "New game")
    assert _labels(ui, "new_count") == {f"{n} players": True}
    shot(ui, f"{tag}-07-new-game", "new_game")
    touch(ui, "new_count")
    assert ui.new_players == ((*NAMES[:3], "Player 4") if n == 3 else NAMES[:2])
    ui.new_players, ui.new_preset = NAMES[:n], "nsf"  # a two-player sheet: the screen says why it cannot start
    touch(ui, "Start")
    assert ui.overlay == "new_game" and k.view.message == f"The nsf rules are for 2 players; this table has {n}.", \
        k.view.message
    shot(ui, f"{tag}-08-new-game-refused", "new_game")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_four_player_out_play_is_accepted_by_each_opponent(tmp_path, size):
    from kiosk.referee.simulate import random_game

    for seed in range(60):  # a scripted random team game whose last play goes out
        k, c = _make_kiosk(tmp_path / str(seed), "team", players=NAMES)
        for ev in random_game("team", seed=seed, players=NAMES)[1:]:
            if k.state.phase == "outplay":
                break
            assert k.apply(ev), ev
        if k.state.phase == "outplay":
            break
    else:
        pytest.fail("no scripted game reached an out-play")
    c.t = k.state.last_t
    ui = KioskUI(k, size)
    out = k.state.last_play.player
    assert set(_labels(ui, "challenge")) == {NAMES[q] for q in range(4) if q != out}
    shot(ui, "players4-08-outplay", "outplay")
    others = [(out + j) % 4 for j in (1, 2, 3)]
    assert _labels(ui, "accept_outplay") == {NAMES[q]: True for q in others}
    for i, q in enumerate(others):  # 003/004: the out-play stands once every opponent has accepted it
        assert k.state.phase == "outplay", k.view.message
        touch(ui, "accept_outplay", player=q)  # not refused with "player -2"
        if i < 2:
            assert k.state.outplay_accepted_by == tuple(others[:i + 1]), k.view.message
            labels = _labels(ui, "accept_outplay")
            assert labels == {NAMES[p]: p not in others[:i + 1] for p in others}  # greyed once accepted
            assert set(_labels(ui, "challenge")) == {NAMES[p] for p in others}  # any may still challenge
        if i == 0:
            shot(ui, "players4-08b-outplay-one-accepted", "outplay")
    assert k.state.phase == "rack_entry", k.view.message  # team (004): each side loses its own rack
    shot(ui, "players4-09-racks-after-outplay", "racks")
    _enter_racks(ui, k)
    assert k.state.result is not None and k.state.result.reason == "out_play", k.view.message
    shot(ui, "players4-10-final-after-outplay", "over")


def _enter_racks(ui: KioskUI, k) -> None:  # type: ignore[no-untyped-def]
    """Type every player's rack with the keys offered (the first tile each time), then Done."""
    for p in range(len(k.state.players)):
        ui.rack_player = p
        while len(ui.rack_list()[p]) < k.state.racks[p]:
            touch(ui, "rack_letter", letter=ui.rack_choices()[0][0])
    touch(ui, "Done")


def test_done_on_the_screen_ends_only_the_turn_of_the_player_on_move(tmp_path):
    from kiosk.control import commands as cmd

    k, c = _make_kiosk(tmp_path, "home", players=NAMES[:3])
    res = k.handle(cmd.Done(2))
    assert not res and res.reason == "It is Annabel's turn: Cunegonde's press does nothing."
    res = k.handle(cmd.Done(5))
    assert not res and res.reason == "There is no player 6 in this game."
    c.t += 5_000
    assert k.handle(cmd.Done(0)) and k.state.history[-1].kind == "pass" and k.state.on_move == 1
    assert cmd.command_from("done", {"player": "2"}) == cmd.Done(2)
