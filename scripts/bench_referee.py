#!/usr/bin/env python3
"""Benchmark the referee and its journal (a script, not a test).

Measures:
* referee throughput: events applied per second (``Referee.apply`` on scripted whole games);
* journal append latency with fsync (WAL, synchronous=FULL): median / p99 / max in ms, on the folder given
  (default: a temporary folder next to the journal's usual place, the project folder);
* journaled apply latency (check + append + apply, what the kiosk's event loop pays per event).

Usage: .venv/bin/python scripts/bench_referee.py [--games 20] [--appends 2000] [--dir PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kiosk.referee import Referee  # noqa: E402
from kiosk.referee.simulate import random_game  # noqa: E402
from kiosk.store import GameSession, Journal  # noqa: E402


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def bench_referee(n_games: int) -> dict:
    games = []
    for i in range(n_games):
        games.append(random_game(("nsf", "naspa", "team", "school", "casual")[i % 5], seed=i))
        print(f"\rscripting games {i + 1}/{n_games}", end="", file=sys.stderr)
    print(file=sys.stderr)
    total = sum(len(g) for g in games)
    best = float("inf")
    for rep in range(3):
        t0 = time.perf_counter()
        for g in games:
            ref = Referee()
            for ev in g:
                ref.apply(ev)
        best = min(best, time.perf_counter() - t0)
        print(f"\rreferee pass {rep + 1}/3", end="", file=sys.stderr)
    print(file=sys.stderr)
    t0 = time.perf_counter()
    snaps = 0
    for g in games[:5]:
        ref = Referee()
        for ev in g:
            ref.apply(ev)
            _ = ref.state  # the snapshot the UI reads after each event
            snaps += 1
    snap_s = time.perf_counter() - t0
    return {"events": total, "events_per_s": round(total / best), "events_with_state_per_s": round(snaps / snap_s)}


def bench_journal(n: int, folder: Path) -> dict:
    events = [e for seed in range(50) for e in random_game("nsf", seed=seed)[1:]][:n]
    with tempfile.TemporaryDirectory(dir=folder) as d:
        j = Journal(Path(d) / "bench.sqlite")
        game = j.new_game(0)
        lat = []
        for i, ev in enumerate(events):
            t0 = time.perf_counter()
            j.append(game, ev)
            lat.append((time.perf_counter() - t0) * 1000)
            if i % 200 == 0:
                print(f"\rjournal appends {i}/{len(events)}", end="", file=sys.stderr)
        print(file=sys.stderr)
        settings = j.settings()
        j.close()
        # journaled apply: check + durable append + apply, on a whole game
        script = random_game("nsf", seed=99)
        sess = GameSession.open(Path(d) / "session.sqlite")
        apply_lat = []
        for ev in script:
            t0 = time.perf_counter()
            res = sess.apply(ev)
            apply_lat.append((time.perf_counter() - t0) * 1000)
            assert res.accepted, res
        sess.close()
    return {
        "appends": len(lat), "settings": settings,
        "append_ms_median": round(statistics.median(lat), 3), "append_ms_p99": round(pct(lat, 0.99), 3),
        "append_ms_max": round(max(lat), 3),
        "journaled_apply_ms_median": round(statistics.median(apply_lat), 3),
        "journaled_apply_ms_p99": round(pct(apply_lat, 0.99), 3),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="scripted games for the throughput test")
    ap.add_argument("--appends", type=int, default=2000, help="journal appends to time")
    ap.add_argument("--dir", type=Path, default=ROOT, help="folder for the temporary journal (its disk is measured)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if not args.dir.is_dir():
        print(f"error: --dir {args.dir} is not a folder", file=sys.stderr)
        return 2
    out = {"referee": bench_referee(args.games), "journal": bench_journal(args.appends, args.dir)}
    if args.json:
        print(json.dumps(out))
    else:
        r, j = out["referee"], out["journal"]
        print(f"referee: {r['events_per_s']} events/s ({r['events']} events of {args.games} games); "
              f"{r['events_with_state_per_s']} events/s reading the state after each")
        print(f"journal ({j['settings']['journal_mode']}, synchronous={j['settings']['synchronous']}) on {args.dir}: "
              f"append median {j['append_ms_median']} ms, p99 {j['append_ms_p99']} ms, max {j['append_ms_max']} ms "
              f"over {j['appends']} appends")
        print(f"journaled apply (check + fsync'd append + apply): median {j['journaled_apply_ms_median']} ms, "
              f"p99 {j['journaled_apply_ms_p99']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
