"""The other version of a game the desk has: kept as it streams in, shown on the page, taken by the director.

A kiosk run (``boot``) that sends again the start of a game the desk took from another run streams the game again
(``kiosk stream-game`` run again on a corrected record with the same ``#id``, a kiosk re-sending another version).
While its events equal the desk's they are duplicates; from the first that differs (event k) on it is another
version of the game: :class:`Versions` keeps it (a :class:`~kiosk.desk.games.Version`: its own fold of events 1..n,
the first k-1 the desk's) as it streams in and stores it (:mod:`kiosk.desk.version_store`), and the desk page says
that game #id at table T has another version that differs from event k on, with both finals
(:func:`summary`). Only the latest such run of a game is kept waiting for the director; an earlier one is
superseded (stored, no longer takeable). The director may take a finished version that its referee took whole
(:meth:`Versions.check`); :meth:`Versions.swap` then makes it the game, in the store and in memory, keeping the
replaced version in the store.

Bounds: one waiting version per game in memory (games in memory: :class:`~kiosk.desk.games.Table`), at most
:data:`MAX_VERSION_EVENTS` events each, at most :data:`MAX_VERSIONS` kept per game (the versions the director
replaced not counted: each is one of his decisions). Beyond them a run's other moves are counted as before
(:attr:`Bad.STREAMED_AGAIN <kiosk.desk.message.Bad.STREAMED_AGAIN>`), never kept.

A single event that differs with no start sent again before it (a forgery under the kiosk's login, or the kiosk's
own after one) is no version: :class:`~kiosk.desk.tables.Tables` counts it as a conflict.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kiosk.desk.games import Game, Table, Version
from kiosk.desk.store import Recorded, Result, ResultsStore
from kiosk.desk.version_store import NewVersion, VersionEvent
from kiosk.referee.records import EVENT_WORDS
from kiosk.rules.counts import counted

MAX_VERSION_EVENTS = 1000   #: events one other version may hold (a game has 30-110)
MAX_VERSIONS = 8            #: other versions of one game the desk keeps (beyond: counted, not kept)


class VersionError(Exception):
    """A request to take another version that cannot be done; ``status`` (404: no such game, 409: no version to
    take as asked) and the sentence saying why (``str(exc)``)."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status


@dataclass
class Added:
    """What :meth:`Versions.event` did with one event of a version: ``kind`` is ``applied`` (``rows``: the events
    it took, (seq, event, ts), waiting ones included), ``duplicate``, ``waiting``, ``conflict`` (it differs from the
    version's own event of that number), ``refused`` (its referee refused it: the version is closed, ``detail``
    says why) or ``closed`` (the version takes no more events)."""

    kind: str
    rows: list[tuple[int, dict[str, Any], int]] = field(default_factory=list)
    detail: str | None = None


def run_name(boot: str) -> str:
    """A kiosk run's id as the page shows it: printable characters only, at most 40 of them, in quotes."""
    text = "".join(c for c in boot if c.isprintable())
    return repr(text if len(text) <= 40 else text[:39] + "…")


def clock_text(ms: int) -> str:
    """Desk wall ms as the desk's local time of day, ``14:02:11``."""
    return time.strftime("%H:%M:%S", time.localtime(ms / 1000))


def _standing(g: Game) -> dict[str, Any]:
    """A fold's players, scores (the final when over) and events."""
    s = g.ref.state
    scores = list(s.result.final) if g.over and s.result is not None else list(s.scores)
    return {"players": list(s.players), "scores": scores, "events": g.applied, "finished": g.over}


def _said(st: dict[str, Any]) -> str:
    scores = " - ".join(f"{n} {s}" for n, s in zip(st["players"], st["scores"]))
    if st["finished"]:
        return f"ends {scores}"
    return f"is not finished: {scores} after {counted(st['events'], 'event')}"


def summary(game: Game, v: Version) -> dict[str, Any]:
    """The page's view of ``game``'s other version ``v`` (JSON-ready): board, game_id, ``version`` (its token, what
    the director's request names), ``from_event`` and its type, the sender (``run``: the kiosk run, ``board``: the
    table whose channel it came on), when it was received and last grew (desk wall ms), ``desk`` and ``other``
    (players, scores - the finals when finished -, events, finished), ``takeable``, ``problem`` and ``sentence``."""
    desk, other = _standing(game), _standing(v.game)
    kind = v.game.events[v.from_seq - 1].get("type") if v.game.applied >= v.from_seq else None
    what = EVENT_WORDS.get(str(kind), str(kind).replace("_", " "))
    text = (f"Game {game.game_id} at table {game.board} has another version, which differs from event {v.from_seq} "
            f"({what}) on: kiosk run {run_name(v.boot)} sent it on table {game.board}'s channel at "
            f"{clock_text(v.received)}. The desk's version {_said(desk)}; the other {_said(other)}.")
    if v.problem:
        text += f" The other version cannot be taken: {v.problem}."
    elif not other["finished"]:
        text += " The director can take it once it has ended."
    else:
        text += f" The director can take it on table {game.board}'s page."
    return {"board": game.board, "game_id": game.game_id, "version": v.token, "from_event": v.from_seq,
            "from_type": kind, "sender": {"board": game.board, "run": v.boot}, "received_at": v.received,
            "updated_at": v.updated, "desk": desk, "other": other, "takeable": not v.problem and other["finished"],
            "problem": v.problem, "sentence": text}


class Versions:
    """The other versions of the games in memory (module doc): what is kept, what waits to be stored.

    Args:
        store: the desk's store (the versions' rows, the swap).
        now: the desk's wall clock (ms since the epoch).
    """

    def __init__(self, store: ResultsStore, now: Callable[[], int]) -> None:
        self.store = store
        self.now = now
        self.waiting: dict[tuple[int, str], Game] = {}   # (board, game_id) -> the game whose version waits
        self._next = store.last_version_id() + 1
        self._new: list[NewVersion] = []
        self._superseded: list[int] = []
        self._rows: list[VersionEvent] = []

    def _id(self) -> int:
        self._next += 1
        return self._next - 1

    # ------------------------------------------------------------------------------------------ intake
    def differs(self, game: Game, boot: str, seq: int, ev: dict[str, Any], ts: int) -> Added | str:
        """Kiosk run ``boot``, streaming ``game`` again, differs from it at event ``seq`` (``ev``, kiosk time
        ``ts``): keep its version from now on, as the game's waiting one (an earlier one is superseded). When it is
        not kept, why not (the end of a sentence; the caller counts its messages as before): the game has
        :data:`MAX_VERSIONS` already, or the run streams again the version the director replaced (its event
        ``seq`` is that version's: a kiosk restarted after he took another version re-sends its own)."""
        if game.versions_kept >= MAX_VERSIONS:
            return f"the desk keeps {MAX_VERSIONS} other versions of a game and does not keep this one"
        if game.replaced_at is not None and ev in self.store.replaced_events(game.board, game.game_id, seq):
            return "it is the version the director replaced, which the desk does not offer again"
        now = self.now()
        fold = Game(game.board, game.game_id)
        for e, t in zip(game.events[:seq - 1], game.stamps[:seq - 1]):
            fold.apply(e, t)   # the desk's referee took these: a fresh one takes them again
        v = Version(boot, seq, fold, self._id(), now, now)
        if game.other is not None:
            self._superseded.append(game.other.row)
        game.other, game.versions_kept = v, game.versions_kept + 1
        self.waiting[(game.board, game.game_id)] = game
        self._new.append((v.row, game.board, game.game_id, boot, seq, now))
        self._rows += [(v.row, i, e, t) for i, (e, t) in enumerate(zip(fold.events, fold.stamps), 1)]
        return self.event(game, seq, ev, ts)

    def event(self, game: Game, seq: int, ev: dict[str, Any], ts: int) -> Added:
        """Event ``seq`` of ``game``'s waiting version (``ev``, kiosk time ``ts``): taken in order (an early one
        waits for the gap, at most :data:`MAX_VERSION_EVENTS`), a repeat checked. See :class:`Added`."""
        v = game.other
        assert v is not None
        g = v.game
        if v.problem:
            return Added("closed")
        if seq <= g.applied:
            if g.events[seq - 1] == ev:
                return Added("duplicate")
            return Added("conflict", detail=f"board {game.board} game {game.game_id}: event {seq} "
                                            f"({ev.get('type')}) of its other version (kiosk run {run_name(v.boot)}) "
                                            "differs from the one that version sent before")
        if seq > MAX_VERSION_EVENTS:
            v.problem = f"it has more than {MAX_VERSION_EVENTS} events"
            return Added("refused", detail=f"board {game.board} game {game.game_id}: its other version {v.problem}")
        v.updated = self.now()
        if seq > g.applied + 1:
            g.waiting.setdefault(seq, (ev, ts))
            return Added("waiting")
        rows: list[tuple[int, dict[str, Any], int]] = []
        problem = g.apply(ev, ts)
        while problem is None:
            rows.append((g.applied, g.events[-1], g.stamps[-1]))
            if g.applied + 1 not in g.waiting:
                break
            ev, ts = g.waiting.pop(g.applied + 1)
            problem = g.apply(ev, ts)
        self._rows += [(v.row, s, e, t) for s, e, t in rows]
        if problem is None:
            return Added("applied", rows)
        v.problem = f"its event {g.applied + 1} ({ev.get('type')}) was refused by the referee: {problem}"
        g.waiting.clear()
        return Added("refused", rows, f"board {game.board} game {game.game_id}: the other version's event "
                                      f"{g.applied + 1} ({ev.get('type')}): {problem}")

    def restore(self, game: Game, row: int, boot: str, from_seq: int, received: int) -> None:
        """Fold the stored waiting version ``row`` of ``game`` again (after a desk restart, or a game loaded
        again from the store)."""
        fold = Game(game.board, game.game_id)
        v = Version(boot, from_seq, fold, row, received, received)
        for seq, ev, ts in self.store.version_events(row):
            if seq != fold.applied + 1 or fold.apply(ev, ts) is not None:
                v.problem = f"its event {seq} cannot be folded again"
                break
        game.other = v
        game.restreams[boot] = from_seq
        self.waiting[(game.board, game.game_id)] = game

    def forget(self, game: Game) -> None:
        """``game`` left the desk's memory: its waiting version is in the store only (taken up again with it)."""
        if self.waiting.get((game.board, game.game_id)) is game:
            del self.waiting[(game.board, game.game_id)]

    def flush(self) -> None:
        """Store what changed since the last flush (one transaction); kept for the next one when it fails."""
        new, gone, rows = self._new, self._superseded, self._rows
        self._new, self._superseded, self._rows = [], [], []
        try:
            self.store.add_versions(new, gone, rows)
        except Exception:
            self._new, self._superseded, self._rows = new + self._new, gone + self._superseded, rows + self._rows
            raise

    def summaries(self) -> list[dict[str, Any]]:
        """:func:`summary` of every waiting version, by board and game."""
        return [summary(g, g.other) for _, g in sorted(self.waiting.items()) if g.other is not None]

    # ------------------------------------------------------------------------------------------ taking
    @staticmethod
    def check(table: Table | None, board: int, game_id: str, token: str) -> tuple[Game, Version]:
        """The game and its waiting version the director asks to take (``token``: as the page showed it).
        Raises :class:`VersionError` saying why it cannot be taken: no such game, no version waiting, another
        version or more events since the page showed it, one its referee refused, one not finished."""
        game = table.find(game_id) if table is not None else None
        if game is None:
            raise VersionError(404, f"There is no game {game_id!r} at table {board} at the desk.")
        v = game.other
        where = f"game {game_id} at table {board}"
        if v is None:
            raise VersionError(409, f"{where[0].upper()}{where[1:]} has no other version waiting to be taken.")
        if token != v.token:
            raise VersionError(409, f"The other version of {where} has changed since the page showed it: it is now "
                                    f"kiosk run {run_name(v.boot)}'s, with {counted(v.game.applied, 'event')}, "
                                    f"differing from event {v.from_seq} on. Look at it again before taking it.")
        if v.problem:
            raise VersionError(409, f"The other version of {where} cannot be taken: {v.problem}.")
        if not v.game.over:
            raise VersionError(409, f"The other version of {where} is not finished ({counted(v.game.applied, 'event')}"
                                    " so far): the desk takes another version once its game has ended.")
        return game, v

    def swap(self, table: Table, game: Game, result: Result) -> Game:
        """Make ``game``'s waiting version the game (``result``: its result, made by the caller): in the store
        (one transaction: :meth:`ResultsStore.replace_game`; the caller stored everything pending first) and then
        in ``table``. Returns the new game. Raises what the store raises (nothing changed then)."""
        v = game.other
        assert v is not None
        now = self.now()
        replaced = (self._id(), game.board, game.game_id, game.boot, v.from_seq, game.first_ts)
        done = self.store.replace_game(v.row, replaced, now, result)
        new = v.game
        new.boot, new.first_ts, new.pairing = v.boot, game.first_ts, game.pairing
        new.final, new.replaced_at, new.corrected = result.scores, now, game.corrected or done is Recorded.CORRECTED
        new.versions_kept = game.versions_kept
        new.restreams = {b: k for b, k in game.restreams.items() if b != v.boot}
        if game.boot:   # the replaced run: its messages are counted from now on, never kept again
            new.restreams[game.boot] = v.from_seq
        if table.game is game:
            table.game = new
        elif table.previous is game:
            table.previous = new
        else:
            table.reopened[game.game_id] = new
        del self.waiting[(game.board, game.game_id)]
        return new


def taken_sentence(game: Game, res: Result) -> str:
    """What the director is told once the game ``game`` is another version (``res``, its result): the game, its
    scores now, when he took it (desk's local time)."""
    scores = " - ".join(f"{n} {s}" for n, s in res.players)
    when = clock_text(game.replaced_at) if game.replaced_at is not None else "now"
    return (f"Game {game.game_id} at table {game.board} is now the version kiosk run {run_name(game.boot)} sent: "
            f"{scores}. The director took it at {when}; the version it replaced is kept in the desk's store.")
