"""What a clock press (a button, or the screen's Done) that does nothing says to the players, in their words."""

from __future__ import annotations

from kiosk.referee.state import CHALLENGED, DESIGNATING, NOT_STARTED, OUTPLAY, OVER, RACK_ENTRY, GameState

PRESS_REFUSALS = {NOT_STARTED: "no game in progress", DESIGNATING: "say which letter each blank stands for first",
                  CHALLENGED: "the judge is ruling on the challenge", OUTPLAY: "the game is ending: use the screen",
                  RACK_ENTRY: "the game is ending: use the screen", OVER: "the game is ending: use the screen"}
"""What a clock press on the right side says in a phase where presses do nothing."""


def press_refusal(st: GameState, player: int) -> str:
    """Why ``player``'s press (0-based seat) does nothing now: the phase's sentence, a seat the game does not
    have (3-4 players: "there is no player 3 in this game"), or whose turn it is."""
    if st.phase in PRESS_REFUSALS:
        return PRESS_REFUSALS[st.phase]
    if not 0 <= player < len(st.players):
        return f"there is no player {player + 1} in this game"
    who = st.players[st.on_move] if st.on_move is not None else "nobody"
    return f"it is {who}'s turn, not {st.players[player]}'s"
