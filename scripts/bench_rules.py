#!/usr/bin/env python3
"""Benchmark the rules core (issue 2's speed bars). Prints figures; asserts nothing.

    .venv/bin/python scripts/bench_rules.py [--shared ../shared] [--rounds 5]

* replay throughput: every English game of ../shared/corpus/gcg/{real,selfplay} read, parsed and replayed
  (each tile-placing move scored from the board), in scored moves per second (bar: >= 20,000);
* lexicon: a 280,000-word list (ENABLE plus generated words) compiled (bar < 10 s); the compiled file loaded
  in a fresh process (bar < 0.3 s) and that process's RSS (bar < 40 MB); one lookup (bar < 5 us).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kiosk.lexicons import compile_word_list  # noqa: E402
from kiosk.rules.gcg import decode_gcg, parse_gcg  # noqa: E402
from kiosk.rules.lexicon import enable_word_list_path  # noqa: E402
from kiosk.rules.replay import replay_game  # noqa: E402

LOAD_PROBE = r"""
import sys, time, random
t0 = time.perf_counter()
from kiosk.lexicons import load_lexicon
lex = load_lexicon(sys.argv[1])
t_load = time.perf_counter() - t0
words = sys.argv[2].split(",")
t0 = time.perf_counter()
n = 0
for _ in range(50):
    for w in words:
        n += w in lex
t_look = (time.perf_counter() - t0) / (50 * len(words))
rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:")) / 1024
print(t_load, t_look, rss, n)
"""


def english_texts(shared: Path) -> list[tuple[str, str]]:
    out = []
    for sub in ("real", "selfplay"):
        for f in sorted((shared / "corpus" / "gcg" / sub).glob("*.gcg")):
            text, _, _ = decode_gcg(f.read_bytes(), f.name)
            if all(tok.isascii() for ln in text.splitlines() if ln.startswith(">") for tok in ln.split()[1:]):
                out.append((f.name, text))
    return out


def bench_replay(shared: Path, rounds: int) -> None:
    texts = english_texts(shared)
    rates = []
    for r in range(rounds):
        t0 = time.process_time()  # CPU time of this process: other work on the machine does not count
        moves = 0
        for name, text in texts:
            moves += replay_game(parse_gcg(text, name)).moves
        dt = time.process_time() - t0
        rates.append(moves / dt)
        print(f"  round {r + 1}/{rounds}: {moves} moves in {dt * 1000:.0f} ms", file=sys.stderr)
    print(f"replay: {len(texts)} games, {moves} scored moves; median {statistics.median(rates):,.0f} moves/s, "
          f"best {max(rates):,.0f} moves/s (parse + replay, CPU time on one core; bar >= 20,000)")


def bench_lexicon() -> None:
    words = [w.upper() for w in json.loads(enable_word_list_path().read_text())]
    rng = random.Random(7)
    have = set(words)
    while len(words) < 280_000:
        w = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rng.randint(2, 15)))
        if w not in have:
            have.add(w)
            words.append(w)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "list280k.txt"
        src.write_text("\n".join(words) + "\n", encoding="utf-8")
        out = Path(tmp) / "list280k.marisa"
        t0 = time.perf_counter()
        compile_word_list(src, out, "BENCH")
        t_compile = time.perf_counter() - t0
        probe = ",".join(rng.sample(words, 500) + ["QZXJ", "AAAAB", "SCRABBLEX"] * 100)
        loads, looks, rss = [], [], []
        for _ in range(5):
            res = subprocess.run([sys.executable, "-c", LOAD_PROBE, str(out), probe], capture_output=True, text=True,
                                 cwd=ROOT, check=True)
            a, b, c, _ = res.stdout.split()
            loads.append(float(a))
            looks.append(float(b))
            rss.append(float(c))
        print(f"lexicon: {len(words):,} words compiled in {t_compile:.2f} s (bar < 10 s); file {out.stat().st_size / 1e6:.1f} MB")
        print(f"lexicon: load {statistics.median(loads) * 1000:.1f} ms (bar < 300 ms); process RSS after load "
              f"{statistics.median(rss):.1f} MB (bar < 40 MB); lookup {statistics.median(looks) * 1e6:.2f} us (bar < 5 us)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT / ".." / "shared"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    shared = Path(args.shared)
    if shared.is_dir():
        bench_replay(shared, args.rounds)
    else:
        print(f"replay: skipped, {shared} is absent")
    bench_lexicon()


if __name__ == "__main__":
    main()
