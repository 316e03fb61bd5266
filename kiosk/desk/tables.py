"""Every table of the event: each board's game folded from its events, with the desk's flags.

:class:`Tables` (what the desk holds of the boards: :class:`~kiosk.desk.boards.Boards`) takes checked messages (:mod:`kiosk.desk.message`) in arrival order. Events are applied to a
:class:`~kiosk.referee.Referee` per (board, game_id) strictly by ``seq``: a repeat (QoS 1 redelivery, a kiosk
re-publishing after a restart) is dropped after checking it equals the event already applied under that number;
one that arrives early waits (at most :data:`MAX_WAITING` per game) until the missing ones come - a kiosk
restart re-publishes its game from event 1, so a gap fills. An event the referee refuses, or one that differs
from the recorded one of the same number, is counted and shown, never fatal.

A game streamed again (another kiosk run, ``boot``, re-sends the game's ``game_started`` the desk already has:
``kiosk stream-game`` run again on a corrected record under the same ``#id``) that differs from the recorded game
at event k is another version of it: the desk keeps the game as it came and keeps that version beside it
(:mod:`kiosk.desk.versions`), never applying its events to the game, leaving them waiting or counting them as
refused by the referee, differing or duplicate; the director may take it (:meth:`Tables.take_version`). A game
older than the board's two latest that is streamed again is loaded again from the store for it (it does not become
the board's current game). A single event that differs, with no re-sent start before it (a forgery under the
kiosk's login, or the kiosk's own after one), is a conflict and does not stop the kiosk's later events.

When a game is over its result (players, final scores, GCG) goes to the store; a later accepted event that
changes the final (a judge correction) updates the stored result and marks it corrected.

Memory is bounded (:mod:`kiosk.desk.boards`); the list of refused messages keeps the last :data:`MAX_REFUSED`.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import Any

from kiosk.desk.boards import MAX_REOPENED, Boards, wall_ms
from kiosk.desk.event import EventConfig
from kiosk.desk.games import Game, Table
from kiosk.desk.message import Bad, Message, Refused, Topic
from kiosk.desk.store import ResultsStore
from kiosk.desk.versions import Added
from kiosk.stream.snapshot import clock_dict

MAX_WAITING = 1000   #: early events buffered per game while a gap is open
MAX_ORPHANS = 2      #: games per board known only by later events (no game_started yet) ...
MAX_ORPHAN_WAITING = 200  #: ... and the events each of them may hold
MAX_REFUSED = 50     #: refused messages listed on the desk (all are counted)
MAX_TABLES = 1000    #: tables the desk follows (an event has 10-100): a message for one more board is refused
MAX_RESTREAMS = 8    #: kiosk runs per game followed as streaming it again (beyond: their events are taken one by one)

__all__ = ["MAX_ORPHANS", "MAX_ORPHAN_WAITING", "MAX_REFUSED", "MAX_REOPENED", "MAX_RESTREAMS", "MAX_TABLES",
           "MAX_WAITING", "Tables", "wall_ms"]


class Tables(Boards):
    """See module doc.

    Args:
        config: the event (pairings, players) or None (games are shown without round and division).
        store: where events and results go.
        now: wall clock (ms since the epoch).
    """

    def __init__(self, config: EventConfig | None, store: ResultsStore, now: Callable[[], int] = wall_ms) -> None:
        super().__init__(config, store, now)
        self.refused: collections.deque[tuple[int, str, str]] = collections.deque(maxlen=MAX_REFUSED)
        self.counts: collections.Counter[str] = collections.Counter()
        self.duplicates = 0
        self.delays: collections.deque[int] = collections.deque(maxlen=20_000)  # kiosk ts -> desk arrival (ms)

    # ------------------------------------------------------------------------------------------ intake
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
    def _game(self, table: Table, game_id: str, seq: int) -> Game:
        """The game an event belongs to. Only a game's first event (game_started) makes it the board's current
        game; events of a game not started yet wait apart (bounded), so they can never push the game being
        played out of view or out of memory."""
        g = table.find(game_id)
        if g is not None:
            return g
        if seq == 1 and game_id not in table.orphans and (g := self._reopen(table, game_id)) is not None:
            return g   # an older game streamed again: the board's current game stays
        g = table.orphans.pop(game_id, None) if seq == 1 else table.orphans.get(game_id)
        if seq == 1:
            g = g or Game(table.board, game_id)
            if table.previous is not None and table.previous.other is not None:
                self._hold(table, table.previous)   # its other version still waits for the director
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
        (module doc) that differs from the desk's game is that version's: kept as it, never applied to the game.
        Stops at the first event refused."""
        gid, items, boot = body["game_id"], body["events"], body.get("boot")
        boot = boot if isinstance(boot, str) else ""
        known = table.find(gid) or (self._reopen(table, gid) if items else None)
        if known is not None and known.other is not None and known.other.boot == boot:
            for seq, item in enumerate(items, 1):   # the waiting version's own snapshot: what it lacks
                if seq > known.other.game.applied and not self._to_version(table, known, seq, item["event"],
                                                                             item["ts"], catch_up=True):
                    return
            return
        if not items or (known is not None and known.applied >= len(items)):
            return   # the usual case: the desk has every event of it already
        cur = table.game
        if known is None and cur is not None and cur.applied and cur.first_ts > items[0]["ts"]:
            return
        if known is not None and known.applied:
            self._sent_again(known, boot, 1)   # a snapshot holds the game's start
            if known.restreams.get(boot):
                self.refuse(Bad.STREAMED_AGAIN, None)   # a version the desk does not keep (module doc)
                return
            if boot in known.restreams:
                k = next((i + 1 for i in range(known.applied) if items[i]["event"] != known.events[i]), 0)
                if k:
                    if self._streamed_again(table, known, boot, k, items[k - 1]["event"], items[k - 1]["ts"]):
                        self._catch_up(table, body)   # the rest of it goes to the version now
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

    def _streamed_again(self, table: Table, game: Game, boot: str, seq: int, ev: dict[str, Any], ts: int, *,
                        catch_up: bool = False) -> bool:
        """Kiosk run ``boot``, streaming ``game`` again, differs from it at event ``seq`` (``ev``, its version, kiosk
        time ``ts``): keep that version (:meth:`Versions.differs`). When it is not kept (the game has as many as the
        desk keeps, or it is the one the director replaced), name it once and count its messages from ``seq`` on
        instead. Returns whether it is kept."""
        game.restreams[boot] = seq
        added = self.versions.differs(game, boot, seq, ev, ts)
        if isinstance(added, str):
            self.refuse(Bad.STREAMED_AGAIN, f"board {table.board} game {game.game_id}: streamed again with other "
                                            f"moves from event {seq} ({ev.get('type')}) on: {added}")
            return False
        self._version_added(table, added, catch_up)
        return True

    def _to_version(self, table: Table, game: Game, seq: int, ev: dict[str, Any], ts: int, *,
                    catch_up: bool = False) -> bool:
        """Event ``seq`` of ``game``'s waiting version (its kiosk run sent it). Returns False when it was refused."""
        return self._version_added(table, self.versions.event(game, seq, ev, ts), catch_up)

    def _version_added(self, table: Table, added: Added, catch_up: bool) -> bool:
        """Count what :class:`Versions` did with a version's event; the page shows the version as it grew."""
        if added.kind == "duplicate" and not catch_up:
            self.duplicates += 1
        elif added.kind == "conflict":
            self.refuse(Bad.CONFLICT, added.detail)
        elif added.kind == "refused":
            self.refuse(Bad.REFUSED, added.detail)
        elif added.kind == "closed":
            self.refuse(Bad.STREAMED_AGAIN, None)
        if added.rows or added.kind == "refused":
            self._touch(table, None)
        return added.kind not in ("conflict", "refused", "closed")

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
            if game.other is not None and boot == game.other.boot:
                return self._to_version(table, game, seq, ev, ts)
            if 0 < game.restreams.get(boot, 0) <= seq:
                self.refuse(Bad.STREAMED_AGAIN, None)   # a version the desk does not keep (module doc)
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
                return self._streamed_again(table, game, boot, seq, ev, ts)
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

    # ------------------------------------------------------------------------------------------ views
    def status(self) -> dict[str, Any]:
        """Counters for the page: ignored messages by kind (with sentences), the latest ignored, duplicates, and
        each game's other version waiting for the director (:func:`kiosk.desk.versions.summary`)."""
        return {"refused": {k: {"count": n, "sentence": Bad(k).sentence} for k, n in sorted(self.counts.items())},
                "refused_total": sum(self.counts.values()), "duplicates": self.duplicates,
                "latest_refused": [{"at": a, "kind": k, "detail": d} for a, k, d in list(self.refused)[-10:]],
                "other_versions": self.versions.summaries()}
