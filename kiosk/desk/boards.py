"""What the desk holds of every board, and keeps in its store: each board's games in memory (:class:`Boards`),
loaded again from the store after a restart or when an older game is streamed again, their results stored when
they end, the director's taking of another version of a game (:mod:`kiosk.desk.versions`), and the views of them
for the page. :class:`kiosk.desk.tables.Tables` takes the kiosks' messages into them.

Memory is bounded: per board the current and the previous game are kept, and at most :data:`MAX_REOPENED` older
ones loaded again (streamed again, or with another version waiting); older games live in SQLite only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from kiosk.desk import tiles
from kiosk.desk.event import EventConfig
from kiosk.desk.games import Game, Table
from kiosk.desk.store import Recorded, Result, ResultsStore
from kiosk.desk.versions import Versions
from kiosk.referee.state import OVER
from kiosk.stream.records import gcg_text

MAX_REOPENED = 4     #: older games per board held again (streamed again, another version waiting)


def wall_ms() -> int:
    """Wall-clock time in ms since the Unix epoch."""
    return int(time.time() * 1000)


class Boards:
    """See module doc.

    Args:
        config: the event (pairings, players) or None (games are shown without round and division).
        store: where events and results go.
        now: wall clock (ms since the epoch).
    """

    def __init__(self, config: EventConfig | None, store: ResultsStore, now: Callable[[], int] = wall_ms) -> None:
        self.config = config
        self.store = store
        self.now = now
        self.tables: dict[int, Table] = {}
        self.versions = Versions(store, now)   # the other versions of the games, streamed again with other moves
        self._flushing = threading.Lock()      # one flush at a time (the ingest worker's, or a version being taken)
        self.version = 0
        self.results_version = 0   # bumped when a result is recorded or corrected (standings change)
        self._rows: list[tuple[int, str, int, dict[str, Any], int]] = []
        self._results: list[tuple[Game, Result]] = []   # finished games waiting for the next flush
        self._arrived = 0

    def restore(self) -> int:
        """After a desk restart: fold each board's latest game again from the store, and each game with another
        version waiting, with that version. Returns the games' events replayed."""
        for board, game_id in self.store.latest_games():
            table = self._table(board)
            table.game = self._load(table, game_id)
        for row, board, game_id, boot, from_seq, received in self.store.pending_versions():
            table = self._table(board)
            game = table.find(game_id) or self._reopen(table, game_id)
            if game is not None:
                self.versions.restore(game, row, boot, from_seq, received)
        return sum(g.applied for t in self.tables.values() for g in t.games())

    def _load(self, table: Table, game_id: str) -> Game:
        """A game of ``table`` folded again from the store (its events not live), with its result's marks."""
        game = Game(table.board, game_id)
        for seq, ev, ts in self.store.events_of(table.board, game_id):
            if seq != game.applied + 1 or game.apply(ev, ts) is not None:
                break
            game.not_live.add(seq)
        res = self.store.result(table.board, game_id)
        if res is not None:
            game.corrected, game.replaced_at = res.corrected, res.replaced_ts
        game.versions_kept = self.store.versions_kept(table.board, game_id)
        self._finish(table, game)
        return game

    def _reopen(self, table: Table, game_id: str) -> Game | None:
        """An older game of ``table`` the store holds, loaded again beside the board's latest two (the oldest so
        loaded leaves when there are :data:`MAX_REOPENED`), or None when the store has no event of it."""
        if not self.store.event(table.board, game_id, 1):
            return None
        self._hold(table, self._load(table, game_id))
        return table.reopened[game_id]

    def _hold(self, table: Table, game: Game) -> None:
        """Keep ``game`` among ``table``'s reopened games (bounded: the oldest leaves memory)."""
        table.reopened[game.game_id] = game
        while len(table.reopened) > MAX_REOPENED:
            self.versions.forget(table.reopened.pop(next(iter(table.reopened))))

    def flush(self) -> None:
        """Store the events applied since the last flush (one transaction), then the games finished since
        (each result after the events that prove it). Called by the one thread that takes messages; it may run
        without the tables' lock, so the page is not held up by the disk."""
        with self._flushing:
            self._flush()

    def _flush(self) -> None:
        rows, self._rows = self._rows, []
        results, self._results = self._results, []
        try:
            self.store.add_events(rows)
            self.versions.flush()
        except Exception:   # a full disk: keep them for the next flush
            self._rows, self._results = rows + self._rows, results + self._results
            raise
        while results:
            game, res = results[0]
            try:
                done = self.store.record_result(res)
            except Exception:
                self._results = results + self._results
                raise
            results.pop(0)
            if done is Recorded.CORRECTED:
                game.corrected = True
            if done is not Recorded.SAME:
                self.results_version += 1

    def _taken(self, board: int, game_id: str) -> Callable[[int], bool]:
        """Whether round r of ``board`` already holds another game (recorded or about to be)."""
        def taken(rnd: int) -> bool:
            if any(r.board == board and r.round == rnd and r.game_id != game_id for _, r in self._results):
                return True
            return self.store.game_at(rnd, board) not in (None, game_id)
        return taken

    def _table(self, board: int) -> Table:
        t = self.tables.get(board)
        if t is None:
            t = self.tables[board] = Table(board)
        return t

    def _apply(self, table: Table, game: Game, ev: dict[str, Any], ts: int) -> str | None:
        """Apply the next event of ``game`` (:meth:`Game.apply`); stored by the next flush."""
        problem = game.apply(ev, ts)
        if problem is None:
            self._rows.append((table.board, game.game_id, game.applied, ev, ts))
        return problem

    def _finish(self, table: Table, game: Game) -> None:
        state = game.ref.state
        if game.pairing is None and state.players and self.config is not None:
            game.pairing = self.config.pairing_for(table.board, state.players, taken=self._taken(table.board, game.game_id))
        if not game.over or state.result is None or tuple(state.result.final) == game.final:
            return
        self._results.append((game, self._result(game)))   # stored by the next flush, after the events that prove it
        game.final = tuple(state.result.final)

    def _result(self, game: Game) -> Result:
        """The result of the finished ``game`` (players by the event's spelling, finals, its GCG)."""
        state, p = game.ref.state, game.pairing
        assert state.result is not None
        names = [self._registered(n) for n in state.players]  # the registered spelling, for tsh and standings
        return Result(game.board, game.game_id, p.round if p else None, p.division if p else None,
                      tuple(zip(names, state.result.final)), state.preset, state.result.reason,
                      gcg_text(state, game_id=game.game_id, board=game.board), game.applied, game.last_ts,
                      wins=tuple(state.result.wins))

    def _registered(self, name: str) -> str:
        """The event's spelling of a player's name (the kiosk's when the event does not know the player)."""
        p = self.config.player(name) if self.config is not None else None
        return p.name if p is not None else name

    def repair(self, board: int) -> None:
        """The pairings of ``board`` changed (the director at the desk): find its games' pairings again and move
        recorded results to their round and division."""
        t = self.tables.get(board)
        if t is None or self.config is None:
            return
        for g in t.games():
            if not g.applied:
                continue
            names = g.ref.state.players
            g.pairing = self.config.pairing_for(board, names, taken=self._taken(board, g.game_id))
            if g.final is not None and self.store.set_result_pairing(
                    board, g.game_id, g.pairing.round if g.pairing else None, g.pairing.division if g.pairing else None):
                self.results_version += 1
        self._touch(t, None)

    def _touch(self, table: Table, ts: int | None) -> None:
        ts = self.now() if ts is None else ts
        table.pending_ts = ts if table.pending_ts is None else min(table.pending_ts, ts)
        recv = self._arrived or self.now()
        table.pending_recv = recv if table.pending_recv is None else min(table.pending_recv, recv)
        table.version += 1
        self.version += 1

    def take_pending(self) -> list[tuple[int, int, int]]:
        """Boards changed since the last call, with the kiosk ts of their oldest unpushed change and the desk
        wall time it arrived (ms); clears them."""
        out = [(b, t.pending_ts, t.pending_recv or t.pending_ts) for b, t in self.tables.items()
               if t.pending_ts is not None]
        for b, _, _ in out:
            self.tables[b].pending_ts = self.tables[b].pending_recv = None
        return out

    def tile(self, board: int) -> dict[str, Any]:
        """The desk page's tile of a board (:func:`kiosk.desk.tiles.tile`)."""
        return tiles.tile(self.tables[board], self.config)

    def detail(self, board: int) -> dict[str, Any] | None:
        """The full live view of a board (:func:`kiosk.desk.tiles.detail`); None for an unknown board."""
        t = self.tables.get(board)
        return None if t is None else tiles.detail(t, self.config)

    def take_version(self, board: int, game_id: str, token: str) -> tuple[Game, Result]:
        """The director takes the other version ``token`` (as the page showed it) of game ``game_id`` at table
        ``board``: its events, result and GCG become the game's, in the store (the replaced version kept there) and
        on the page. Call with the tables' lock held. Returns the new game and its result as stored. Raises
        :class:`~kiosk.desk.versions.VersionError` (nothing changed) when it cannot be taken, and what the store
        raises (nothing changed either)."""
        game, v = self.versions.check(self.tables.get(board), board, game_id, token)
        with self._flushing:
            self._flush()   # the store holds every event of both versions, and the game's result, before the swap
            v.game.pairing = None if self.config is None else self.config.pairing_for(
                board, v.game.ref.state.players, taken=self._taken(board, game_id))
            res = self._result(v.game)
            new = self.versions.swap(self.tables[board], game, res)
        self.results_version += 1
        self._touch(self.tables[board], None)
        return new, self.store.result(board, game_id) or res

    def running(self) -> list[Game]:
        """Games started and not over (current games of every board)."""
        return [t.game for t in self.tables.values() if t.game is not None and t.game.applied
                and t.game.ref.state.phase != OVER]
