"""Every table of the event: each board's game folded from its events, with the desk's flags.

:class:`Tables` takes checked messages (:mod:`kiosk.desk.message`) in arrival order. Events are applied to a
:class:`~kiosk.referee.Referee` per (board, game_id) strictly by ``seq``: a repeat (QoS 1 redelivery, a kiosk
re-publishing after a restart) is dropped after checking it equals the event already applied under that number;
one that arrives early waits (at most :data:`MAX_WAITING` per game) until the missing ones come - a kiosk
restart re-publishes its game from event 1, so a gap fills. An event the referee refuses, or one that differs
from the recorded one of the same number, is counted and shown, never fatal.

A game streamed again (another kiosk run, ``boot``, re-sends the game's ``game_started`` the desk already has:
``kiosk stream-game`` run again on a corrected record under the same ``#id``) that differs from the recorded game
at event k is another version of it: the desk keeps the game as it first came, names that version once (board,
game, k) as :attr:`Bad.STREAMED_AGAIN <kiosk.desk.message.Bad.STREAMED_AGAIN>` and counts each of its messages from
k on under that kind, never applying them, leaving them waiting or counting them as refused by the referee,
differing or duplicate. A single event that differs, with no re-sent start before it (a forgery under the
kiosk's login, or the kiosk's own after one), is a conflict and does not stop the kiosk's later events.

When a game is over its result (players, final scores, GCG) goes to the store; a later accepted event that
changes the final (a judge correction) updates the stored result and marks it corrected.

Memory is bounded: per board the current and the previous game are kept (older games live in SQLite only);
the list of refused messages keeps the last :data:`MAX_REFUSED`.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Iterable
from typing import Any

from kiosk.desk import tiles
from kiosk.desk.event import EventConfig
from kiosk.desk.games import Game, Table
from kiosk.desk.message import Bad, Message, Refused, Topic
from kiosk.desk.store import Recorded, Result, ResultsStore
from kiosk.referee.events import EventError, event_from_dict
from kiosk.referee.state import OVER
from kiosk.stream.records import gcg_text
from kiosk.stream.snapshot import clock_dict

MAX_WAITING = 1000   #: early events buffered per game while a gap is open
MAX_ORPHANS = 2      #: games per board known only by later events (no game_started yet) ...
MAX_ORPHAN_WAITING = 200  #: ... and the events each of them may hold
MAX_REFUSED = 50     #: refused messages listed on the desk (all are counted)
MAX_TABLES = 1000    #: tables the desk follows (an event has 10-100): a message for one more board is refused
MAX_RESTREAMS = 8    #: kiosk runs per game followed as streaming it again (beyond: their events are taken one by one)


def wall_ms() -> int:
    """Wall-clock time in ms since the Unix epoch."""
    return int(time.time() * 1000)


class Tables:
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
        self.refused: collections.deque[tuple[int, str, str]] = collections.deque(maxlen=MAX_REFUSED)
        # the games streamed again with other moves: (at, board, game_id, the event their version differs from)
        self.restreamed: collections.deque[tuple[int, int, str, int, str]] = collections.deque(maxlen=MAX_REFUSED)
        self.counts: collections.Counter[str] = collections.Counter()
        self.duplicates = 0
        self.version = 0
        self.results_version = 0   # bumped when a result is recorded or corrected (standings change)
        self._rows: list[tuple[int, str, int, dict[str, Any], int]] = []
        self._results: list[tuple[Game, Result]] = []   # finished games waiting for the next flush
        self._arrived = 0
        self.delays: collections.deque[int] = collections.deque(maxlen=20_000)  # kiosk ts -> desk arrival (ms)

    # ------------------------------------------------------------------------------------------ intake
    def restore(self) -> int:
        """After a desk restart: fold each board's latest game again from the store. Returns events replayed."""
        n = 0
        for board, game_id in self.store.latest_games():
            table = self._table(board)
            game = Game(board, game_id)
            table.game = game
            for seq, ev, ts in self.store.events_of(board, game_id):
                if seq != game.applied + 1 or self._apply(table, game, ev, ts, store=False) is not None:
                    break
                game.not_live.add(seq)
                n += 1
            self._finish(table, game)
        return n

    def take_all(self, items: Iterable[Message | Refused], arrived: Iterable[int] | None = None, *,
                 flush: bool = True) -> None:
        """Take a batch of checked messages (``arrived``: the desk wall time each came in, ms). ``flush``: store
        the new events and results at the end (the ingest worker flushes itself, outside the tables' lock)."""
        if arrived is None:
            for item in items:
                self.take(item)
        else:
            for item, at in zip(items, arrived):
                self.take(item, at)
        if flush:
            self.flush()

    def flush(self) -> None:
        """Store the events applied since the last flush (one transaction), then the games finished since
        (each result after the events that prove it). Called by the one thread that takes messages; it may run
        without the tables' lock, so the page is not held up by the disk."""
        rows, self._rows = self._rows, []
        results, self._results = self._results, []
        try:
            self.store.add_events(rows)
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

    def take(self, item: Message | Refused, arrived: int | None = None) -> None:
        """Take one checked message (call :meth:`flush` afterwards). ``arrived``: desk wall ms it came in."""
        self._arrived = self.now() if arrived is None else arrived
        if isinstance(item, Refused):
            self.refuse(item.bad, item.detail)
            return
        if item.board not in self.tables and len(self.tables) >= MAX_TABLES:
            self.refuse(Bad.FIELDS, f"board {item.board}: the desk already follows {MAX_TABLES} tables")
            return
        table = self._table(item.board)
        body = item.body
        if item.topic is Topic.STATUS:
            boot, ts = str(body.get("boot", "")), body.get("ts", 0)
            if body["online"]:
                table.online, table.online_boot, table.online_ts = True, boot, ts if isinstance(ts, int) else 0
            elif table.online and boot != table.online_boot and isinstance(ts, int) and ts < table.online_ts:
                return  # the Last Will of an earlier kiosk run, delivered after the restarted kiosk came back
            else:
                table.online = False
        elif item.topic is Topic.FLAGS:
            table.flags = body
        elif item.topic is Topic.SNAPSHOT:
            self._catch_up(table, body)
            return
        elif item.topic is Topic.TICK:
            if table.game is not None and body["game_id"] == table.game.game_id:
                table.clock = {"running": body["clock"].get("running"),
                               "remaining_ms": body["clock"].get("remaining_ms")}
                table.clock_wall = self._arrived
                return  # ticks are not pushed on their own: the page runs the clock between them
        else:
            self._event(table, body)
            return
        self._touch(table, None)

    def refuse(self, bad: Bad, detail: str | None) -> None:
        """Count one ignored message and list it (``detail``: where and what; None: counted, not listed again)."""
        self.counts[bad.value] += 1
        if detail is not None:
            self.refused.append((self.now(), bad.value, detail))
        self.version += 1

    # ------------------------------------------------------------------------------------------ events
    def _table(self, board: int) -> Table:
        t = self.tables.get(board)
        if t is None:
            t = self.tables[board] = Table(board)
        return t

    def _game(self, table: Table, game_id: str, seq: int) -> Game:
        """The game an event belongs to. Only a game's first event (game_started) makes it the board's current
        game; events of a game not started yet wait apart (bounded), so they can never push the game being
        played out of view or out of memory."""
        for g in (table.game, table.previous):
            if g is not None and g.game_id == game_id:
                return g
        g = table.orphans.pop(game_id, None) if seq == 1 else table.orphans.get(game_id)
        if seq == 1:
            g = g or Game(table.board, game_id)
            table.previous, table.game = table.game, g
            table.clock = None
            return g
        if g is None:
            if len(table.orphans) >= MAX_ORPHANS:
                gone = next(iter(table.orphans))
                self.refuse(Bad.FIELDS, f"board {table.board}: events of game {gone} dropped: it never started")
                del table.orphans[gone]
            g = table.orphans[game_id] = Game(table.board, game_id)
        return g

    def _catch_up(self, table: Table, body: dict[str, Any]) -> None:
        """A judge snapshot (the retained one when the desk subscribes, then one after each event): take the
        events of its game the desk lacks, in order, as if they had come one by one - a desk started or
        restarted mid-game shows the game as it stands, and the live events then follow by ``seq`` (those it
        already has are skipped, neither applied nor counted twice). The snapshot of a game older than the
        table's current one (its first event earlier) is ignored; one whose event at the desk's last differs
        from the desk's is refused as a conflict. A snapshot of the game streamed again by another kiosk run
        (module doc) that differs from the desk's game is that version's: named once, counted, never taken.
        Stops at the first event refused."""
        gid, items, boot = body["game_id"], body["events"], body.get("boot")
        boot = boot if isinstance(boot, str) else ""
        known = next((g for g in (table.game, table.previous) if g is not None and g.game_id == gid), None)
        if not items or (known is not None and known.applied >= len(items)):
            return   # the usual case: the desk has every event of it already
        cur = table.game
        if known is None and cur is not None and cur.applied and cur.first_ts > items[0]["ts"]:
            return
        if known is not None and known.applied:
            self._sent_again(known, boot, 1)   # a snapshot holds the game's start
            if known.restreams.get(boot):
                self.refuse(Bad.STREAMED_AGAIN, None)   # that version was named when it first differed
                return
            if boot in known.restreams:
                k = next((i + 1 for i in range(known.applied) if items[i]["event"] != known.events[i]), 0)
                if k:
                    self._streamed_again(table, known, boot, k, items[k - 1]["event"])
                    return
            elif items[known.applied - 1]["event"] != known.events[-1]:
                self.refuse(Bad.CONFLICT, f"board {table.board} game {gid}: the kiosk's snapshot differs from event "
                                          f"{known.applied} as recorded")
                return
        for seq in range((known.applied if known else 0) + 1, len(items) + 1):
            item = items[seq - 1]
            if not self._event(table, {"game_id": gid, "seq": seq, "event": item["event"], "ts": item["ts"],
                                       "boot": boot}, catch_up=True):
                return

    @staticmethod
    def _sent_again(game: Game, boot: str, seq: int) -> None:
        """Note that kiosk run ``boot`` sent event ``seq`` of ``game``: when that is the game's start, which the
        desk took from another run, ``boot`` streams the game again (module doc; at most :data:`MAX_RESTREAMS`)."""
        if seq == 1 and game.applied and boot and boot != game.boot and boot not in game.restreams \
                and len(game.restreams) < MAX_RESTREAMS:
            game.restreams[boot] = 0

    def _streamed_again(self, table: Table, game: Game, boot: str, seq: int, ev: dict[str, Any]) -> None:
        """Kiosk run ``boot``, streaming ``game`` again, differs from it at event ``seq`` (``ev``, its version):
        name that version once; its messages from ``seq`` on are counted under it from now on."""
        game.restreams[boot] = seq
        detail = f"board {table.board} game {game.game_id}: streamed again with other moves from event {seq} " \
                 f"({ev.get('type')}) on: the desk keeps the game as it first came and does not take them"
        self.refuse(Bad.STREAMED_AGAIN, detail)
        self.restreamed.append((self.now(), table.board, game.game_id, seq, detail))

    def _event(self, table: Table, body: dict[str, Any], *, catch_up: bool = False) -> bool:
        """Take one event of a game (``body``: game_id, seq, event, ts). ``catch_up``: it comes from a snapshot,
        not live (a repeat is no duplicate, its delay is not measured: the page gets it as a change of now).
        Returns False when it was refused."""
        seq, ev, ts, boot = body["seq"], body["event"], body["ts"], body.get("boot")
        boot = boot if isinstance(boot, str) else ""   # the kiosk run that sent it (unchecked by parse)
        game = self._game(table, body["game_id"], seq)
        where = f"board {table.board} game {game.game_id} event {seq}"
        if not catch_up:
            self._sent_again(game, boot, seq)
            if 0 < game.restreams.get(boot, 0) <= seq:
                self.refuse(Bad.STREAMED_AGAIN, None)   # the version named when it first differed
                return False
        if seq <= game.applied:
            if game.events[seq - 1] == ev:
                # a duplicate is a live event had live before. One the desk took from a snapshot, or from its
                # store at start, may well come live once after it: queued by the broker while the desk was away,
                # or delivered again because the desk stopped before acknowledging it (QoS 1 is at least once)
                if not catch_up and seq in game.not_live:
                    game.not_live.discard(seq)      # had live now: a second live copy is a duplicate
                elif not catch_up:
                    self.duplicates += 1
                return True
            if boot in game.restreams and not catch_up:
                self._streamed_again(table, game, boot, seq, ev)
                return False
            self.refuse(Bad.CONFLICT, f"{where} ({ev.get('type')})")
            return False
        if seq > game.applied + 1:
            cap = MAX_WAITING if game is table.game or game is table.previous else MAX_ORPHAN_WAITING
            if len(game.waiting) < cap or seq in game.waiting:
                game.waiting.setdefault(seq, (ev, ts))
            else:
                self.refuse(Bad.FIELDS, f"{where}: more than {cap} events wait for a gap")
            self._touch(table, None if catch_up else ts)
            return True
        problem = self._apply(table, game, ev, ts)
        if problem:
            self.refuse(Bad.REFUSED, f"{where} ({ev.get('type')}): {problem}")
            return False
        if seq == 1:
            game.boot = boot
        if catch_up:
            game.not_live.add(seq)
        else:
            self.delays.append(self._arrived - ts)
        self._apply_waiting(table, game)
        if game is table.game:  # the clock as the event left it, at once (a tick may be up to 1 s away)
            ck = clock_dict(game.ref.state, game.ref.state.last_t)
            if ck is not None:
                table.clock = {"running": ck["running"], "remaining_ms": ck["remaining_ms"]}
                table.clock_wall = self._arrived
        self._finish(table, game)
        self._touch(table, None if catch_up else ts)   # caught up: new to the page now, not late since ts
        return True

    def _apply_waiting(self, table: Table, game: Game) -> None:
        """Apply the events of ``game`` that waited for the one just applied, in order, up to the next gap or
        the first one the referee refuses."""
        while game.applied + 1 in game.waiting:
            ev2, ts2 = game.waiting.pop(game.applied + 1)
            problem = self._apply(table, game, ev2, ts2)
            if problem:
                self.refuse(Bad.REFUSED, f"board {table.board} game {game.game_id} event {game.applied + 1}: "
                                         f"{problem}")
                break

    def _apply(self, table: Table, game: Game, ev: dict[str, Any], ts: int, *, store: bool = True) -> str | None:
        try:
            event = event_from_dict(ev)
        except EventError as exc:
            return str(exc)
        except Exception as exc:  # a malformed dict must never stop the desk
            return f"{type(exc).__name__}: {exc}"
        res = game.ref.apply(event)
        if not res.accepted:
            return res.reason or "refused"
        game.events.append(ev)
        game.last_ts = ts
        if game.applied == 1:
            game.first_ts = ts
        if store:
            self._rows.append((table.board, game.game_id, game.applied, ev, ts))
        return None

    def _finish(self, table: Table, game: Game) -> None:
        state = game.ref.state
        if game.pairing is None and state.players and self.config is not None:
            game.pairing = self.config.pairing_for(table.board, state.players, taken=self._taken(table.board, game.game_id))
        if state.result is None or state.phase != OVER or game.waiting:
            return
        final = tuple(state.result.final)
        if final == game.final:
            return
        p = game.pairing
        names = [self._registered(n) for n in state.players]  # the registered spelling, for tsh and standings
        res = Result(table.board, game.game_id, p.round if p else None, p.division if p else None,
                     tuple(zip(names, final)), state.preset, state.result.reason,
                     gcg_text(state, game_id=game.game_id, board=table.board), game.applied, game.last_ts,
                     wins=tuple(state.result.wins))
        self._results.append((game, res))   # stored by the next flush, after the events that prove it
        game.final = final

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
        for g in (t.game, t.previous):
            if g is None or not g.applied:
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

    # ------------------------------------------------------------------------------------------ views
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

    def status(self) -> dict[str, Any]:
        """Counters for the page: ignored messages by kind (with sentences), the latest ignored, duplicates, and
        each game streamed again with other moves (the page says each in a line)."""
        return {"refused": {k: {"count": n, "sentence": Bad(k).sentence} for k, n in sorted(self.counts.items())},
                "refused_total": sum(self.counts.values()), "duplicates": self.duplicates,
                "latest_refused": [{"at": a, "kind": k, "detail": d} for a, k, d in list(self.refused)[-10:]],
                "streamed_again": [{"at": a, "board": b, "game_id": g, "from_event": k, "detail": d}
                                   for a, b, g, k, d in self.restreamed]}

    def running(self) -> list[Game]:
        """Games started and not over (current games of every board)."""
        return [t.game for t in self.tables.values() if t.game is not None and t.game.applied
                and t.game.ref.state.phase != OVER]
