"""What a clock press (a button, or the screen's Done) that does nothing says to the players, in their words."""

from __future__ import annotations

from kiosk.referee.state import CHALLENGED, DESIGNATING, NOT_STARTED, OUTPLAY, OVER, RACK_ENTRY, GameState

PRESS_REFUSALS = {NOT_STARTED: "There is no game in progress.",
                  DESIGNATING: "Say which letter each blank stands for first.",
                  CHALLENGED: "The judge is ruling on the challenge: wait for the ruling.",
                  RACK_ENTRY: "The game is ending: use the screen.", OUTPLAY: "The game is ending: use the screen.",
                  OVER: "The game is ending: use the screen."}
"""What a clock press on the right side says in a phase where presses do nothing."""


def press_refusal(st: GameState, player: int) -> str:
    """Why ``player``'s press (0-based seat) does nothing now: the phase's sentence, a seat the game does not
    have (3-4 players: "There is no player 3 in this game."), that the mover's move is being read, or whose turn it
    is."""
    if st.phase in PRESS_REFUSALS:
        return PRESS_REFUSALS[st.phase]
    if not 0 <= player < len(st.players):
        return f"There is no player {player + 1} in this game."
    who = st.players[st.on_move] if st.on_move is not None else "nobody"
    if st.pressed_at is not None:   # the mover pressed: his move is being read, the presser's clock runs
        return f"The board is being read for {who}'s move: {st.players[player]} presses the clock after his own move."
    return f"It is {who}'s turn: {st.players[player]}'s press does nothing."
