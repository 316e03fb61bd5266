"""The judge's screens behind the PIN: the menu (:func:`draw_judge`), a player's time, lateness and resignation
(:func:`draw_judge_player`), a square's correction (:func:`draw_judge_correct`) and a score's adjustment
(:func:`draw_judge_adjust`)."""

from __future__ import annotations

import pygame

from kiosk.control.words import counted
from kiosk.referee.state import NOT_STARTED, OVER, PLAYING, REMOVING
from kiosk.ui.board_view import square_label
from kiosk.ui.panel import BUTTON_H, letters, sheet_rows
from kiosk.ui.panel import board_and_panel as _board_and_panel
from kiosk.ui.problem_words import sentence
from kiosk.ui.touch_state import TouchState
from kiosk.ui.widgets import AMBER, BLUE, Canvas, grid_rects, rows_of, split_h


def judge_message(ui: TouchState, cv: Canvas, rect: pygame.Rect) -> None:
    """What the kiosk said last (the judge's last action confirmed: "The judge gave Bo one more minute.", a
    refusal) as a sentence in ``rect``, where the judge's screens have room for it."""
    said = sentence(ui.kiosk.view.message)
    if said and rect.h >= cv.px(18):
        cv.paragraph(said, rect, 18, AMBER, min_size=12)


def draw_judge(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    gap = cv.px(4)
    message = bool(ui.kiosk.view.message)  # the judge's last action confirmed keeps a line below the buttons
    title, keys, *said = rows_of(inner, [cv.px(36), 0, *[cv.px(40)] * message], gap)
    playing = st.phase not in (NOT_STARTED, OVER)
    items = [("Correct a square", "judge_correct_open", playing),
             ("Adjust a score", "judge_adjust_open", playing or st.phase == OVER),  # corrections after the end too
             ("Undo the last move", "judge_undo", st.phase != NOT_STARTED and (bool(st.history) or
              st.pressed_at is not None) and not ui.kiosk.view.waiting),  # (not while the board is read)
             ("Withdrawn tiles are off", "judge_removed", st.phase == REMOVING),
             ("End the game", "judge_end", playing and st.phase in (PLAYING, REMOVING)),
             ("Stop, scores as they stand", "judge_stop", playing),
             ("A player: time, late, resign", "judge_player_open", playing),
             ("Rules (before move 1)", "judge_preset", playing and not st.history)]
    n = len(items) + 1
    cols = 1 if keys.h >= n * (cv.px(50) + gap) else 2  # two columns where the panel is short
    bs = grid_rects(pygame.Rect(keys.x, keys.y, keys.w, min(keys.h, -(-n // cols) * (cv.px(50) + gap))), n, cols,
                    gap)
    cv.text("Judge menu", title, 30, AMBER)
    for rect, (label, action, enabled) in zip(bs, items):
        cv.button(rect, label, action, enabled=enabled)
    cv.button(bs[-1], "Close", "judge_close", color=(60, 70, 120))
    if said:
        judge_message(ui, cv, pygame.Rect(keys.x, bs[-1].bottom + gap, keys.w, said[0].bottom - bs[-1].bottom - gap))


def draw_judge_player(ui: TouchState, cv: Canvas) -> None:
    """The judge's player screen: an extra minute (002 II.F/II.O), a late arrival before the first move (000
    rule 19, 002 I.F), a resignation (002 III.G), for the chosen player."""
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    bh = cv.px(50)
    title, who, late, steps, b1, b2, said = rows_of(inner, [cv.px(36), bh, cv.px(36), bh, bh, bh, 0], cv.px(5))
    cv.text("Judge: a player" if ui.adj_player is not None else "Judge: tap a player", title, 28, AMBER)
    for p, rect in enumerate(split_h(who, ui.player_count(), cv.px(5))):
        cv.button(rect, st.players[p], "adj_player", player=p, color=BLUE if ui.adj_player == p else (64, 74, 88))
    cv.text(f"Late by {counted(ui.late_minutes, 'minute')}.", late, 24, align="center")
    for rect, d in zip(split_h(steps, 2, cv.px(5)), (-1, 1)):
        cv.button(rect, f"{d:+d} min", "late_minutes", delta=d)
    first = not any(h.kind != "judge" for h in st.history)
    on = st.phase not in (NOT_STARTED, OVER)
    late_b, minute = split_h(b1, 2, cv.px(5))
    on = on and ui.adj_player is not None  # the judge taps the player first: no choice carries over
    cv.button(late_b, "Late arrival", "judge_late", enabled=on and first and ui.late_minutes > 0)
    cv.button(minute, "Add a minute", "judge_add_minute", enabled=on and ui.kiosk.remaining_ms(0) is not None)
    resign, back = split_h(b2, 2, cv.px(5))
    cv.button(resign, "Resign", "judge_resign", enabled=on, color=(150, 70, 60))
    cv.button(back, "Back", "judge_open_menu", color=(60, 70, 120))
    judge_message(ui, cv, said)


def draw_judge_correct(ui: TouchState, cv: Canvas) -> None:
    inner = _board_and_panel(ui, cv, tappable=True)
    message = ui.kiosk.view.message  # a refused tile, what was entered
    title, keys, *said, b = rows_of(inner, [cv.px(40), 0, *[cv.px(34)] * bool(message), cv.px(BUTTON_H)], cv.px(5))
    for rect in said:
        cv.paragraph(message, rect, 16, AMBER, min_size=12)
    sel = ui.selected
    cv.text(f"{square_label(sel, sheet_rows(ui))} is:" if sel is not None else "Tap a square on the board.", title, 24)
    tiles = letters(ui)
    choices = [*tiles, "?", "."]
    cols = 8 if inner.w >= inner.h else 6  # a wide panel (portrait) keeps the keys a finger high
    for rect, ch in zip(grid_rects(keys, len(choices), cols, cv.px(3)), choices):
        label = {"?": "blank", ".": "empty"}.get(ch, ch)
        cv.button(rect, label, "judge_correct", char=ch, enabled=sel is not None, size=22)
    cv.button(b, "Back", "judge_open_menu", color=(60, 70, 120))


REASONS = ("misscored", "penalty", "recount")


def draw_judge_adjust(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    bh = cv.px(50)
    title, who, pts, steps1, steps2, reason, said, b = rows_of(inner, [cv.px(36), bh, cv.px(40), bh, bh, bh, 0, bh],
                                                           cv.px(5))
    cv.text("Adjust a score" if ui.adj_player is not None else "Adjust a score: tap a player", title, 28, AMBER)
    for p, rect in enumerate(split_h(who, ui.player_count(), cv.px(5))):
        cv.button(rect, st.players[p], "adj_player", player=p, color=BLUE if ui.adj_player == p else (64, 74, 88))
    cv.text(f"{counted(ui.adj_points, 'point', fmt='+d')}, {ui.adj_reason}", pts, 28, align="center")
    for rect, d in zip(split_h(steps1, 3, cv.px(5)), (-10, -5, -1)):
        cv.button(rect, f"{d}", "adj_points", delta=d)
    for rect, d in zip(split_h(steps2, 3, cv.px(5)), (1, 5, 10)):
        cv.button(rect, f"+{d}", "adj_points", delta=d)
    for rect, rsn in zip(split_h(reason, 3, cv.px(5)), REASONS):
        cv.button(rect, rsn, "adj_reason", reason=rsn, size=20, color=BLUE if ui.adj_reason == rsn else (64, 74, 88))
    ok, back = split_h(b, 2, cv.px(5))
    cv.button(ok, "Apply", "adj_apply", enabled=ui.adj_points != 0 and ui.adj_player is not None, color=(60, 110, 70))
    cv.button(back, "Back", "judge_open_menu", color=(60, 70, 120))
    judge_message(ui, cv, said)



def draw_judge_resign(ui: TouchState, cv: Canvas) -> None:
    """The resignation's confirmation: the chosen player named, what it does (the game ends, a forfeit loss with
    the scores as they stand, seed 002 III.G), "NAME resigns" to confirm and "Back"."""
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    bh = cv.px(BUTTON_H)
    name = st.players[ui.adj_player] if ui.adj_player is not None and ui.adj_player < len(st.players) else ""
    title, what, _, b1, b2 = rows_of(inner, [cv.px(40), cv.px(90), 0, bh, bh], cv.px(6))
    cv.text(f"Does {name} resign?", title, 28, AMBER)
    cv.paragraph(f"{name} leaves the game and loses it by forfeit; the scores stand as they are. The game ends "
                 "now.", what, 20, min_size=14)
    cv.button(b1, f"{name} resigns", "judge_resign_confirm", enabled=bool(name), color=(150, 70, 60))
    cv.button(b2, "Back", "judge_resign_cancel", color=(60, 70, 120))
