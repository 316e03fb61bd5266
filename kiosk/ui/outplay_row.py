"""The out-play screen's Accept row: one Accept with two players; with 3-4 players one per opponent (named), greyed
once that opponent has accepted (seeds 003/004: the out-play stands when every opponent has accepted it)."""

from __future__ import annotations

import pygame

from kiosk.referee.state import GameState
from kiosk.ui.widgets import Canvas, split_h

ACCEPT_COLOR = (60, 110, 70)
"""Fill of an Accept button (RGB)."""


def accept_row(cv: Canvas, row: pygame.Rect, st: GameState) -> None:
    """Draw the Accept button(s) of the out-play in ``row`` (px) and register their taps (``accept_outplay``,
    with ``player`` when there are several). Opponents are in turn order from the player who went out."""
    lp = st.last_play
    n = len(st.players)
    if n <= 2 or lp is None:
        cv.button(row, "Accept", "accept_outplay", color=ACCEPT_COLOR)
        return
    others = [(lp.player + k) % n for k in range(1, n)]
    for rect, q in zip(split_h(row, len(others), cv.px(6)), others):
        cv.button(rect, st.players[q], "accept_outplay", player=q, enabled=q not in st.outplay_accepted_by,
                  color=ACCEPT_COLOR)
