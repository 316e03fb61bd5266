"""The screens. Each ``draw_*`` paints one screen of the touchscreen (its :class:`TouchState` and the kiosk's
state) on a :class:`Canvas` and registers its buttons; :func:`screen_for` says which screen the kiosk's state calls for.

Layout: landscape (800x480 by default): the board on the left in a square of the screen's height, the panel on
the right; portrait (e.g. 720x1280): the board on top, the panel below. Sizes are in design px of a 480-px short
side, scaled to the screen (``Canvas.unit``); buttons are at least 56 design px high (a fingertip).
"""

from __future__ import annotations

import pygame

from kiosk.control.rules_choice import rules_name
from kiosk.control.words import counted, play_place, ruling_sentence, sheet_rows, turn_words
from kiosk.referee.state import CHALLENGED, DESIGNATING, NOT_STARTED, OUTPLAY, OVER, PLAYING, RACK_ENTRY, REMOVING
from kiosk.ui.board_view import square_label
from kiosk.ui.judge_screens import (
    draw_judge,
    draw_judge_adjust,
    draw_judge_correct,
    draw_judge_player,
    draw_judge_resign,
)
from kiosk.ui.outplay_row import accept_row
from kiosk.ui.panel import BUTTON_H, layout
from kiosk.ui.panel import board_and_panel as _board_and_panel
from kiosk.ui.panel import holds as _holds
from kiosk.ui.panel import letters as _letters
from kiosk.ui.panel import sheet_rows as _rows
from kiosk.ui.problem_words import problem_lines, sentence
from kiosk.ui.status import DEVICE_H, clock_text, device_height, ending_line, game_word_text, rack_key, timers_line
from kiosk.ui.touch_state import TouchState
from kiosk.ui.widgets import AMBER, BG, BLUE, DIM, FG, GREEN, PANEL, RED, Canvas, font, grid_rects, rows_of, split_h


def screen_for(ui: TouchState) -> str:
    """The name of the screen to show now."""
    st = ui.kiosk.state
    if ui.overlay in ("pin", "judge", "judge_correct", "judge_adjust", "judge_player", "judge_resign"):
        return ui.overlay
    if st.phase == NOT_STARTED or ui.overlay == "new_game":
        return "new_game"
    if st.phase == DESIGNATING:
        return "blank"
    if st.phase == CHALLENGED:
        return "ruling"
    if st.phase == REMOVING:
        return "remove"
    if st.phase == OUTPLAY:
        return "outplay"
    if st.phase == RACK_ENTRY:
        return "racks"
    if st.phase == OVER:
        return "over"
    if st.hold_by is not None:
        return "hold"
    if ui.overlay == "exchange":
        return "exchange"
    if ui.kiosk.view.problem_text:
        return "problem"
    return "main"



def _scores(ui: TouchState, cv: Canvas, area: pygame.Rect, *, side_by_side: bool = False) -> None:
    """Each player's name, score and clock in a box, stacked in ``area`` (``side_by_side``: in one row, for a
    wide, short panel); the player on move marked green. A narrow box gives the name its own line."""
    st = ui.kiosk.state
    n = ui.player_count()
    parts = split_h(area, n, cv.px(4)) if side_by_side else rows_of(area, [0] * n, cv.px(4))
    for p, rect in enumerate(parts[:len(st.players)]):
        on_move = st.on_move == p
        pygame.draw.rect(cv.surface, (58, 66, 78) if on_move else PANEL, rect, border_radius=cv.px(6))
        if on_move:
            pygame.draw.rect(cv.surface, GREEN, pygame.Rect(rect.x, rect.y, cv.px(6), rect.h))
        inner = rect.inflate(-cv.px(16), -cv.px(4))
        top, bottom = rows_of(inner, [0, 0])
        rem = ui.kiosk.remaining_ms(p)
        clock_colour = RED if rem is not None and rem < 0 else FG
        if side_by_side or rect.w < cv.px(200):  # the name on its own line, the score and clock below
            cv.text(st.players[p], top, 24, GREEN if on_move else FG)
            score, cl = split_h(bottom, 2, cv.px(4))
            cv.text(str(st.scores[p]), score, 28)
            cv.text(clock_text(rem), cl, 22, clock_colour, align="right")
            continue
        left, right = split_h(top, 2, cv.px(4))
        cv.text(st.players[p], left, 26)
        cv.text(str(st.scores[p]), right, 34, align="right")
        cl, tag = split_h(bottom, 2, cv.px(4))
        cv.text(clock_text(rem), cl, 28, clock_colour)
        cv.text("on move" if on_move else "", tag, 20, GREEN, align="right")


def _info(ui: TouchState, cv: Canvas, area: pygame.Rect) -> None:
    st = ui.kiosk.state
    unseen = sum(n for _, n in st.unseen)
    a, b, c = rows_of(area, [0, 0, 0])
    cv.text(f"{counted(st.bag, 'tile')} in the bag, {unseen} unseen", a, 22, DIM)
    lp = st.last_play
    if lp is not None:
        who = st.players[lp.player]
        state = " (withdrawn)" if lp.withdrawn else ""
        cv.text(f"{who}: {play_place(lp.coordinate, sheet_rows(ui.kiosk.preset))} {lp.word} {lp.score}{state}", b, 24)
        bonus = game_word_text(ui, lp.game_word_bonus)
        cv.text(bonus or ", ".join(w.upper() for w in lp.words), c, 20, AMBER if bonus else DIM)
    elif st.history:
        h = st.history[-1]
        cv.text(f"{st.players[h.player]}: {turn_words(h.kind)} {h.points:+d}", b, 24)


# ------------------------------------------------------------------------------------------------ screens


def draw_main(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv, clocks=False)
    bh = cv.px(BUTTON_H)
    wide = inner.w >= inner.h  # portrait: a wide, short panel under the board lays the scores side by side
    atop = device_height(ui, cv, inner.w) / cv.unit + bool(timers_line(ui)) * DEVICE_H  # taken from the scores
    scores_h = 64 if wide else max(96, 150 - int(atop) - 4 * bool(atop))
    said = ui.kiosk.view.message
    lines = -(-font(cv.px(16)).size(said)[0] // inner.w)  # a long sentence (a journal that cannot be written) wraps
    msg_h = [cv.px(21 * lines if lines > 1 else 30)] * bool(said)
    sc, info, *msg, b1, b2 = rows_of(inner, [cv.px(scores_h), 0, *msg_h, bh + _heading_h(ui, cv), bh], cv.px(6))
    _scores(ui, cv, sc, side_by_side=wide)
    _info(ui, cv, info)
    for rect in msg:
        (cv.paragraph if lines > 1 else cv.text)(said, rect, 16 if lines > 1 else 20, AMBER, min_size=12)
    window = st.phase == PLAYING and st.window_open and st.last_play is not None and not st.last_play.withdrawn
    _challenge_row(ui, cv, b1, window)
    done = st.phase == PLAYING and st.on_move is not None and st.on_move not in ui.wired_now()
    ex, judge, *rest = split_h(b2, 3 if done else 2, cv.px(6))
    cv.button(ex, "Exchange", "exchange_open", enabled=st.phase == PLAYING and bool(st.exchange_counts))
    cv.button(judge, "Judge", "judge_open", color=(60, 70, 120))
    if done:  # a side with no clock button of its own (a third or fourth player, a clock that is down) ends here
        cv.button(rest[0], "Done", "done", color=(60, 110, 70))


def _heading_h(ui: TouchState, cv: Canvas) -> int:
    """The px of the heading over the challenge buttons of a 3-4 player game (0 with two players)."""
    return cv.px(22) if len(ui.kiosk.state.players) > 2 and ui.kiosk.state.last_play is not None else 0


def _challenge_row(ui: TouchState, cv: Canvas, row: pygame.Rect, window: bool) -> None:
    """Hold and Challenge for the next player; with 3-4 players, one Challenge button per other side (any
    opponent may challenge, seeds 003/004), the hold for the next player where the rules have holds."""
    st = ui.kiosk.state
    lp = st.last_play
    if len(st.players) <= 2 or lp is None:
        hold, chal = split_h(row, 2, cv.px(6))
        cv.button(hold, "Hold", "hold", enabled=window and _holds(ui))
        cv.button(chal, "Challenge", "challenge", enabled=window, color=(150, 70, 60))
        return
    others = [(lp.player + k) % len(st.players) for k in range(1, len(st.players))]
    holds = _holds(ui)
    heading, row = rows_of(row, [_heading_h(ui, cv), 0], 0)  # the buttons carry names: the heading says what for
    cv.text("Hold, or challenge by:" if holds else "Challenge by:", heading, 18, (230, 120, 100), min_size=14)
    rects = split_h(row, len(others) + holds, cv.px(6))
    if holds:
        cv.button(rects.pop(0), "Hold", "hold", enabled=window)
    for rect, q in zip(rects, others):
        cv.button(rect, st.players[q], "challenge", player=q, enabled=window, color=(150, 70, 60))


def draw_problem(ui: TouchState, cv: Canvas) -> None:
    view = ui.kiosk.view
    inner = _board_and_panel(ui, cv)
    bh = cv.px(BUTTON_H)
    title, what, lines, hint, b = rows_of(inner, [cv.px(40), cv.px(80), 0, cv.px(56), bh], cv.px(4))
    cv.text("Check the board", title, 30, RED)
    cv.paragraph(sentence(view.problem_text), what, 20, AMBER, min_size=14)
    st = ui.kiosk.state
    mover = st.on_move if st.on_move is not None else 0
    said = problem_lines(view, _rows(ui), st.players[mover], st.racks[mover]) if st.players else []
    texts = said[:3] + [f"And {len(said) - 3} more."] * (len(said) > 3)  # each problem once, in a sentence
    for rect, t in zip(rows_of(lines, [cv.px(44)] * len(texts) + [0], cv.px(2)), texts):
        cv.paragraph(t, rect, 18, min_size=13)
    cv.paragraph("Fix the marked tiles and press the clock again, or call the judge." if view.problem_squares else
                 "The judge enters the move's tiles with Judge, then Correct a square.", hint, 20, DIM)
    cv.button(b, "Judge", "judge_open", color=(60, 70, 120))


def draw_blank(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    sq = st.pending_blanks[0] if st.pending_blanks else None
    title, keys, judge = rows_of(inner, [cv.px(44), 0, cv.px(BUTTON_H)], cv.px(6))
    cv.button(judge, "Judge", "judge_open", color=(60, 70, 120))  # a way out: the judge corrects or takes it back
    who = ui.kiosk.prompts()[0].player if ui.kiosk.prompts() else 0
    where = f" on {square_label(sq, _rows(ui))}" if sq is not None else ""
    cv.text(f"{st.players[who]}: which letter is the blank{where}?", title, 26)
    letters = _letters(ui)
    cols = 8 if inner.w >= inner.h else 6 if len(letters) > 28 else 5 if inner.w < inner.h * 1.2 else 6
    for rect, letter in zip(grid_rects(keys, len(letters), cols, cv.px(4)), letters):
        cv.button(rect, letter, "letter", letter=letter, size=30)


def draw_exchange(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    p = st.on_move if st.on_move is not None else 0
    title, keys, cancel = rows_of(inner, [cv.px(44), 0, cv.px(BUTTON_H)], cv.px(6))
    cv.text(f"{st.players[p]}: exchange how many tiles?", title, 26)
    counts = st.exchange_counts  # what the referee allows now (kiosk.referee.turns.exchange_counts)
    for rect, k in zip(grid_rects(keys, max(1, len(counts)), 4, cv.px(6)), counts):
        cv.button(rect, str(k), "exchange", count=k, size=34)
    cv.button(cancel, "Cancel", "exchange", count=0)


def draw_hold(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    bh = cv.px(BUTTON_H)
    short = inner.h < cv.px(360)  # a portrait panel under the board: the timer gives the words and message room
    title, timer, note, words, b1, b2 = rows_of(
        inner, [cv.px(40), cv.px(46 if short else 60), cv.px(30 if short else 44), 0, bh, bh], cv.px(6))
    holder = st.hold_by if st.hold_by is not None else 0
    cv.text(f"{st.players[holder]} holds the play.", title, 30, AMBER)
    held = max(0, ui.kiosk.now() - (st.hold_since_ms or ui.kiosk.now()))
    cv.text(clock_text(held, tenths=False), timer, 48, align="center")
    if st.courtesy_given and st.last_play is not None:
        cv.paragraph(f"{st.players[st.last_play.player]} may draw new tiles now and keep them apart.", note, 18,
                     AMBER, min_size=12)
    else:
        cv.text("The clocks are stopped for the hold." if st.clock and st.clock.running is None else "", note, 20, DIM)
    words, said = rows_of(words, [cv.px(28), 0] if short else [0, cv.px(44)])
    if st.last_play is not None:
        cv.text(", ".join(w.upper() for w in st.last_play.words), words, 26)
    cv.paragraph(sentence(ui.kiosk.view.message), said, 18, AMBER, min_size=12)  # e.g. the courtesy draw taken
    rel, chal = split_h(b1, 2, cv.px(6))
    cv.button(rel, "Release", "release", color=(60, 110, 70))
    cv.button(chal, "Challenge", "challenge", color=(150, 70, 60))
    cv.button(b2, "Courtesy draw", "courtesy_draw", enabled=st.courtesy_given)


def draw_ruling(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    bh = cv.px(BUTTON_H)
    title, w1, w2, sugg, b1, b2 = rows_of(inner, [cv.px(40), 0, 0, cv.px(36), bh, bh], cv.px(6))
    who = st.players[st.challenge_by] if st.challenge_by is not None else "Lexicon check"
    cv.text(f"Challenge by {who}" if st.challenge_by is not None else who, title, 28, AMBER)
    words = list(st.challenge_words)
    half = (len(words) + 1) // 2
    cv.text(", ".join(words[:half]), w1, 30)
    cv.text(", ".join(words[half:]), w2, 30)
    s = ui.kiosk.ruling_suggestion()
    if s is not None:
        cv.text("The lexicon says: " + ("acceptable." if s.acceptable else "NOT acceptable."), sugg, 22,
                GREEN if s.acceptable else RED)
    else:
        cv.text("Judge: check the words.", sugg, 22, DIM)
    ok, bad = split_h(b1, 2, cv.px(6))
    cv.button(ok, "Acceptable", "rule", acceptable=True, color=(60, 110, 70))
    cv.button(bad, "Unacceptable", "rule", acceptable=False, color=(150, 70, 60))
    cv.button(b2, "Withdraw the challenge", "withdraw", enabled=st.challenge_by is not None, size=22)


def draw_pin(ui: TouchState, cv: Canvas) -> None:
    inner = _board_and_panel(ui, cv)
    title, entry, keys, cancel = rows_of(inner, [cv.px(36), cv.px(44), 0, cv.px(BUTTON_H)], cv.px(6))
    cv.text("Judge: enter the PIN." if ui.pin_purpose == "judge" else
            f"Judge: enter the PIN to rule {'acceptable' if ui.pin_purpose == 'rule:1' else 'unacceptable'}.", title, 24)
    cv.text("*" * len(ui.pin_buffer) or "-", entry, 36, align="center")
    labels = ["1", "2", "3", "Clear", "4", "5", "6", "0", "7", "8", "9", "OK"]
    for rect, lab in zip(grid_rects(keys, 12, 4, cv.px(6)), labels):
        if lab == "OK":
            cv.button(rect, lab, "pin_ok", color=(60, 110, 70), size=28)
        elif lab == "Clear":
            cv.button(rect, lab, "pin_clear", size=22)
        else:
            cv.button(rect, lab, "pin_digit", digit=lab, size=32)
    cv.button(cancel, "Cancel", "pin_cancel", color=(60, 70, 120))
    if ui.kiosk.view.message and "PIN" in ui.kiosk.view.message:
        board = layout(cv.surface.get_size())[0]
        msg = pygame.Rect(board.x, board.bottom - cv.px(30), board.w, cv.px(28))
        pygame.draw.rect(cv.surface, BG, msg)
        cv.text(sentence(ui.kiosk.view.message), msg, 22, RED, align="center")


def draw_remove(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    title, ruling, who, rest, b = rows_of(inner, [cv.px(40), cv.px(52), cv.px(60), 0, cv.px(BUTTON_H)], cv.px(6))
    cv.text("Play withdrawn", title, 30, RED)
    cv.paragraph(ruling_sentence(st.ruling), ruling, 20, min_size=14)
    lp = st.last_play
    if lp is not None:
        cv.text(f"{st.players[lp.player]}: take the marked tiles back.", who, 22)
    cv.paragraph("The game goes on when they are off the board.", rows_of(rest, [cv.px(48), 0])[0], 20, DIM,
                 min_size=14)
    cv.button(b, "Judge", "judge_open", color=(60, 70, 120))


def draw_outplay(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv, clocks=False)
    bh = cv.px(BUTTON_H)
    sc, title, b1, b2 = rows_of(inner, [cv.px(150), 0, bh, bh + _heading_h(ui, cv)], cv.px(6))
    _scores(ui, cv, sc)
    lp = st.last_play
    opp = ui.next_player(lp.player if lp is not None else 0)
    left = (st.window_until_ms or ui.kiosk.now()) - ui.kiosk.now()
    ask = f"{st.players[opp]}: accept or challenge?" if len(st.players) <= 2 else "Accept (green) or challenge (red)."
    went = f"{st.players[lp.player]} went out. " if lp else ""
    secs = max(0, left) // 1000
    cv.paragraph(f"{went}{ask} {counted(secs, 'second')} left.", title, 22, AMBER, min_size=14)
    accept_row(cv, b1, st)
    _challenge_row(ui, cv, b2, True)


def draw_racks(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    inner = _board_and_panel(ui, cv)
    bh = cv.px(50)
    said = [cv.px(40)] * bool(ui.rack_said)  # why Done was refused, until the next key
    n = ui.player_count()
    parts = rows_of(inner, [cv.px(32), *[cv.px(34)] * n, 0, *said, bh], cv.px(4))
    title, rows, keys, b = parts[0], parts[1:n + 1], parts[n + 1], parts[-1]
    if said:
        cv.paragraph(ui.rack_said, parts[n + 2], 18, AMBER, min_size=13)
    cv.text("Game over: enter the tiles left on each rack.", title, 20)
    racks = ui.rack_list()
    for p, rect in enumerate(rows):
        mark = ">" if ui.rack_player == p else " "
        cv.text(f"{mark} {st.players[p]} ({st.racks[p]}): {racks[p] or '-'}", rect, 24,
                AMBER if ui.rack_player == p else FG)
    avail = ui.rack_keys()  # every tile in its place: a used-up one greyed, never removed
    cols = 9 if keys.w > keys.h * 1.5 else 6
    while cols < 15 and keys.h // -(-max(1, len(avail)) // cols) < cv.px(44):  # 3-4 racks leave less height
        cols += 1
    values = dict(ui.kiosk.tile_set.values) if ui.kiosk.tile_set else {}
    for rect, (tile, n) in zip(grid_rects(keys, max(1, len(avail)), cols, cv.px(3)), avail):
        rack_key(cv, rect, tile, values.get(tile, 0), n)
    nxt, back, done, judge = split_h(b, 4, cv.px(4))
    cv.button(nxt, "Next rack", "rack_next")
    cv.button(back, "Delete", "rack_back")
    cv.button(done, "Done", "rack_done", color=(60, 110, 70))
    cv.button(judge, "Judge", "judge_open", color=(60, 70, 120))  # e.g. stop as it stands, racks unknown (III.G)


def draw_over(ui: TouchState, cv: Canvas) -> None:
    st = ui.kiosk.state
    r = st.result
    inner = _board_and_panel(ui, cv)
    bh = cv.px(BUTTON_H)
    row_h = cv.px(40 if ui.player_count() <= 2 else 30)  # 3-4 players: the reason keeps its line
    title, head, *rows, winner, reason, _, b = rows_of(
        inner, [cv.px(40), cv.px(28), *[row_h] * ui.player_count(), cv.px(44), cv.px(48), 0, bh], cv.px(4))
    cv.text("Final", title, 32)
    overtime = r is not None and any(r.time_penalty)  # its own column: the racks column is the racks' points only
    cols = [0.32, 0.15, 0.15, 0.23, 0.15] if overtime else [0.34, 0.22, 0.22, 0.22]

    def row(rect: pygame.Rect, cells: list[str], size: float, colour: tuple[int, int, int] = FG) -> None:
        x = rect.x
        for frac, text in zip(cols, cells):
            w = int(rect.w * frac)
            cv.text(text, pygame.Rect(x, rect.y, w - cv.px(4), rect.h), size, colour,
                    align="left" if x == rect.x else "right")
            x += w

    row(head, ["", "score", "racks", *["overtime"] * overtime, "final"], 18, DIM)
    if r is not None:
        for p, rect in enumerate(rows):
            late = [f"{-r.time_penalty[p]:+d}"] * overtime
            row(rect, [st.players[p], str(r.before_racks[p]), f"{r.rack_adjust[p]:+d}", *late, str(r.final[p])], 26)
        winners = [st.players[i] for i in range(len(st.players)) if r.wins[i] == 1.0]
        cv.text(f"{winners[0]} wins" if winners else "Tie: half a win each", winner, 32, GREEN)
        cv.paragraph(sentence(ending_line(st.players, r)), reason, 20, DIM, min_size=14)
    new, judge = split_h(b, 2, cv.px(6))
    cv.button(new, "New game", "new_game_open", color=BLUE)
    cv.button(judge, "Judge", "judge_open", color=(60, 70, 120))  # corrections after the end (002 III.E/F)


def draw_new_game(ui: TouchState, cv: Canvas) -> None:
    inner = _board_and_panel(ui, cv)
    bh = cv.px(BUTTON_H)
    names = ui.new_players
    name_h = cv.px(36 if len(names) <= 2 else 28)  # 3-4 names leave a line for the message
    title, *rows, preset, b1, b2 = rows_of(inner, [cv.px(40), *[name_h] * len(names), 0, bh, bh], cv.px(6))
    cv.text("New game", title, 32)
    for i, (name, rect) in enumerate(zip(names, rows)):
        cv.text(f"{i + 1}: {name}", rect, 26)
    rules_row, said = rows_of(preset, [cv.px(36), 0])
    cv.text(f"Rules: {rules_name(ui.new_preset)}", rules_row, 24, AMBER)
    if said.h >= cv.px(18):
        cv.text(ui.kiosk.view.message, said, 18, AMBER, min_size=12)  # e.g. the rules are for 2 players
    swap, count, rules = split_h(b1, 3, cv.px(6))
    cv.button(swap, "Swap" if len(names) == 2 else "Rotate", "new_swap")
    cv.button(count, counted(len(names), "player"), "new_count")
    cv.button(rules, "Rules", "new_preset_next")
    if ui.overlay == "new_game" and ui.kiosk.state.phase != NOT_STARTED:  # opened over a game: a way back
        back, b2 = split_h(b2, 2, cv.px(6))
        cv.button(back, "Cancel", "new_cancel", color=(60, 70, 120))
    cv.button(b2, "Start", "new_start", color=(60, 110, 70))


SCREENS = {"main": draw_main, "problem": draw_problem, "blank": draw_blank, "exchange": draw_exchange,
           "hold": draw_hold, "ruling": draw_ruling, "pin": draw_pin, "remove": draw_remove, "outplay": draw_outplay,
           "racks": draw_racks, "over": draw_over, "new_game": draw_new_game, "judge": draw_judge,
           "judge_correct": draw_judge_correct, "judge_adjust": draw_judge_adjust, "judge_player": draw_judge_player,
           "judge_resign": draw_judge_resign}
