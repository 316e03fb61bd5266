"""What the kiosk must show or ask now (:func:`pending_prompts`), from the game model."""

from __future__ import annotations

from kiosk.referee.kinds import EndReason, PromptKind
from kiosk.referee.model import GameModel
from kiosk.referee.phase import Phase
from kiosk.referee.state import Prompt
from kiosk.rules.board import square_name
from kiosk.rules.counts import counted
from kiosk.rules.tiles import BLANK


def pending_prompts(g: GameModel | None) -> list[Prompt]:
    """What the kiosk must show or ask now in game ``g`` (see :class:`PromptKind`), most urgent first."""
    if g is None:
        return []
    out: list[Prompt] = []
    if g.phase == Phase.DESIGNATING:
        blanks = tuple(sq for sq, t in g.pending.tiles if t == BLANK)
        out.append(Prompt(PromptKind.DESIGNATE_BLANK, g.pending.player,
                          f"{g.name(g.pending.player)}: say which letter each blank stands for "
                          f"({', '.join(square_name(s) for s in blanks)}).", squares=blanks))
    elif g.phase == Phase.CHALLENGED:
        lp = g.last_play
        assert lp is not None
        who = "The lexicon checks" if g.challenge.by is None else f"{g.name(g.challenge.by)} challenges"
        out.append(Prompt(PromptKind.CHALLENGE_RULING, -1, f"{who} {', '.join(g.challenge.words)}. Judge: confirm "
                          "the ruling.", squares=tuple(sq for sq, _ in lp.tiles),
                          data=(("words", g.challenge.words), ("off_centre_first", lp.off_centre_first))))
    elif g.phase == Phase.REMOVING:
        lp = g.last_play
        assert lp is not None
        out.append(Prompt(PromptKind.REMOVE_TILES, lp.player, f"{g.name(lp.player)}: take your tiles back "
                          f"({', '.join(square_name(s) for s in g.removing)}).", squares=g.removing))
    elif g.phase == Phase.OUTPLAY:
        lp = g.last_play
        assert lp is not None
        if g.hold.by is not None:
            out.append(Prompt(PromptKind.HOLD, g.hold.by, f"{g.name(g.hold.by)} holds the out-play: release it or "
                              "challenge it."))
        else:
            waiting = g.outplay_waiting()
            text = f"{g.name(lp.player)} went out: accept or challenge."
            if g.n > 2:
                text += f" Still to accept: {', '.join(g.name(p) for p in waiting)}."
            out.append(Prompt(PromptKind.OUTPLAY_WINDOW, waiting[0] if waiting else g.nxt(lp.player), text,
                              until_ms=g.window.until, data=(("accepted", g.outplay_accepted), ("waiting", waiting))))
    elif g.phase == Phase.RACK_ENTRY:
        out.append(Prompt(PromptKind.RACK_ENTRY, -1, "Enter the tiles left on each rack.",
                          data=(("counts", tuple(g.racks)),)))
    elif g.phase == Phase.OVER and g.result is not None:
        out.append(Prompt(PromptKind.GAME_OVER, -1, result_text(g), data=(("wins", g.result.wins),)))
    if g.phase == Phase.PLAYING:
        if g.pending.pressed_at is not None and g.on_move is not None:
            out.append(Prompt(PromptKind.READ_BOARD, g.on_move,
                              f"{g.name(g.on_move)} pressed the clock: the board is being read."))
        if g.neutralised:
            out.append(Prompt(PromptKind.CLOCK_NEUTRALISED, -1, f"The clocks are stopped ({g.neutralised})."))
        if g.hold.by is not None:
            out.append(Prompt(PromptKind.HOLD, g.hold.by, f"{g.name(g.hold.by)} holds the play: release it or "
                              "challenge it."))
            if g.hold.courtesy_given and g.last_play is not None:
                lp = g.last_play
                out.append(Prompt(PromptKind.COURTESY_DRAW, lp.player, f"{g.name(lp.player)} may draw "
                                  f"{counted(lp.to_draw, 'replacement tile')} and keep them apart."))
        elif g.window.open and g.last_play is not None:
            out.append(Prompt(PromptKind.CHALLENGE_WINDOW, g.on_move if g.on_move is not None else -1,
                              "Hold or challenge the last play now, or play on.", until_ms=g.window.until))
    return out


END_SENTENCES: dict[EndReason, str] = {   # why the game ended, as players read it on the screen
    EndReason.OUT_PLAY: "a player went out",
    EndReason.SIX_SCORELESS: "the scoreless turns in a row that end a game were played",
    EndReason.CALLED: "the game was called",
    EndReason.TIME_LIMIT: "the session time ran out",
    EndReason.PHONY_LOSES: "a phony challenged off loses the game",
    EndReason.CHALLENGE_LOSES: "a failed challenge loses the game",
    EndReason.OVERTIME_CAP: "a clock ran past the overtime limit",
    EndReason.STOPPED: "the director stopped the game with the scores as they stand",
    EndReason.LATE_FORFEIT: "a side forfeited by arriving too late",
    EndReason.RESIGNED: "a player resigned",
}


def end_sentence(reason: EndReason | str) -> str:
    """Why the game ended, as a phrase for players ("a player went out"); an unknown reason is given as is."""
    try:
        return END_SENTENCES[EndReason(reason)]
    except ValueError:
        return str(reason)


def result_text(g: GameModel) -> str:
    """The game's result in sentences for the screen ("Game over: a player went out. Final scores: Ann 412,
    Bob 377. Ann wins.")."""
    r = g.result
    assert r is not None
    parts = [f"{g.name(i)} {r.final[i]}" for i in range(g.n)]
    winners = [g.name(i) for i in range(g.n) if r.wins[i] == 1.0]
    tail = f"{winners[0]} wins." if winners else "It is a tie."
    return f"Game over: {end_sentence(r.reason)}. Final scores: {', '.join(parts)}. {tail}"
