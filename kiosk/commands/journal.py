"""``kiosk journal``: look at a journal file (read-only), and the operator's ways on from a damaged one.

A damaged journal is moved aside (``PATH.corrupt-N``) and its path blocked (``PATH.blocked``) so the kiosk
cannot silently start a new game over a lost one. ``kiosk journal recover PATH`` carries the damaged copy's
intact events into a fresh journal at PATH (the game goes on from there), sets aside the intact events after a
lost one in ``PATH.set-aside-N.jsonl`` and lists them, and says exactly which events were lost;
``kiosk journal acknowledge PATH`` shows the report and unblocks the path for a fresh start (the damaged copy
stays where it was put). ``show`` never changes a file.

Results go to stdout, diagnostics to stderr. Exit codes: 0 done, 1 the journal is damaged (something in it can be
recovered), 2 bad input (no such file, not a kiosk journal, nothing to recover - an empty file, one cut in its
header or with no whole event, no damaged copy left, an intact journal - nothing to acknowledge, the journal is in use; README's convention) or an
output that cannot be written (``recover`` or ``acknowledge`` in a read-only folder or on a full disk: nothing is
changed, and it says what to do).
"""

from __future__ import annotations

import argparse
import sys

from kiosk.rules.counts import counted

NAME = "journal"
HELP = "show a journal's games (read-only), recover a damaged journal's intact events, or acknowledge the damage"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    s = sub.add_parser("show", help="list the games in a journal: players, number of events, finished or not, "
                                    "scores (changes nothing)")
    s.add_argument("path", help="the journal file (.sqlite)")
    r = sub.add_parser("recover", help="carry a damaged journal's intact events into a fresh journal at its path "
                                       "(the game goes on from there), set aside the intact events after a lost "
                                       "one in PATH.set-aside-N.jsonl, and say which events were lost")
    r.add_argument("path", help="the journal path (blocked, or holding the damaged file)")
    r.add_argument("--from", dest="source", help="the damaged copy to read (default: the one the report names)")
    a = sub.add_parser("acknowledge", help="unblock a journal path for a fresh start after a corruption report "
                                           "(prints the report)")
    a.add_argument("path", help="the journal file whose damaged copy was kept aside")


def _err(msg: str) -> None:
    print(f"kiosk journal: {msg}", file=sys.stderr)


def _game_line(g: object, events: list) -> str:
    """One game of ``journal show``: ``game 1: Ann vs Bob, 66 events, finished, final: Ann 426, Bob 321``.

    A game in progress gives ``unfinished, scores as they stand: ...``; a game the journal marks finished whose
    events stop before its end (carried over from a damaged journal) ``cut short at event N (scores as they
    stood then: ...)`` - never "finished"; a game whose events do not replay says so."""
    from kiosk.referee.referee import Referee

    gid, finished_ms = getattr(g, "id", "?"), getattr(g, "finished_ms", None)
    first = events[0] if events else None
    players = " vs ".join(getattr(first, "players", ()) or ()) or "players unknown"
    head = f"game {gid}: {players}, {counted(len(events), 'event')}"
    if not events:
        return f"{head}, {'finished' if finished_ms is not None else 'unfinished'}"
    try:
        st = Referee.from_events(events).state
    except ValueError as exc:
        return f"{head}, does not replay: {exc}"
    final = st.result.final if st.result is not None else None
    scores = ", ".join(f"{n} {v}" for n, v in zip(st.players, final or st.scores, strict=False))
    if final is not None:
        return f"{head}, finished, final: {scores}"
    if finished_ms is not None:
        return f"{head}, cut short at event {len(events)} (scores as they stood then: {scores})"
    return f"{head}, unfinished, scores as they stand: {scores}"


def shown(text: str, limit: int = 4000) -> str:
    """A damaged text for the terminal: control characters (a zeroed stretch reads as NUL bytes) escaped
    (``\\x00``), a run of the same one given once with its count, and cut after ``limit`` characters."""
    import re

    def run(m: re.Match[str]) -> str:
        esc = f"\\x{ord(m.group(1)):02x}"
        n = len(m.group(0))
        return esc if n == 1 else f"[{esc} x{n}]"

    out = re.sub(r"([\x00-\x1f\x7f-\x9f])\1*", run, text)
    return out if len(out) <= limit else f"{out[:limit]}... ({len(out) - limit} more characters)"


def _recovered(done: object, path: object) -> None:
    """``journal recover``'s report: each game (kept, lost, set aside), the events set aside with their content,
    what could not be read, what was lost and set aside in all, and the game that goes on."""
    from kiosk.store.salvage import Salvage
    from kiosk.store.set_aside import event_line

    assert isinstance(done, Salvage)
    print(f"recovered from {done.source} into a fresh journal at {path}:")
    for salvaged in done.games:
        print(f"  {salvaged.line()}")
        for seq, text in salvaged.damaged.items():
            print(f"    lost: event {seq} (damaged, its text as read, never replayed): {shown(text)}")
        for row in salvaged.set_aside:
            print(f"    set aside: {event_line(row[1], row[3], row[4])}")
    for p in done.problems:
        print(f"  note: {p}")
    aside = (f", {counted(done.set_aside, 'intact event')} set aside in {done.set_aside_file} (the damaged copy "
             f"{done.source} keeps them too)" if done.set_aside_file is not None else "")
    goes_on = done.resumes
    print(f"{counted(done.lost, 'event')} lost{aside}; " + (
        f"the kiosk resumes game {goes_on.game} from event {goes_on.kept} (check the board against it)"
        if goes_on is not None else "no game is left to go on: the kiosk's next game starts afresh"))


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kiosk.store import (
        Journal,
        JournalCorrupt,
        JournalError,
        JournalLocked,
        JournalPathError,
        acknowledge_corruption,
    )
    from kiosk.store.journal import not_a_file

    path = Path(args.path)
    for given in (path, Path(getattr(args, "source", None) or path)):
        why = not_a_file(given)
        if why:  # a folder or a FIFO given as a journal: bad input, left as it is (never kept aside as damaged)
            _err(f"{given}: {why}")
            return 2
    if args.action == "acknowledge":
        try:
            report = acknowledge_corruption(path)
        except JournalError as exc:
            _err(str(exc))
            return 2
        print(report.rstrip())
        print(f"acknowledged: {path} may be used again for a new journal (the damaged copy stays beside it)")
        return 0
    if args.action == "recover":
        from kiosk.store.salvage import NothingToRecover, RecoverWriteError, recover_journal

        try:
            done = recover_journal(path, args.source)
        except (JournalLocked, JournalPathError, RecoverWriteError, NothingToRecover) as exc:
            # bad input (nothing in it to recover: empty, no whole event), or an output not written
            _err(str(exc))
            return 2
        except JournalError as exc:
            _err(str(exc))
            return 1
        _recovered(done, path)
        return 0
    try:
        with Journal(path, readonly=True) as j:
            games = j.games()
            for g in games:
                print(_game_line(g, j.events(g.id)))
            if not games:
                print(f"{path}: no games")
    except JournalCorrupt as exc:
        _err(str(exc))
        return 2 if exc.nothing else 1   # nothing in it to recover (empty, no whole event): an unusable input
    except JournalError as exc:
        _err(str(exc))
        return 2
    return 0
