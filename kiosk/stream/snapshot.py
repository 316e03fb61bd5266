"""The stream's view of a game: a JSON-ready state snapshot built from the referee's :class:`GameState`.

:func:`snapshot` is the only place that reads the referee's state for the stream; everything the stream
sends (web page, MQTT, overlay fields) derives from its output. It holds only what a spectator may see:
the referee's state has no racks' contents, no lexicon suggestion and no judge PIN, and :func:`redact`
additionally strips any key that names a secret, wherever it sits in a message.
"""

from __future__ import annotations

from typing import Any

from kiosk.referee.state import GameState, PlayRecord, TurnRecord
from kiosk.rules.board import SIZE, parse_coordinate, square_name

#: keys that never leave the kiosk, at any depth of a message (judge PIN, broker credentials ...)
SECRET_KEYS = frozenset({"pin", "judge_pin", "password", "passwd", "secret", "token", "judge_token"})


def redact(obj: Any) -> Any:
    """A copy of ``obj`` (dicts/lists/scalars) without any key in :data:`SECRET_KEYS` (case-insensitive)."""
    if isinstance(obj, dict):
        return {k: redact(v) for k, v in obj.items() if str(k).lower() not in SECRET_KEYS}
    if isinstance(obj, list | tuple):
        return [redact(v) for v in obj]
    return obj


def board_rows(cells: tuple[str, ...] | list[str]) -> list[str]:
    """225 cells -> 15 strings of 15 chars: ``"."`` empty, upper-case tile, lower-case designated blank."""
    return ["".join(c or "." for c in cells[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]


def gcg_word(play: PlayRecord, cells_after: tuple[str, ...] | list[str]) -> str:
    """The main word of ``play`` in GCG notation: played-through letters in parentheses (``"QU(I)Z"``).

    ``cells_after``: the board with the play on it (225 cells). Falls back to ``play.word`` when the
    coordinate is missing or unreadable.
    """
    try:
        coord = parse_coordinate(play.coordinate)
        squares = coord.squares(len(play.word))
    except ValueError:
        return play.word
    placed = {sq for sq, _ in play.tiles}
    out = []
    for sq, ch in zip(squares, play.word):
        out.append(ch if sq in placed else f"({cells_after[sq] or ch})")
    return "".join(out).replace(")(", "")


def play_text(players: tuple[str, ...], play: PlayRecord | None) -> str:
    """``"Ann: 8D QUIZ 34"`` (``"... (withdrawn)"`` for a phony taken off), or ``""``."""
    if play is None:
        return ""
    name = players[play.player] if 0 <= play.player < len(players) else f"player {play.player + 1}"
    tail = " (withdrawn)" if play.withdrawn else ""
    return f"{name}: {play.coordinate} {play.word} {play.score}{tail}".strip()


def turn_text(players: tuple[str, ...], rec: TurnRecord) -> str:
    """One scoresheet line as text: ``"Bob: pass 0"``, ``"Ann: exchange 3 0"``, ``"Ann: 8D QUIZ 34"``, with the
    line's note in parentheses (``"Bob: H7 IT +2 (tiles entered or corrected by the judge)"``)."""
    name = players[rec.player] if 0 <= rec.player < len(players) else f"player {rec.player + 1}"
    note = f" ({rec.note})" if rec.note else ""
    if rec.kind == "play" and rec.play is not None:
        return f"{name}: {rec.play.coordinate} {rec.play.word} {rec.points:+d}{note}"
    if rec.kind == "exchange":
        return f"{name}: exchange {rec.count} {rec.points:+d}"
    label = rec.kind.replace("_", " ")
    extra = f" {rec.rack}" if rec.rack else ""
    return f"{name}: {label}{extra} {rec.points:+d}{note}"


def _play_dict(play: PlayRecord | None) -> dict[str, Any] | None:
    if play is None:
        return None
    return {
        "player": play.player, "coordinate": play.coordinate, "word": play.word, "words": list(play.words),
        "score": play.score, "tiles": [[sq, t] for sq, t in play.tiles], "squares": [square_name(sq) for sq, _ in play.tiles],
        "withdrawn": play.withdrawn, "bonus": play.bonus, "outplay": play.outplay, "t": play.t,
        "bingo": len(play.tiles) >= 7,
    }


def clock_dict(state: GameState, now_ms: int) -> dict[str, Any] | None:
    """The chess clock at ``now_ms``: ``running`` player or None, ``remaining_ms`` per player (negative in
    overtime; None without a chess clock), ``used_ms`` per player, ``at_ms``. None before a game starts."""
    ck = state.clock
    if ck is None:
        return None
    now = max(now_ms, ck.at_ms)
    n = len(ck.used_ms)
    return {
        "running": ck.running,
        "remaining_ms": None if ck.game_ms is None else [ck.remaining_ms(p, now) for p in range(n)],
        "used_ms": [ck.used_at(p, now) for p in range(n)],
        "game_ms": ck.game_ms,
        "at_ms": now,
    }


def _result_dict(state: GameState) -> dict[str, Any] | None:
    r = state.result
    if r is None:
        return None
    return {"reason": r.reason, "final": list(r.final), "before_racks": list(r.before_racks),
            "rack_adjust": list(r.rack_adjust), "time_penalty": list(r.time_penalty), "racks": list(r.racks),
            "wins": list(r.wins), "went_out": r.went_out, "forfeit": r.forfeit}


def blanks_played(cells: tuple[str, ...] | list[str]) -> list[dict[str, str]]:
    """Designated blanks on the board, in square order: ``[{"square": "8H", "letter": "E"}]``."""
    return [{"square": square_name(sq), "letter": c.upper()} for sq, c in enumerate(cells) if c and c.islower()]


def snapshot(state: GameState, now_ms: int | None = None) -> dict[str, Any]:
    """Full JSON-ready game state for the stream (late joiners, the live page, overlays).

    Args:
        state: the referee's snapshot (``Referee.state``).
        now_ms: kiosk time (ms) at which to read the clock; default: the last event's time.

    Returns a dict with ``phase``, ``preset``, ``players``, ``on_move``, ``turn``, ``scores`` (points),
    ``board`` (15 row strings), ``bag``, ``racks`` (tile counts), ``unseen`` (``tiles`` string, ``count``),
    ``clock`` (see :func:`clock_dict`), ``last_play``, ``last_move`` (text), ``blanks``, ``window_open``,
    ``outplay_accepted_by`` (opponents who accepted the open out-play), ``challenge`` (who and which words,
    while open), ``ruling`` (only once the judge confirmed it), ``neutralised``, ``history`` (scoresheet lines), ``result`` and ``last_t`` / ``events``.
    """
    unseen = "".join(t * n for t, n in state.unseen)
    history = [{"kind": h.kind, "player": h.player, "points": h.points, "total": h.total,
                "text": turn_text(state.players, h)} for h in state.history]
    challenge = None
    if state.phase == "challenged":
        challenge = {"by": state.challenge_by, "words": list(state.challenge_words)}
    return {  # built field by field from the referee's state: nothing secret can slip in (no redact needed)
        "phase": state.phase,
        "preset": state.preset,
        "players": list(state.players),
        "on_move": state.on_move,
        "turn": state.turn,
        "scores": list(state.scores),
        "board": board_rows(state.board),
        "bag": state.bag,
        "racks": list(state.racks),
        "unseen": {"tiles": unseen, "count": len(unseen)},
        "clock": clock_dict(state, state.last_t if now_ms is None else now_ms),
        "last_play": _play_dict(state.last_play),
        "last_move": history[-1]["text"] if history else "",
        "blanks": blanks_played(state.board),
        "window_open": state.window_open,
        "hold_by": state.hold_by,
        "outplay_accepted_by": list(state.outplay_accepted_by),  # 3-4 players: who accepted the out-play
        "challenge": challenge,
        "ruling": state.ruling,
        "neutralised": state.neutralised,
        "history": history,
        "result": _result_dict(state),
        "last_t": state.last_t,
        "events": state.events,
    }
