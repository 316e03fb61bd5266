"""``kiosk journal``: look at a journal file, and the operator's acknowledgement of a damaged one.

A damaged journal is moved aside (``PATH.corrupt-N``) and its path blocked (``PATH.blocked``) so the kiosk
cannot silently start a new game over a lost one; ``kiosk journal acknowledge PATH`` shows the report and
unblocks the path (the damaged copy stays where it was put).
"""

from __future__ import annotations

import argparse

NAME = "journal"
HELP = "show a journal's games, or acknowledge a damaged journal so its path can be used again"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    s = sub.add_parser("show", help="list the games in a journal and their events")
    s.add_argument("path", help="the journal file (.sqlite)")
    a = sub.add_parser("acknowledge", help="unblock a journal path after a corruption report (prints the report)")
    a.add_argument("path", help="the journal file whose damaged copy was kept aside")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kiosk.store import Journal, JournalError, acknowledge_corruption

    path = Path(args.path)
    if args.action == "acknowledge":
        try:
            report = acknowledge_corruption(path)
        except JournalError as exc:
            print(f"error: {exc}")
            return 2
        print(report.rstrip())
        print(f"acknowledged: {path} may be used again (the damaged copy stays beside it)")
        return 0
    if not path.is_file():
        print(f"error: {path}: no such journal file")
        return 2
    try:
        with Journal(path) as j:
            games = j.games()
            for g in games:
                evs = j.events(g.id)
                state = "finished" if g.finished_ms is not None else "unfinished"
                first = evs[0] if evs else None
                players = " vs ".join(getattr(first, "players", ()) or ()) or "?"
                print(f"game {g.id}: {players}, {len(evs)} events, {state}")
            if not games:
                print(f"{path}: no games")
    except JournalError as exc:
        print(f"error: {exc}")
        return 2
    return 0
