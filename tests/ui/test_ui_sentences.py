"""Words shown to players are sentences, never internal codes (the project's rule; the tester found "PIN accepted",
"it is Ann's turn, not Bob's", "exchange: choose 1..7 tiles", "ruling: unacceptable: QUIRT" and more): the kiosk is
walked through a representative set of refusals and outcomes, and every message the screen shows, every refusal's
sentence and every prompt of the referee is checked to start with a capital letter, end with '.', '?' or '!' and
hold no snake_case name, and to fit the screen at 800x480 and 480x800."""

from __future__ import annotations

import re
from pathlib import Path

import pygame
import pytest
from test_ui_screens import touch
from ui_fixtures import PIN, display, make_kiosk  # noqa: F401 - display: the autouse pygame fixture

from kiosk.app.removal import check_removed
from kiosk.app.vision_worker import StableReading
from kiosk.control import commands as cmd
from kiosk.control.words import refusal_sentence
from kiosk.referee import events as ev
from kiosk.referee.simulate import tiles_for
from kiosk.referee.state import Result
from kiosk.rules.board import square_name
from kiosk.ui.app import KioskUI
from kiosk.vision.reading import BoardReading

SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
SHOTS = Path("/tmp/words")


def faults(text: str) -> list[str]:
    """What keeps ``text`` from being a sentence for players: [] when it is one."""
    out = []
    if not text or not text[0].isupper():
        out.append("no capital first letter")
    if not text.endswith((".", "?", "!")):
        out.append("no full stop")
    out += [f"internal name {w!r}" for w in SNAKE.findall(text)]
    return out


class Walk:
    """A kiosk and its screens at both sizes; :meth:`said` checks what the kiosk says after each step."""

    def __init__(self, tmp: Path) -> None:
        self.k, self.c = make_kiosk(tmp)
        self.uis = [KioskUI(self.k, size) for size in ((800, 480), (480, 800))]
        self.ui = self.uis[0]   # the one tapped; the other is drawn in the same state
        self.bad: list[tuple[str, str, list[str]]] = []
        self.seen: list[str] = []

    def check(self, where: str, text: str) -> None:
        if text not in self.seen:
            self.seen.append(text)
        if faults(text):
            self.bad.append((where, text, faults(text)))

    def said(self, step: str, res: Result | None = None, shot: str = "", shows: tuple[str, ...] = ()) -> str:
        """Check the message shown after ``step`` (a refusal ``res``: its sentence too, and the message is it),
        the referee's prompts, that every screen fits and that the screen at 800x480 ``shows`` these lines (a
        line wrapped over two rows counts)."""
        k = self.k
        if res is not None and not res.accepted:
            self.check(f"{step} (refusal)", refusal_sentence(res))
            if k.view.message not in (refusal_sentence(res), res.reason):
                self.bad.append((step, k.view.message, ["not the refusal's sentence"]))
        self.check(step, k.view.message)
        for p in k.prompts():
            self.check(f"{step} (prompt {p.kind})", p.text)
        for ui in self.uis:
            ui.overlay = self.ui.overlay
            ui.draw()
            self.bad += [(f"{step} ({ui.screen} at {ui.size[0]}x{ui.size[1]})", o.text, ["does not fit"])
                         for o in ui.overflows]
            if shot:
                SHOTS.mkdir(parents=True, exist_ok=True)
                pygame.image.save(ui.surface, str(SHOTS / f"{shot}-{ui.size[0]}x{ui.size[1]}.png"))
        drawn = " ".join(self.uis[0].texts)
        self.bad += [(step, line, ["not shown"]) for line in shows if line not in drawn]
        return k.view.message

    def tap(self, label: str, **match: object) -> None:
        touch(self.ui, label, **match)

    def pin(self, digits: str) -> None:
        for d in digits:
            self.tap(d)
        self.tap("OK")


def _before_the_first_move(w: Walk) -> None:
    k, c = w.k, w.c
    w.said("the wrong player presses", Result(False, k.press("right"), "wrong_player"))
    w.tap("Judge")
    w.tap("OK")
    w.said("OK on an empty PIN pad", shows=("Judge: enter the PIN.", "Type the PIN first, then OK."))
    for i in range(k.pin.free_tries + 1):
        w.pin("1111")
        w.said(f"wrong PIN {i + 1}", shot="pin-wrong" if i == 1 else "")
    c.t += 10_000
    w.pin(PIN)
    w.said("the PIN opens the judge's menu")
    w.tap("Rules (before move 1)")
    w.said("the rules change before move 1")
    w.tap("Start")
    w.said("the rules changed")
    c.t += 121_000
    w.ui.overlay = "judge"
    w.tap("Adjust a score")
    w.said("the judge's menu timed out", shot="timed-out")
    w.said("a judge's command while the menu is locked", k.handle(cmd.Undo("taken back")))
    w.said("an exchange of more tiles than the rack holds", k.handle(cmd.Exchange(9)))
    w.said("an exchange chosen", k.handle(cmd.Exchange(2)))
    w.said("an exchange cancelled", k.handle(cmd.Exchange(0)))
    w.said("bad input from a script", k.act("designate", player="nobody", square=1, letter="A"))
    gap = [(sq, t) for sq, t in tiles_for(k.state.board, "8D", "QUIRT") if square_name(sq) != "F8"]
    w.said("a play with a gap", k.apply(ev.Play(t=c.t, player=0, tiles=tuple(gap))))
    w.said("a tile that is no letter", k.apply(ev.Play(t=c.t, player=0, tiles=((112, "1"),))))
    w.said("a hold with nothing to hold", k.handle(cmd.Hold(1)))
    w.said("the pause", Result(True, k.press("pause")))
    w.said("a press while paused", Result(False, k.press("left"), "neutralised"))
    w.said("the pause ends", Result(True, k.press("pause")))


def _a_move_and_its_challenge(w: Walk) -> None:
    k, c = w.k, w.c
    assert k.act("judge_unlock", pin=PIN).accepted
    for sq, t in tiles_for(k.state.board, "8D", "QUIRT"):
        w.said("the judge enters a tile", k.handle(cmd.Correct(sq, t)))
    c.t += 20_000
    k.press("left")
    w.said("the judge's entries are the move", shot="play",
           shows=("86 tiles in the bag, 95 unseen", "Annabel played QUIRT at 8D for 48 points."))
    c.t += 2_000
    w.tap("Hold")
    w.said("a hold", shows=("Bartholomew holds the play.",))
    c.t += 61_000
    k.poll()
    w.said("the courtesy time passed", shows=("Annabel may draw new tiles now and keep them apart.",))
    w.tap("Courtesy draw")
    w.said("the courtesy draw", shot="hold")
    w.tap("Challenge")
    w.said("a challenge", shot="challenge", shows=("Challenge by Bartholomew", "Judge: check the words."))
    w.tap("Unacceptable")
    w.said("the ruling's PIN", shows=("Judge: enter the PIN to rule unacceptable.",))
    w.pin(PIN)
    w.said("the ruling", shows=("The judge ruled the play unacceptable: it comes off the board.",
                                "Annabel: take the marked tiles back.", "The game goes on when they are off the board."))
    cells = ["."] * 225
    for sq, t in k.state.last_play.tiles:
        cells[sq] = t
    still = BoardReading.from_grid(["".join(cells[r * 15:(r + 1) * 15]) for r in range(15)])
    check_removed(k, StableReading(1, still, c.t))
    w.said("the withdrawn tiles are still there", shot="remove")
    check_removed(k, StableReading(2, BoardReading.from_grid(["." * 15] * 15), c.t))
    w.said("the withdrawn tiles are off")


def _the_end(w: Walk) -> None:
    k = w.k
    w.tap("Judge")
    w.pin(PIN)
    w.tap("End the game")
    w.said("the game ended by the judge", shows=("Game over: enter the tiles left on each rack.",))
    w.tap("Done")
    w.check("the racks not entered", w.ui.rack_said)
    w.said("the racks not entered", shot="racks", shows=("Enter Annabel's 7 tiles, then Done.",))
    w.said("an exchange after the game", k.handle(cmd.Exchange(2)))
    w.said("a press after the game", Result(False, k.press("left"), "game_over"))


def test_every_message_of_a_walk_through_refusals_is_a_sentence_that_fits(tmp_path):
    w = Walk(tmp_path)
    _before_the_first_move(w)
    _a_move_and_its_challenge(w)
    _the_end(w)
    assert len(w.seen) >= 25, w.seen   # the walk said that many different things
    assert not w.bad, "\n".join(f"{where}: {text!r}: {', '.join(why)}" for where, text, why in w.bad)


@pytest.mark.parametrize("text", ["wrong PIN (2 tries left)", "exchange: choose 1..7 tiles", "ruling: acceptable",
                                  "clock_pressed: refused", "The rules are now nsf"])
def test_the_check_finds_the_old_fragments(text):
    assert faults(text)


def test_the_check_passes_sentences():
    assert not faults("Wrong PIN. You have 2 more tries.") and not faults("Annabel: which letter is the blank on H8?")
