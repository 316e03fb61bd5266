"""The kiosk's touchscreen: one :class:`KioskUI` draws the screen the kiosk's state calls for and turns taps
into kiosk actions.

Input: finger events (``FINGERDOWN``/``FINGERUP``, normalised coordinates) and mouse clicks. SDL also turns
each touch into a synthetic mouse event (``event.touch`` true); those are ignored, so a tap acts once. A tap
is a press and a release on the same button.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

import pygame

from kiosk.app.kiosk import Kiosk
from kiosk.referee.presets import bundled_presets, load_preset
from kiosk.referee.state import NOT_STARTED, OVER, RACK_ENTRY
from kiosk.ui.screens import SCREENS, screen_for
from kiosk.ui.widgets import BG, Button, Canvas, Overflow

log = logging.getLogger("kiosk.ui")


class KioskUI:
    """The screen of one kiosk.

    Args:
        kiosk: the table's controller. size: screen size (w, h) px. surface: draw here (default: a new
        surface of ``size``). players / preset: the new-game screen's defaults.
    """

    def __init__(self, kiosk: Kiosk, size: tuple[int, int] = (800, 480), surface: pygame.Surface | None = None,
                 players: tuple[str, str] = ("Player 1", "Player 2"), preset: str = "nsf") -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.kiosk = kiosk
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.size = self.surface.get_size()
        self.overlay: str | None = None
        self.pin_buffer = ""
        self.pin_purpose = "judge"
        self.selected: int | None = None
        self.racks = ["", ""]
        self.rack_player = 0
        self.adj_player = 0
        self.adj_points = 0
        self.adj_reason = "misscored"
        self.new_players = players
        self.new_preset = preset
        self.buttons: list[Button] = []
        self.overflows: list[Overflow] = []
        self.screen = "main"
        self._down: Button | None = None

    # ------------------------------------------------------------------------------------------ drawing
    def draw(self) -> str:
        """Paint the current screen; returns its name. Text overflows are kept in :attr:`overflows`."""
        self.screen = screen_for(self)
        if self.kiosk.state.phase != RACK_ENTRY:
            self.racks, self.rack_player = ["", ""], 0
        self.surface.fill(BG)
        w, h = self.size
        cv = Canvas(self.surface, min(w, h) / 480)
        SCREENS[self.screen](self, cv)
        self.buttons = cv.buttons
        self.overflows = cv.overflows
        for o in cv.overflows:
            log.warning("screen %s: text does not fit its box: %r", self.screen, o.text)
        return self.screen

    # ------------------------------------------------------------------------------------------ input
    def handle_event(self, event: pygame.event.Event) -> str | None:
        """Take one pygame event; returns the action a completed tap triggered (or None)."""
        w, h = self.size
        if event.type == pygame.FINGERDOWN:
            self._down = self.hit((int(event.x * w), int(event.y * h)))
            return None
        if event.type == pygame.FINGERUP:
            return self._release((int(event.x * w), int(event.y * h)))
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            if getattr(event, "touch", False) or getattr(event, "button", 1) != 1:
                return None  # SDL's mouse copy of a touch: the finger event acts
            if event.type == pygame.MOUSEBUTTONDOWN:
                self._down = self.hit(event.pos)
                return None
            return self._release(event.pos)
        return None

    def _release(self, pos: tuple[int, int]) -> str | None:
        down, self._down = self._down, None
        up = self.hit(pos)
        if down is None or up is None or up is not down:
            return None
        self.do(up.action, dict(up.kw))
        return up.action

    def hit(self, pos: tuple[int, int]) -> Button | None:
        """The enabled button under ``pos`` (the last drawn wins), or None."""
        for b in reversed(self.buttons):
            if b.enabled and b.rect.collidepoint(pos):
                return b
        return None

    def tap(self, label_or_action: str, **match: Any) -> str:
        """Tap the first drawn button whose label or action is ``label_or_action`` (tests, scripted demos).
        The screen is redrawn first. Raises LookupError when the screen has no such enabled button."""
        self.draw()
        for b in self.buttons:
            if b.enabled and label_or_action in (b.label, b.action) and all(b.kw.get(k) == v for k, v in match.items()):
                self.do(b.action, dict(b.kw))
                return b.action
        raise LookupError(f"screen {self.screen}: no enabled button {label_or_action!r} {match or ''}")

    # ------------------------------------------------------------------------------------------ actions
    def do(self, action: str, kw: dict[str, Any]) -> None:
        """Carry out a button's action."""
        k = self.kiosk
        st = k.state
        on_move = st.on_move if st.on_move is not None else 0
        if action in ("hold", "challenge"):
            lp = st.last_play
            player = st.hold_by if st.hold_by is not None else (1 - lp.player if lp is not None else on_move)
            k.act(action, player=player)
        elif action == "release":
            k.act("release", player=st.hold_by if st.hold_by is not None else on_move)
        elif action == "courtesy_draw":
            if st.last_play is not None:
                k.act("courtesy_draw", player=st.last_play.player)
        elif action == "exchange_open":
            self.overlay = "exchange"
        elif action == "exchange":
            k.act("exchange", count=kw["count"])
            self.overlay = None
        elif action == "letter":
            prompts = k.prompts()
            if st.pending_blanks and prompts:
                k.act("designate", player=prompts[0].player, square=st.pending_blanks[0], letter=kw["letter"])
        elif action == "rule":
            self.pin_purpose = "rule:1" if kw["acceptable"] else "rule:0"
            self.overlay, self.pin_buffer = "pin", ""
        elif action == "judge_open":
            self.pin_purpose = "judge"
            self.overlay, self.pin_buffer = "pin", ""
        elif action == "pin_digit":
            if len(self.pin_buffer) < 8:
                self.pin_buffer += kw["digit"]
        elif action == "pin_clear":
            if not self.pin_buffer:
                self.overlay = None
            self.pin_buffer = ""
        elif action == "pin_ok":
            self._pin_ok()
        elif action == "accept_outplay":
            lp = st.last_play
            k.act("accept_outplay", player=1 - lp.player if lp is not None else 1)
        elif action.startswith("rack_"):
            self._rack(action, kw)
        elif action.startswith(("judge_", "adj_", "square")):
            self._judge(action, kw)
        elif action.startswith("new_"):
            self._new_game(action)
        else:
            log.warning("unknown action %s", action)

    def _pin_ok(self) -> None:
        k = self.kiosk
        entered, self.pin_buffer = self.pin_buffer, ""
        if self.pin_purpose.startswith("rule:"):
            res = k.act("rule", acceptable=self.pin_purpose == "rule:1", pin=entered)
            if res.accepted or res.code != "pin":
                self.overlay = None
            return
        res = k.act("judge_unlock", pin=entered)
        if res.accepted:
            self.overlay = "judge"

    def rack_choices(self) -> list[tuple[str, int]]:
        """Tiles still possible for the rack being entered: the unseen tiles minus those already typed."""
        unseen = Counter(dict(self.kiosk.state.unseen))
        unseen.subtract(Counter("".join(self.racks)))
        return [(t, n) for t, n in sorted(unseen.items(), key=lambda kv: (kv[0] == "?", kv[0])) if n > 0]

    def _rack(self, action: str, kw: dict[str, Any]) -> None:
        st = self.kiosk.state
        p = self.rack_player
        if action == "rack_letter":
            if len(self.racks[p]) < st.racks[p] and any(t == kw["letter"] for t, _ in self.rack_choices()):
                self.racks[p] += kw["letter"]
        elif action == "rack_back":
            self.racks[p] = self.racks[p][:-1]
        elif action == "rack_next":
            self.rack_player = 1 - p
        elif action == "rack_done":
            self.kiosk.act("racks", racks=tuple(self.racks))

    def _judge(self, action: str, kw: dict[str, Any]) -> None:
        k = self.kiosk
        if k.now() >= k.view.judge_until:
            self.overlay = None
            k.view.message = "the judge menu timed out: enter the PIN again"
            return
        if action in ("judge_close",):
            self.overlay, self.selected = None, None
        elif action == "judge_open_menu":
            self.overlay, self.selected = "judge", None
        elif action == "judge_correct_open":
            self.overlay, self.selected = "judge_correct", None
        elif action == "square":
            self.selected = kw["square"]
        elif action == "judge_correct" and self.selected is not None:
            k.act("correct", square=self.selected, char=kw["char"])
            self.selected = None
        elif action == "judge_adjust_open":
            self.overlay, self.adj_points = "judge_adjust", 0
        elif action == "adj_player":
            self.adj_player = kw["player"]
        elif action == "adj_points":
            self.adj_points += kw["delta"]
        elif action == "adj_reason":
            self.adj_reason = kw["reason"]
        elif action == "adj_apply":
            res = k.act("adjust", player=self.adj_player, points=self.adj_points, reason=self.adj_reason)
            if res:
                self.overlay, self.adj_points = "judge", 0
        elif action == "judge_removed":
            k.act("confirm_removed")
            self.overlay = None
        elif action == "judge_undo":
            k.act("undo", reason="taken back by the judge at the table")
            self.overlay = None
        elif action == "judge_end":
            k.act("call_game", reason="ended by the judge")
            self.overlay = None
        elif action == "judge_preset":
            k.view.message = "rules change before move 1: choose the rules, then Start"
            self.new_preset = k.state.preset if k.state.preset in bundled_presets() else self.new_preset
            self.overlay = "new_game"

    def _new_game(self, action: str) -> None:
        if action == "new_game_open":
            self.overlay = "new_game"
        elif action == "new_swap":
            self.new_players = (self.new_players[1], self.new_players[0])
        elif action == "new_preset_next":
            names = bundled_presets()
            i = names.index(self.new_preset) if self.new_preset in names else -1
            self.new_preset = names[(i + 1) % len(names)]
        elif action == "new_start":
            preset = load_preset(self.new_preset)
            st = self.kiosk.state
            if st.phase not in (NOT_STARTED, OVER) and not st.history:  # the judge's rules change before move 1
                res = self.kiosk.act("change_preset", preset=preset.to_dict(), reason="changed before the first move")
            else:
                res = self.kiosk.start_game(preset.to_dict(), self.new_players)
            if res:
                self.overlay = None
            else:
                self.kiosk.view.message = res.reason
