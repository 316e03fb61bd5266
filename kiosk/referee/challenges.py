"""Holds, challenges and their rulings, the challenge and out-play windows, the courtesy draw."""

from __future__ import annotations

from dataclasses import replace
from typing import NoReturn

from kiosk.referee.ending import end_outplay, end_without_out, finish, scoreless_end, unknown_racks
from kiosk.referee.events import (
    Challenge,
    ChallengeRuled,
    ChallengeWithdrawn,
    CourtesyDraw,
    CourtesyNotice,
    Event,
    Hold,
    HoldReleased,
    OutplayAccepted,
    TilesRemoved,
    WindowClosed,
)
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.model import GameModel, HoldState, Refused, Window, handles, refusal_for
from kiosk.referee.phase import Phase
from kiosk.referee.state import PlayRecord
from kiosk.referee.turns import next_turn


def _window_open_for(g: GameModel, ev: Event, player: int) -> None:
    lp = g.last_play
    if lp is None or not g.window.open or lp.withdrawn:
        raise Refused(f"{ev.type}: there is no play to hold or challenge now", Code.WINDOW_CLOSED)
    if player == lp.player:
        raise Refused(f"{ev.type}: {g.name(player)} cannot hold or challenge his own play", Code.WRONG_PLAYER)
    if g.hold.by is None and g.window.until is not None and ev.t > g.window.until:
        late = (ev.t - g.window.until) / 1000
        raise Refused(f"{ev.type}: the window closed {late:.1f} s ago; the play stands", Code.WINDOW_CLOSED)


@handles(Hold)
def _on_hold(g: GameModel, ev: Hold) -> None:
    if not g.preset.challenge.holds:
        raise Refused(f"holds are not part of '{g.preset.name}' rules: challenge or play", Code.NO_HOLDS)
    _window_open_for(g, ev, ev.player)
    if g.hold.by is not None:
        raise Refused(f"hold: {g.name(g.hold.by)} already holds", Code.ALREADY_HELD)
    if g.phase == Phase.PLAYING and ev.player != g.on_move:
        raise Refused(f"hold: only {g.name(g.on_move)} (on move) may hold", Code.WRONG_PLAYER)  # type: ignore[arg-type]
    g.hold.by = ev.player
    g.hold.since = ev.t
    g.hold.courtesy_given = False
    if g.phase == Phase.OUTPLAY:
        g.clock.start(ev.player, ev.t)  # seed 002 III.B: the holder's clock runs until release or challenge


@handles(HoldReleased)
def _on_hold_released(g: GameModel, ev: HoldReleased) -> None:
    if g.hold.by != ev.player:
        raise Refused(f"hold_released: {g.name(ev.player)} has no hold to release", Code.NO_HOLD)
    if g.phase == Phase.OUTPLAY:
        if ev.player not in g.outplay_accepted:  # releasing the hold accepts the out-play
            g.outplay_accepted = (*g.outplay_accepted, ev.player)
        if g.outplay_waiting():  # 3-4 players (003/004): the others may still accept or challenge
            g.hold.by = None
            g.clock.stop(ev.t)
            return
        end_outplay(g, ev.t)
        return
    g.close_window()


@refusal_for(CourtesyNotice)
def _why_not_courtesy_notice(g: GameModel, ev: CourtesyNotice) -> NoReturn:
    raise Refused("courtesy_notice: no hold in progress", Code.NO_HOLD)


@handles(CourtesyNotice)
def _on_courtesy_notice(g: GameModel, ev: CourtesyNotice) -> None:
    ms = g.preset.challenge.courtesy_ms
    if g.hold.by is None or g.hold.since is None or ms is None:
        _why_not_courtesy_notice(g, ev)
    if g.hold.courtesy_given:
        raise Refused("courtesy_notice: already given", Code.ALREADY_GIVEN)
    if ev.t < g.hold.since + ms:
        raise Refused(f"courtesy_notice: the hold has lasted {(ev.t - g.hold.since) / 1000:.1f} s, "
                      f"under {ms / 1000:.0f} s", Code.TOO_EARLY)
    g.hold.courtesy_given = True


@handles(CourtesyDraw)
def _on_courtesy_draw(g: GameModel, ev: CourtesyDraw) -> None:
    lp = g.last_play
    if not g.hold.courtesy_given or lp is None or g.hold.by is None:
        raise Refused("courtesy_draw: replacement tiles may be drawn only after the courtesy minute of a hold",
                      Code.TOO_EARLY)
    if lp.player != ev.player or lp.kept_apart or lp.drawn:
        raise Refused(f"courtesy_draw: {g.name(ev.player)} has no replacement tiles to draw", Code.NOTHING_TO_DRAW)
    n = min(lp.to_draw, g.bag)
    g.bag -= n
    g.last_play = replace(lp, kept_apart=n)


@handles(Challenge)
def _on_challenge(g: GameModel, ev: Challenge) -> None:
    if g.preset.challenge.rule == "void":
        raise Refused("no challenges under VOID: the lexicon checks every play", Code.NO_CHALLENGES)
    if g.neutralised:
        raise Refused(f"challenge: the clock is neutralised ({g.neutralised}); resume it first", Code.NEUTRALISED)
    _window_open_for(g, ev, ev.player)
    if g.hold.by is not None and g.hold.by != ev.player:
        raise Refused(f"challenge: {g.name(g.hold.by)} holds the play", Code.WRONG_PLAYER)
    lp = g.last_play
    assert lp is not None
    formed = tuple(w.upper() for w in lp.words)
    # a word named twice is challenged once (a FIVE_POINT bonus per word must not pay it twice)
    words = tuple(dict.fromkeys(w.upper() for w in ev.words)) or formed
    missing = [w for w in words if w not in formed]
    if missing:
        raise Refused(f"challenge: {', '.join(missing)} was not formed by the last play ({', '.join(formed)})",
                      Code.NOT_FORMED)
    g.challenge.by = ev.player
    g.challenge.words = words
    g.challenge.back_to = g.phase
    g.phase = Phase.CHALLENGED
    g.clock.stop(ev.t)


@handles(ChallengeWithdrawn)
def _on_challenge_withdrawn(g: GameModel, ev: ChallengeWithdrawn) -> None:
    if g.challenge.by != ev.player:
        raise Refused(f"challenge_withdrawn: {g.name(ev.player)} has no challenge open", Code.WRONG_PLAYER)
    g.challenge.by = None
    g.challenge.ruling = "challenge withdrawn"
    if g.challenge.back_to == Phase.OUTPLAY:
        end_outplay(g, ev.t)
        return
    g.phase = Phase.PLAYING
    g.close_window()
    assert g.on_move is not None
    g.clock.start(g.on_move, ev.t, new_turn=False)


@handles(ChallengeRuled)
def _on_challenge_ruled(g: GameModel, ev: ChallengeRuled) -> None:
    lp = g.last_play
    assert lp is not None
    ch = g.preset.challenge
    void = g.challenge.by is None
    if ev.acceptable and lp.off_centre_first and ch.off_centre_challengeable and not void:
        raise Refused("challenge_ruled: a first play missing the centre comes off when challenged, whatever its "
                      "words (seed 002 I.E)", Code.OFF_CENTRE)
    named = tuple(dict.fromkeys(w.upper() for w in ev.invalid))
    if ev.acceptable and named:
        raise Refused(f"challenge_ruled: an acceptable play has no invalid words (got {', '.join(named)})",
                      Code.BAD_EVENT)
    stray = [w for w in named if w not in g.challenge.words]
    if stray:
        raise Refused(f"challenge_ruled: {', '.join(stray)} was not challenged (challenged: "
                      f"{', '.join(g.challenge.words)})", Code.NOT_FORMED)
    if ev.acceptable:
        _play_stands(g, lp, ev.t)
    else:
        _play_comes_off(g, lp, ev)


def _play_stands(g: GameModel, lp: PlayRecord, t: int) -> None:
    """The ruling found every challenged word good: bonus or penalty for a failed challenge, then play on."""
    ch = g.preset.challenge
    challenger = g.challenge.by
    p = lp.player
    g.challenge.ruling = "acceptable"
    g.challenge.by = None
    if challenger is not None:
        bonus = ch.wrong_bonus * (len(g.challenge.words) if ch.wrong_bonus_per_word else 1)
        if bonus:
            g.record("challenge_bonus", p, bonus)
            g.last_play = replace(lp, bonus=bonus)
        if ch.wrong_penalty:
            g.record("challenge_penalty", challenger, -ch.wrong_penalty)
        if ch.wrong_loses_game:
            finish(g, t, EndReason.CHALLENGE_LOSES, unknown_racks(g), None, forfeit=challenger)
            return
    if lp.outplay:
        end_outplay(g, t)
        return
    g.phase = Phase.PLAYING
    g.close_window()
    if challenger is None:  # VOID: the lexicon check passed, the turn passes on
        next_turn(g, p, t)
        return
    if ch.wrong_loses_turn:
        if challenger == g.on_move:
            g.record("lost_turn", challenger, 0, note="failed challenge")
            g.scoreless += 1
            next_turn(g, challenger, t)
        else:
            g.skip_next[challenger] = True
        return
    assert g.on_move is not None
    g.clock.start(g.on_move, t, new_turn=False)


def _play_comes_off(g: GameModel, lp: PlayRecord, ev: ChallengeRuled) -> None:
    """The ruling found a challenged word bad: the play's tiles go back to its player's rack (withdrawn)."""
    ch = g.preset.challenge
    void = g.challenge.by is None
    p = lp.player
    names_words = ch.ruling_names_words or void
    named = tuple(dict.fromkeys(w.upper() for w in ev.invalid))
    g.challenge.ruling = "unacceptable" + (f": {', '.join(named)}" if names_words and named else "")
    squares = tuple(sq for sq, _ in lp.tiles)
    g.board.remove(list(squares))
    g.racks[p] += len(lp.tiles)
    if lp.kept_apart:  # courtesy tiles go back to the bag (seed 002 II.L.3)
        g.bag += lp.kept_apart
    if lp.drawn:
        g.bag += lp.drawn
        g.racks[p] -= lp.drawn
    if lp.game_word_bonus:
        g.game_word_available = True
    g.last_play = replace(lp, withdrawn=True, kept_apart=0, drawn=0)
    g.window = Window()
    g.hold = HoldState()
    g.challenge.by = None
    if void:  # refused before it stood: it never enters the history
        g.scores[p] -= lp.score
        g.history.pop()
        g.scoreless = g.scoreless_saved
        g.on_move = p
    else:
        g.record("withdrawn", p, -lp.score, play=g.last_play)
        g.scoreless = g.scoreless_saved + 1
        if ch.phony_penalty:
            g.record("phony_penalty", p, -ch.phony_penalty)
        if ch.phony_loses_game:
            finish(g, ev.t, EndReason.PHONY_LOSES, unknown_racks(g), None, forfeit=p)
            return
        g.on_move = g.nxt(p)
        if lp.outplay:
            g.turn += 1
    g.removing = squares
    g.phase = Phase.REMOVING
    g.clock.stop(ev.t)


@handles(TilesRemoved)
def _on_tiles_removed(g: GameModel, ev: TilesRemoved) -> None:
    g.removing = ()
    g.phase = Phase.PLAYING
    assert g.on_move is not None
    g.clock.start(g.on_move, ev.t, new_turn=g.last_play is None or g.last_play.player != g.on_move)
    if scoreless_end(g):
        end_without_out(g, ev.t, EndReason.SIX_SCORELESS)


@handles(OutplayAccepted)
def _on_outplay_accepted(g: GameModel, ev: OutplayAccepted) -> None:
    lp = g.last_play
    assert lp is not None
    if ev.player == lp.player:
        raise Refused("outplay_accepted: the player who went out cannot accept his own play", Code.WRONG_PLAYER)
    if g.hold.by is not None and g.hold.by != ev.player:
        raise Refused(f"outplay_accepted: {g.name(g.hold.by)} holds the play", Code.WRONG_PLAYER)
    if ev.player in g.outplay_accepted:
        raise Refused(f"outplay_accepted: {g.name(ev.player)} has already accepted the out-play",
                      Code.ALREADY_ACCEPTED)
    g.outplay_accepted = (*g.outplay_accepted, ev.player)
    if g.outplay_waiting():  # seeds 003/004: 2-4 players; every opponent may still challenge the out-play
        return
    end_outplay(g, ev.t)



@refusal_for(WindowClosed)
def _why_not_window_closed(g: GameModel, ev: WindowClosed) -> NoReturn:
    raise Refused("window_closed: no timed window is open", Code.NO_WINDOW)


@handles(WindowClosed)
def _on_window_closed(g: GameModel, ev: WindowClosed) -> None:
    if not g.window.open or g.hold.by is not None or g.window.until is None:
        _why_not_window_closed(g, ev)
    if ev.t < g.window.until:
        raise Refused(f"window_closed: the window is open until {g.window.until} ms", Code.TOO_EARLY)
    if g.neutralised:  # seed 002 II.P: it stays open while the player is away
        raise Refused(f"window_closed: the clock is neutralised ({g.neutralised})", Code.NEUTRALISED)
    if g.phase == Phase.OUTPLAY:
        end_outplay(g, ev.t)
    else:
        g.close_window()
