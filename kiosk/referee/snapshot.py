"""The frozen :class:`~kiosk.referee.state.GameState` of a game model (:func:`snapshot`)."""

from __future__ import annotations

from kiosk.referee.model import GameModel
from kiosk.referee.phase import Phase
from kiosk.referee.state import GameState
from kiosk.referee.turns import exchange_counts
from kiosk.rules.tiles import BLANK

NO_GAME = GameState(
    phase=Phase.NOT_STARTED, preset="", players=(), on_move=None, turn=0, scores=(), board=("",) * 225, bag=0,
    racks=(), kept_apart=0, unseen=(), clock=None, scoreless_run=0, last_play=None, window_open=False,
    window_until_ms=None, hold_by=None, hold_since_ms=None, courtesy_given=False, challenge_by=None,
    challenge_words=(), ruling="", skip_next=(), game_word_available=False, neutralised="", overtime_notified=(),
    warnings_given=(), pending_blanks=(), result=None, history=(), downtime_ms=0, last_t=0, started_t=0, events=0,
)
"""The snapshot before any game has started."""


def snapshot(g: GameModel | None, events: int) -> GameState:
    """The frozen state of game ``g`` after ``events`` accepted events (:data:`NO_GAME` when ``g`` is None)."""
    if g is None:
        return NO_GAME
    unseen = tuple(sorted(g.unseen().items(), key=lambda kv: (kv[0] == BLANK, kv[0])))
    return GameState(
        phase=g.phase, preset=g.preset.name, players=g.players, on_move=g.on_move, turn=g.turn,
        scores=tuple(g.scores), board=tuple(g.board.cells), bag=g.bag, racks=tuple(g.racks),
        kept_apart=g.last_play.kept_apart if g.last_play and g.window.open else 0, unseen=unseen,
        clock=g.clock.snapshot(), scoreless_run=g.scoreless, last_play=g.last_play, window_open=g.window.open,
        window_until_ms=g.window.until, hold_by=g.hold.by, hold_since_ms=g.hold.since,
        courtesy_given=g.hold.courtesy_given, challenge_by=g.challenge.by, challenge_words=g.challenge.words,
        ruling=g.challenge.ruling, skip_next=tuple(g.skip_next), game_word_available=g.game_word_available,
        neutralised=g.neutralised, overtime_notified=tuple(g.overtime_notified), warnings_given=g.warnings,
        pending_blanks=tuple(sq for sq, t in g.pending.tiles if t == BLANK), result=g.result,
        history=tuple(g.history), downtime_ms=g.downtime, last_t=g.last_t, started_t=g.started_t,
        events=events, notes=tuple(g.notes), to_draw=to_draw(g), pressed_at=g.pending.pressed_at,
        exchange_counts=exchange_counts(g),
        outplay_accepted_by=g.outplay_accepted if g.phase == Phase.OUTPLAY else (),
        outplay_waiting_for=g.outplay_waiting(),
    )


def to_draw(g: GameModel) -> int:
    """Replacement tiles the player of the last play has still to draw (0 once drawn or while none are due)."""
    lp = g.last_play
    if lp is None or not g.window.open or lp.drawn or lp.kept_apart or lp.withdrawn:
        return 0
    return min(lp.to_draw, g.bag)
