"""What every screen shows at the top of its panel: the clocks of all players (so a hold, a challenge or
the PIN pad never hides them) and a line for each device that is down or degraded (README: a device
problem is shown, the game goes on without it)."""

from __future__ import annotations

import pygame

from kiosk.control.words import counted, device_name, ending_sentence
from kiosk.referee.phase import Phase
from kiosk.referee.state import GameResult
from kiosk.ui.touch_state import CLOCK_DOWN, TouchState
from kiosk.ui.widgets import AMBER, DIM, FG, GREEN, PANEL, RED, Canvas, font, rows_of, split_h, wrap_lines

STRIP_H = 30  # design px of the clock strip
DEVICE_H = 24  # design px of one line atop the panel (the timers)
DEVICE_SIZE = 16  # design px of the device problems' text: wrapped to as many lines as it takes, never smaller
CLOCK_DOWN_SENTENCE = "The clock is not working: press Done on the screen."
"""What the device line says while the clock's buttons or its link are down, instead of each clock part."""
CLOCK_PARTS = tuple(device_name(d) for d in ("buttons", "display", "clock-link"))


def clock_text(ms: int | None, tenths: bool = True) -> str:
    """A clock as the clock displays show it (kiosk.devices.sevenseg.clock_face): ``m:ss`` of the time left
    rounded up (a clock shows 0:01 until it runs out), ``-m:ss`` of the overtime rounded down; below 10 s
    left, with ``tenths``, ``0:0s.t`` (tenths rounded up). ``--:--`` without a chess clock."""
    if ms is None:
        return "--:--"
    if ms < 0:
        s = -ms // 1000
        return f"-{s // 60}:{s % 60:02d}"
    if tenths and 0 < ms < 10_000:
        t = -(-ms // 100)
        return f"0:0{t // 10}.{t % 10}" if t < 100 else "0:10"
    s = -(-ms // 1000)
    return f"{s // 60}:{s % 60:02d}"


def clock_strip(ui: TouchState, cv: Canvas, area: pygame.Rect) -> None:
    """Each player's name and clock side by side in ``area`` (the player on move in green, overtime red);
    with more than two players the names are cut to 3 letters."""
    st = ui.kiosk.state
    n = len(st.players)
    pygame.draw.rect(cv.surface, PANEL, area, border_radius=cv.px(6))
    for p, cell in enumerate(split_h(area.inflate(-cv.px(8), 0), max(1, n), cv.px(6))):
        rem = ui.kiosk.remaining_ms(p)
        if n <= 2:  # the clock takes what its digits need, the name the rest
            cw = min(cell.w // 2, font(cv.px(20)).size("-00:00")[0] + cv.px(4))
            name = pygame.Rect(cell.x, cell.y, cell.w - cw - cv.px(2), cell.h)
            clock = pygame.Rect(cell.right - cw, cell.y, cw, cell.h)
        else:
            name, clock = rows_of(cell, [0, 0])
        colour = GREEN if st.on_move == p else FG
        cv.text(st.players[p] if n <= 2 else st.players[p][:3], name, 20, colour, min_size=11)
        cv.text(clock_text(rem), clock, 20, RED if rem is not None and rem < 0 else colour,
                align="right" if n <= 2 else "left", min_size=11)


def _spoken(ms: int) -> str:
    """A warning's time in words: "3 minutes", "1 minute", "30 seconds"."""
    if ms % 60_000 == 0:
        return counted(ms // 60_000, "minute")
    return counted(ms // 1000, "second")


def timers_line(ui: TouchState) -> tuple[str, tuple[int, int, int]] | None:
    """The per-turn countdown and the session's time left (club sheet 001: 3 minutes a turn; the 6- and
    3-minute session warnings), with the last warning given in words, or None when the preset has neither
    limit. Amber once a warning was given, red when the turn's time is up."""
    st, preset = ui.kiosk.state, ui.kiosk.preset
    if preset is None or st.clock is None or st.phase in (Phase.NOT_STARTED, Phase.OVER):
        return None
    clk, now, parts, colour = preset.clock, ui.kiosk.now(), [], FG
    if clk.turn_limit_ms is not None and st.on_move is not None:
        running = st.clock.running is not None
        left = clk.turn_limit_ms - st.clock.turn_used_ms - (max(0, now - st.clock.since_ms) if running else 0)
        given = [w for w in clk.turn_warnings_ms if f"turn{st.turn}:{w}" in st.warnings_given]
        if left <= 0:
            parts.append("Turn time is up.")
            colour = RED
        else:
            parts.append(f"Turn: {clock_text(left, tenths=False)} left" + (
                f" (warning: {_spoken(min(given))})" if given else ""))
            colour = AMBER if given else colour
    if clk.session_limit_ms is not None:
        left = st.started_t + st.downtime_ms + clk.session_limit_ms - now
        given = [w for w in clk.session_warnings_ms if f"session:{w}" in st.warnings_given]
        parts.append(f"Session: {clock_text(max(0, left), tenths=False)} left" + (
            f" ({_spoken(min(given))} warning)" if given else ""))
        colour = AMBER if given and colour == FG else colour
    return ("   ".join(parts), colour) if parts else None


def game_word_text(ui: TouchState, bonus: int) -> str:
    """The game-word bonus announcement for a play that earned ``bonus`` points by it (club sheet 001:
    READING scores triple, once a game), e.g. "READING! Triple score: +72 points.", or "" for none."""
    preset = ui.kiosk.preset
    word = preset.scoring.get("game_word") if preset is not None else None
    if not bonus or not word:
        return ""
    factor = int(preset.scoring.get("game_word_factor", 2)) if preset is not None else 2
    times = {2: "Double", 3: "Triple"}.get(factor, f"{factor} times the")
    return f"{word}! {times} score: {counted(bonus, 'point', fmt='+d')}."


def device_text(ui: TouchState) -> str:
    """The device problems in sentences (``view.devices``); while the clock's buttons or its link are down
    (:data:`CLOCK_DOWN`) the clock's own sentences give way to :data:`CLOCK_DOWN_SENTENCE`: what the players
    must do, in one sentence, not three device names ("Clock buttons not working. Clock display not working.
    Clock link not working." did not fit the line)."""
    notes = list(ui.kiosk.view.devices)
    if CLOCK_DOWN.intersection(notes):
        notes = [CLOCK_DOWN_SENTENCE, *(n for n in notes if not n.startswith(CLOCK_PARTS))]
    return " ".join(notes)


def device_height(ui: TouchState, cv: Canvas, width: int) -> int:
    """The px the device problems take at the top of a panel ``width`` px wide: their lines wrapped at
    :data:`DEVICE_SIZE` (0 when every device works)."""
    text = device_text(ui)
    if not text:
        return 0
    f = font(cv.px(DEVICE_SIZE))
    return len(wrap_lines(f, text, width)) * f.get_linesize()


NAMED_ENDINGS = {"resigned": ("forfeit", "{} resigned"), "out_play": ("went_out", "{} went out"),
                 "overtime_cap": ("forfeit", "{} ran past the overtime limit"),
                 "late_forfeit": ("forfeit", "{} arrived too late and forfeits the game")}
"""Endings whose sentence names the player (the result's field that holds him, the sentence)."""


def ending_line(players: tuple[str, ...], result: GameResult) -> str:
    """Why the game ended, naming the player it was about where the result knows him ("Bo resigned", "Ada went
    out"); otherwise :func:`kiosk.control.words.ending_sentence` ("a player resigned" did not say who)."""
    named = NAMED_ENDINGS.get(str(result.reason))
    who = getattr(result, named[0]) if named else None
    if named and who is not None and 0 <= who < len(players):
        return named[1].format(players[who])
    return ending_sentence(result.reason)


def panel_top(ui: TouchState, cv: Canvas, inner: pygame.Rect, *, clocks: bool) -> pygame.Rect:
    """Draw the clock strip (with ``clocks`` and a game), the timers and the device problems (when there are
    any, wrapped: :func:`device_height`) at the top of the panel's ``inner`` rect; returns what is left of it
    for the screen."""
    notes = device_text(ui)
    timers = timers_line(ui)
    strip = clocks and bool(ui.kiosk.state.players) and ui.kiosk.state.clock is not None \
        and ui.kiosk.state.clock.game_ms is not None  # without a chess clock the timers line says it all
    heights = ([cv.px(STRIP_H)] if strip else []) + ([cv.px(DEVICE_H)] if timers else []) + (
        [device_height(ui, cv, inner.w)] if notes else [])
    if not heights:
        return inner
    *rows, rest = rows_of(inner, [*heights, 0], cv.px(4))
    if strip:
        clock_strip(ui, cv, rows[0])
    if timers:
        cv.text(timers[0], rows[1 if strip else 0], 18, timers[1], min_size=11)
    if notes:
        cv.paragraph(notes, rows[-1], DEVICE_SIZE, RED if "not working" in notes else AMBER, min_size=DEVICE_SIZE)
    return rest


def rack_key(cv: Canvas, rect: pygame.Rect, tile: str, points: int, left: int) -> None:
    """A rack-entry key drawn like a tile: the letter large ("blank" for ``?``), its ``points`` small at the
    bottom right, how many are ``left`` to enter small at the top left ("x9"), so "A 1 x9" never reads as
    a coordinate; none left: greyed, not tappable."""
    fits = font(cv.px(14)).size("blank")[0] <= rect.w - cv.px(8)
    label = ("blank" if fits else "?") if tile == "?" else tile  # 15 narrow keys (4 racks): the blank's own mark
    cv.button(rect, label, "rack_letter", letter=tile, size=26 if tile != "?" else 16, enabled=left > 0)
    corner = pygame.Rect(0, 0, rect.w // 2, rect.h // 3)
    if tile != "?":
        cv.text(str(points), corner.move(rect.right - corner.w - cv.px(3), rect.bottom - corner.h), 12, DIM,
                align="right", min_size=8)
    if left > 1:
        cv.text(f"x{left}", corner.move(rect.x + cv.px(3), rect.y), 12, DIM, min_size=8)


__all__ = ["clock_strip", "clock_text", "device_height", "device_text", "ending_line", "panel_top", "rack_key"]
