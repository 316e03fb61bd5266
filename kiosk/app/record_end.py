"""The end of a re-refereed recording: how the game is closed where the record stops, and the demo's last line.

The ScrabScrap records stop at the last press: they hold no end racks and no end-of-game press. At a table
with a judge the game is then closed in one of two ways:

* the last move was an out-play and nobody challenged it: the out-play stands, the opponent's rack is what
  is left unseen, and the preset's rule for unplayed tiles applies (:func:`kiosk.referee.ending.end_outplay`;
  the recordings' event counted none, :func:`kiosk.app.recording.recording_preset`);
* otherwise the director stops the game with the scores as they stand, no racks and no adjustment (seed 002
  III.G, ``GameCalled`` with ``as_it_stands``).

Either way the journal holds the game over and the last line reads ``final: NAME1 S1, NAME2 S2``. Neither is
a judge intervention: the kiosk asked nothing. A game where the kiosk and the record disagree is not closed
(:mod:`kiosk.app.recording`): its score is not settled, and the journal keeps it open for the director.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kiosk.app.kiosk import Kiosk
from kiosk.control.commands import CallGame
from kiosk.referee.state import OUTPLAY, GameState

RECORD_ENDS = "the record ends before the end racks: scores as they stand"
"""The reason given for the director's stop (it goes into the journal and the GCG notes)."""


def close_at_record_end(kiosk: Kiosk, names: Sequence[str], pin: str, out: Callable[[str], None]) -> None:
    """Close the game where the record stops (see the module doc), and say how in one line to ``out``.

    Nothing is done for a game already over. A refusal is printed; the game then stays unfinished and the last
    line says so (:func:`last_line`)."""
    st = kiosk.state
    if st.result is not None:
        return
    if st.phase == OUTPLAY and st.last_play is not None:
        mover = st.last_play.player
        res = kiosk.act("accept_outplay", player=1 - mover)
        done = f"ends with {names[mover]}'s out-play, not challenged: it stands and the game is over"
    else:
        kiosk.act("judge_unlock", pin=pin)
        res = kiosk.handle(CallGame(RECORD_ENDS, as_it_stands=True))
        done = "ends here: the director stops the game with the scores as they stand"
    out(f"  the record {done}" if res else f"  the record ends here; the game could not be closed: {res.reason}")
    r = kiosk.state.result
    if r is not None and any(r.rack_adjust):
        racks = ", ".join(f"{n} {r.racks[i] or 'out'} {r.rack_adjust[i]:+d}" for i, n in enumerate(names))
        out(f"  end racks (the record holds none; the preset's rule): {racks}")


def last_line(names: Sequence[str], st: GameState, kept: bool = True) -> str:
    """``final: NAME1 S1, NAME2 S2`` (after every end adjustment) for a game the journal holds over, else
    ``not finished: ...`` with the scores as they stand (``kept``: the journal stays and keeps it open; False: a
    temporary journal, removed)."""
    if st.result is not None:
        return "final: " + ", ".join(f"{n} {s}" for n, s in zip(names, st.result.final, strict=True))
    scores = ", ".join(f"{n} {s}" for n, s in zip(names, st.scores, strict=True))
    return f"not finished: {scores} (the game was not closed" + ("; the journal keeps it unfinished)" if kept else ")")


def totals_before_end(st: GameState) -> tuple[int, ...]:
    """The scores to compare with the record's last totals: before the end racks, which the record lacks."""
    return tuple(st.result.before_racks) if st.result is not None else tuple(st.scores)
