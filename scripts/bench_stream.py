#!/usr/bin/env python3
"""Benchmark: end-to-end latency kiosk event -> MQTT subscriber, with 50 boards on one local Mosquitto.

Each board is a full kiosk stream stack (StreamHub + MqttPublisher, its own MQTT connection); one tournament
desk subscriber (DeskSubscriber, QoS 1) listens to every board's judge channel. Latency is measured from the
moment the referee loop hands the event to ``StreamHub.publish`` to the moment the desk's callback has it
(same process, ``time.perf_counter``). Two loads:

* paced: every board sends one event every ``--interval`` ms (default 200 ms: 250 events/s in all - a real
  tournament room makes about 50 boards x 1 event / 20 s = 2.5 events/s);
* burst: every board publishes its whole game at once (the worst case: a room reconnecting together).

Usage: .venv/bin/python scripts/bench_stream.py [--boards 50] [--interval 200] [--json artifacts/stream/bench.json]
Needs the Debian package mosquitto.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kiosk.referee.simulate import random_game  # noqa: E402
from kiosk.stream.broker import LocalBroker  # noqa: E402
from kiosk.stream.hub import StreamHub  # noqa: E402
from kiosk.stream.mqtt import MqttConfig, MqttPublisher  # noqa: E402
from kiosk.stream.subscriber import DeskSubscriber  # noqa: E402


def percentile(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def run(boards: int, interval_ms: float, mode: str, port: int, root: str) -> dict:
    games = {b: random_game("nsf", seed=1000 + b) for b in range(boards)}
    sent: dict[tuple[int, int], float] = {}
    lat: list[float] = []
    lock = threading.Lock()
    total = sum(len(g) for g in games.values())
    done = threading.Event()

    def on_msg(topic: str, msg: dict, status: str) -> None:
        if msg.get("kind") != "event" or status == "duplicate":
            return
        now = time.perf_counter()
        with lock:
            t0 = sent.get((msg["board"], msg["seq"]))
            if t0 is not None:
                lat.append((now - t0) * 1000)
            if len(lat) >= total:
                done.set()

    desk = DeskSubscriber("127.0.0.1", port, [f"{root}/judge/board/+/event/#"], client_id=f"bench-{mode}",
                          keep_raw=False, on_message=on_msg)
    stacks = []
    for b in range(boards):
        hub = StreamHub(b, tick_ms=1000)
        pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=port, board=b, root=root,
                                       channels=frozenset({"judge", "public"})), boot=hub.boot)
        hub.add_sink(pub)
        hub.start()
        pub.start()
        stacks.append((hub, pub))
    end = time.monotonic() + 10
    while not all(p.connected for _, p in stacks) and time.monotonic() < end:
        time.sleep(0.05)
    t_start = time.perf_counter()
    if mode == "burst":
        for b, (hub, _) in enumerate(stacks):
            for i, ev in enumerate(games[b], 1):
                with lock:
                    sent[(b, i)] = time.perf_counter()
                hub.publish(ev)
    else:
        longest = max(len(g) for g in games.values())
        step = interval_ms / 1000 / boards
        for i in range(longest):
            for b, (hub, _) in enumerate(stacks):
                if i < len(games[b]):
                    with lock:
                        sent[(b, i + 1)] = time.perf_counter()
                    hub.publish(games[b][i])
                time.sleep(step)
            if i % 10 == 0:
                print(f"\r  {mode}: round {i + 1}/{longest}, {len(lat)}/{total} received", end="", file=sys.stderr)
        print(file=sys.stderr)
    done.wait(120)
    elapsed = time.perf_counter() - t_start
    for hub, pub in stacks:
        hub.stop()
        pub.stop(flush_s=0.1)
    desk.close()
    gaps = desk.follower.gaps
    return {"mode": mode, "boards": boards, "events": total, "received": len(lat), "gaps": len(gaps), "lat": lat,
            "median_ms": round(statistics.median(lat), 2) if lat else None,
            "p99_ms": round(percentile(lat, 99), 2) if lat else None,
            "max_ms": round(max(lat), 2) if lat else None, "seconds": round(elapsed, 2),
            "interval_ms": interval_ms if mode == "paced" else None}


def draw_cdf(results: list[dict], path: Path) -> None:
    """Latency CDF per load (log-scale ms axis) as a PNG: what share of events arrived within x ms."""
    import cv2
    import numpy as np

    w, h, m = 900, 480, 70
    img = np.full((h, w, 3), 255, np.uint8)
    lo, hi = 0.1, 10_000.0

    def x_of(ms: float) -> int:
        return int(m + (np.log10(min(max(ms, lo), hi)) - np.log10(lo)) / (np.log10(hi) - np.log10(lo)) * (w - 2 * m))

    def y_of(q: float) -> int:
        return int(h - m - q * (h - 2 * m))

    for ms in (0.1, 1, 10, 100, 1000, 10_000):
        cv2.line(img, (x_of(ms), m), (x_of(ms), h - m), (225, 225, 225), 1)
        cv2.putText(img, f"{ms:g} ms", (x_of(ms) - 25, h - m + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (60, 60, 60), 1)
    for q in (0, 0.5, 1):
        cv2.line(img, (m, y_of(q)), (w - m, y_of(q)), (225, 225, 225), 1)
        cv2.putText(img, f"{q:.0%}", (m - 45, y_of(q) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (60, 60, 60), 1)
    colours = [(200, 90, 20), (30, 30, 200)]
    for i, r in enumerate(results):
        lat = sorted(r["lat"])
        if not lat:
            continue
        pts = np.array([[x_of(v), y_of((k + 1) / len(lat))] for k, v in enumerate(lat)], np.int32)
        cv2.polylines(img, [pts], False, colours[i % 2], 2)
        label = f"{r['mode']}: median {r['median_ms']} ms, p99 {r['p99_ms']} ms ({r['events']} events)"
        cv2.putText(img, label, (m + 10, m - 30 + 22 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colours[i % 2], 1)
    cv2.putText(img, f"kiosk event -> MQTT subscriber, {results[0]['boards']} boards (share of events within x)",
                (m, 25), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1)
    cv2.imwrite(str(path), img)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", type=int, default=50)
    ap.add_argument("--interval", type=float, default=200.0, help="ms between a board's events (paced load)")
    ap.add_argument("--json", default="artifacts/stream/bench.json", help="where to write the figures")
    args = ap.parse_args()
    results = []
    with LocalBroker(persistence=False) as broker:
        for mode in ("paced", "burst"):
            print(f"{mode}: {args.boards} boards ...", file=sys.stderr)
            r = run(args.boards, args.interval, mode, broker.port, f"bench/{mode}")
            results.append(r)
            print(f"{mode:6s} boards={r['boards']} events={r['events']} received={r['received']} gaps={r['gaps']} "
                  f"median={r['median_ms']} ms p99={r['p99_ms']} ms max={r['max_ms']} ms ({r['seconds']} s)")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    png = out.with_suffix(".png")
    draw_cdf(results, png)
    for r in results:
        del r["lat"]
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out} and {png}", file=sys.stderr)
    return 0 if all(r["received"] == r["events"] and r["gaps"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
