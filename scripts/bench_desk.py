#!/usr/bin/env python3
"""Benchmark of the tournament desk: N simulated kiosks against one real Mosquitto with passwords and ACLs.

Two rounds, each of N corpus games (``kiosk stream-game --board B`` per table, all in parallel; every kiosk
has its own broker user that may write only its own board's topics, kiosk.desk.acl):

1. a clean round: ``/results.json`` must end with N results, each final equal to its GCG record (MANIFEST.tsv);
   the tsh export (a copy of the division's .t file with the rounds merged) must pair each player with the
   right opponent and score; the desk page in headless Chromium must show N tables, and the delay from each
   kiosk event (its ``ts``) to the page (``window.deskLatency``) is measured (bar: p99 <= 1000 ms);
2. the same with faults: the broker restarted mid-round (down ``--down`` s), ``--kill`` kiosks killed
   (SIGKILL) and restarted - they re-publish their game from event 1, as a kiosk restarted from its journal
   does - and ``--malformed`` bad messages injected with kiosks' own credentials: still exactly N results in
   the round, each once, and every bad message counted by the desk (a changed copy of a game's start sent as
   another kiosk run is no bad message: the desk keeps it as the game's other version, one each, and they are
   counted apart).

The desk runs as its own process (``kiosk desk``; ``--pin``: on one core); its CPU time (as a share of one
core) and memory over each round are read from /proc, with a linear line for 200 tables. The page delay is
split into kiosk event -> desk receipt (on one machine: the simulated kiosks' own queues, which 50 Python
processes on 2 cores make long) and desk receipt -> page (the desk's part). Players of every game are renamed with the
table (``doug Table-G``) in a temporary copy of the record, so that no player sits at two tables.

Usage: .venv/bin/python scripts/bench_desk.py [--n 50] [--pace 0.3] [--json artifacts/desk/bench.json]
Exit 0 when the correctness bars hold (results, tsh, exactly once, bad messages counted), 1 otherwise; the
latency bar is reported, not enforced. Needs mosquitto, chromium and chromium-driver (Debian) and selenium.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from kiosk.desk.acl import acl_text, broker_lines, kiosk_user, password_file  # noqa: E402
from kiosk.desk.tsh import PlayerLine, parse_t  # noqa: E402
from kiosk.referee.records import RecordEventsError, events_from_gcg  # noqa: E402
from kiosk.referee.referee import Referee  # noqa: E402
from kiosk.stream.broker import LocalBroker, free_port  # noqa: E402
from kiosk.stream.envelope import encode, envelope  # noqa: E402

SHARED = (PROJECT / ".." / "shared").resolve()
CORPUS = SHARED / "corpus" / "gcg"
TOPIC_ROOT = "scrabble/bench"
DESK_PW = "desk-bench-pw"


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def percentile(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


# ------------------------------------------------------------------------------------------ games
def pick_games(n: int) -> list[tuple[Path, tuple[int, ...], int]]:
    """N complete corpus games the naspa referee takes to their recorded final: (path, final, events)."""
    out = []
    for line in (CORPUS / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        m = re.search(r"final=(\S+)", line)
        if "complete;" not in line or not m or not cols[0].startswith("real/"):
            continue
        record = tuple(int(x.rsplit(":", 1)[1]) for x in m.group(1).split("/"))
        try:
            evs = events_from_gcg(CORPUS / cols[0])
        except (RecordEventsError, OSError):
            continue
        st = Referee.from_events(evs).state
        if len(st.players) == 2 and st.result is not None and tuple(st.result.final) == record:
            out.append((CORPUS / cols[0], record, len(evs)))
        if len(out) == n:
            return out
    raise SystemExit(f"only {len(out)} corpus games referee to their recorded final; --n {n} is too many")


def letters(n: int) -> str:
    """1 -> 'A', 26 -> 'Z', 27 -> 'AA' (tsh names hold no digits)."""
    out = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def tagged_copy(src: Path, dst: Path, board: int, rnd: int) -> tuple[str, str]:
    """Copy a record with its players renamed 'NAME Table-X' (X: the board in letters, tsh names hold no digits)
    and '#id bench-r{rnd}-b{board}'; returns the two names."""
    lines = src.read_bytes().decode("utf-8", errors="replace").splitlines()
    out, names = [], []
    for ln in lines:
        if ln.startswith("#id"):
            continue
        m = re.match(r"#player([12])\s+(\S+)\s*(.*)$", ln)
        if m:
            name = re.sub(r"\d", "", m.group(3).strip() or m.group(2)).strip() + f" Table-{letters(board)}"
            names.append(name)
            ln = f"#player{m.group(1)} {m.group(2)} {name}"
        out.append(ln)
    out.insert(0, f"#id bench-r{rnd}-b{board}")
    dst.write_text("\n".join(out) + "\n", encoding="utf-8")
    return names[0], names[1]


def write_event(folder: Path, boards: dict[int, tuple[str, str]], rounds: int) -> dict[str, int]:
    """event.toml (one division, the same pairing every round: rematches) and a .t file; name -> tsh number."""
    numbers: dict[str, int] = {}
    players = []
    for b in sorted(boards):
        for name in boards[b]:
            numbers[name] = len(numbers) + 1
            players.append(f'  {{ name = "{name}", rating = {1000 + numbers[name]} }},')
    pairs = "".join(f'[[pairing]]\nround = {r}\nboard = {b}\nplayers = ["{p}", "{q}"]\n'
                    for r in range(1, rounds + 1) for b, (p, q) in sorted(boards.items()))
    (folder / "event.toml").write_text(f'name = "Desk Bench"\nrounds = {rounds}\n[[division]]\nname = "A"\n'
                                       f'tfile = "a.t"\nplayers = [\n' + "\n".join(players) + f"\n]\n{pairs}",
                                       encoding="utf-8")
    (folder / "a.t").write_text("".join(f"{n} {1000 + i}\n" for n, i in numbers.items()), encoding="utf-8")
    return numbers


# ------------------------------------------------------------------------------------------ processes
def proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_mem_mb(pid: int) -> tuple[float, float]:
    text = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", text).group(1)) / 1024
    hwm = int(re.search(r"VmHWM:\s+(\d+)", text).group(1)) / 1024
    return rss, hwm


def start_kiosk(gcg: Path, board: int, port: int, pace: float) -> subprocess.Popen:
    env = {**os.environ, "KIOSK_MQTT_PASSWORD": f"{kiosk_user(board)}-pw"}
    return subprocess.Popen([sys.executable, "-m", "kiosk.cli", "stream-game", str(gcg), "--mqtt", f"127.0.0.1:{port}",
                             "--board", str(board), "--root", TOPIC_ROOT, "--pace", str(pace), "--timeout", "240",
                             "--username", kiosk_user(board)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=env, cwd=PROJECT)


def get_json(url: str, tries: int = 3):
    """GET a JSON document; on a machine this loaded a request may time out: try again."""
    for i in range(tries):
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                return json.loads(r.read())
        except (TimeoutError, urllib.error.URLError) as exc:
            log(f"{url}: {exc} (try {i + 1} of {tries})")
            if i == tries - 1:
                raise
            time.sleep(1)


def chrome():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
    profile = tempfile.mkdtemp(prefix="desk-bench-chromium-")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage", "--window-size=1600,1000", f"--user-data-dir={profile}"):
        opts.add_argument(a)
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(driver_path), options=opts), profile


# ------------------------------------------------------------------------------------------ checks
def check_round(rows: list[dict], rnd: int, expect: dict[int, tuple[tuple[str, str], tuple[int, ...]]]) -> list[str]:
    """Problems with round ``rnd``'s results (empty: N results, each once, each final equal to its record)."""
    got = [r for r in rows if r["round"] == rnd]
    problems = []
    ids = [(r["board"], r["game_id"]) for r in got]
    if len(set(ids)) != len(ids):
        problems.append(f"round {rnd}: a game is listed twice")
    boards = sorted(r["board"] for r in got)
    if boards != sorted(expect):
        problems.append(f"round {rnd}: results for boards {boards}, expected {sorted(expect)}")
    for r in got:
        names, final = expect.get(r["board"], ((), ()))
        if tuple(p["name"] for p in r["players"]) != names or tuple(p["score"] for p in r["players"]) != final:
            problems.append(f"round {rnd} board {r['board']}: {r['players']} != {names} {final}")
    return problems


def check_tsh(text: str, numbers: dict[str, int], rounds: dict[int, dict[int, tuple[tuple[str, str], tuple[int, ...]]]]
              ) -> tuple[int, list[str]]:
    lines = [x for x in parse_t(text, "export") if isinstance(x, PlayerLine)]
    problems, checked = [], 0
    for rnd, games in rounds.items():
        for (a, b), (sa, sb) in games.values():
            for me, opp, score in ((a, b, sa), (b, a, sb)):
                pl = lines[numbers[me] - 1]
                ok = (pl.name == me and len(pl.opponents) >= rnd and pl.opponents[rnd - 1] == numbers[opp]
                      and len(pl.scores) >= rnd and pl.scores[rnd - 1] == score)
                checked += 1
                if not ok:
                    problems.append(f"tsh round {rnd}: {me}: {pl.render()}")
    return checked, problems


def versions_kept(url: str, boards: list[int]) -> int:
    """How many other versions of games the desk kept in all (every table's ``/versions/N.json``)."""
    return sum(len(get_json(url + f"versions/{b}.json")) for b in boards)


def malformed(i: int, board: int, gcg_events: list[dict], game_id: str) -> tuple[str, bytes]:
    """The i-th bad message, sent with board ``board``'s own credentials (the ACL lets it through)."""
    base = f"{TOPIC_ROOT}/judge/board/{board}"
    good = envelope("event", "judge", game_id=game_id, board=board, boot="x", n=1, seq=1, ts=int(time.time() * 1000),
                    event=gcg_events[0])
    kinds = [
        (f"{base}/event/play", b"{this is not json"),
        (f"{base}/event/play", b"[1, 2, 3]"),
        (f"{base}/event/play", json.dumps({**good, "kind": "snapshot"}).encode()),
        (f"{base}/event/game_started", json.dumps({**good, "board": board + 1000}).encode()),   # forged
        (f"{base}/event/game_started", json.dumps({**good, "seq": "one"}).encode()),
        (f"{base}/event/pass", encode(good)),                                                   # type != topic
        (f"{base}/event/play", b"{" + b" " * 70_000 + b"}"),
        (f"{base}/tick", json.dumps({**good, "kind": "tick"}).encode()),                        # no clock
        # another kiosk run's version of the game (a run of its own each: one version each), kept as such
        (f"{base}/event/game_started", encode({**good, "boot": f"x{i}", "event": {**gcg_events[0], "t": 7}})),
        (f"{base}/flags", json.dumps({"judge_called": "yes"}).encode()),
    ]
    return kinds[i % len(kinds)]


# ------------------------------------------------------------------------------------------ run
def run(args: argparse.Namespace) -> dict:
    import paho.mqtt.client as mqtt

    work = Path(tempfile.mkdtemp(prefix="desk-bench-"))
    games = pick_games(args.n)
    boards = list(range(1, args.n + 1))
    names: dict[int, tuple[str, str]] = {}
    copies: dict[tuple[int, int], Path] = {}
    for rnd in (1, 2):
        for b, (path, _, _) in zip(boards, games):
            copies[(rnd, b)] = work / f"r{rnd}b{b}.gcg"
            names[b] = tagged_copy(path, copies[(rnd, b)], b, rnd)
    expect = {b: (names[b], final) for b, (_, final, _) in zip(boards, games)}
    total_events = sum(n for _, _, n in games)
    event_dir = work / "event"
    event_dir.mkdir()
    numbers = write_event(event_dir, names, 2)
    t_original = (event_dir / "a.t").read_text()
    users = {"desk": DESK_PW, "public": "public-pw", **{kiosk_user(b): f"{kiosk_user(b)}-pw" for b in boards}}
    (work / "acl").write_text(acl_text(TOPIC_ROOT, boards))
    password_file(work / "passwd", users)
    broker = LocalBroker(extra=broker_lines(work / "passwd", work / "acl")).start()
    http = free_port()
    core = max(os.sched_getaffinity(0))
    desk = subprocess.Popen([sys.executable, "-m", "kiosk.cli", "desk", "--mqtt", f"127.0.0.1:{broker.port}",
                             "--username", "desk", "--password-env", "BENCH_DESK_PW", "--root", TOPIC_ROOT,
                             "--http", f"127.0.0.1:{http}", "--event", str(event_dir), "--client-id", "bench-desk"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT,
                            env={**os.environ, "BENCH_DESK_PW": DESK_PW, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=(lambda: os.sched_setaffinity(0, {core})) if args.pin else None)
    url = f"http://127.0.0.1:{http}/"
    report: dict = {"n": args.n, "pace_s": args.pace, "events_per_round": total_events,
                    "desk_core": core if args.pin else None}
    driver = profile = None
    kiosks: list[subprocess.Popen] = []
    problems: list[str] = []
    try:
        line = desk.stdout.readline()
        if not line.startswith("desk:"):
            raise SystemExit(f"the desk did not start: {line} {desk.stderr.read()[:2000]}")
        log(line.strip())
        driver, profile = chrome()
        driver.get(url)
        deadline = time.monotonic() + 30
        while not driver.execute_script("return window.deskReady === true") and time.monotonic() < deadline:
            time.sleep(0.1)
        report["desk_rss_mb_idle"] = proc_mem_mb(desk.pid)[0]

        for rnd in (1, 2):
            faults = rnd == 2
            cpu0, t0 = proc_cpu_s(desk.pid), time.monotonic()
            driver.execute_script("window.deskLatency = []; window.deskLatencyDesk = []")
            log(f"round {rnd}: starting {args.n} kiosks" + (" (with faults)" if faults else ""))
            kiosks = [start_kiosk(copies[(rnd, b)], b, broker.port, args.pace) for b in boards]
            fault_log: list[str] = []
            steady_from = None
            if not faults:   # the delay once every kiosk process has started and published its game's start
                end = time.monotonic() + 300
                while time.monotonic() < end:
                    tiles = get_json(url + "state.json")["tiles"]
                    if sum(str(t.get("game_id") or "").startswith(f"bench-r{rnd}-") for t in tiles) >= args.n:
                        steady_from = driver.execute_script("return window.deskLatency.length")
                        report["all_kiosks_started_s"] = round(time.monotonic() - t0, 1)
                        break
                    time.sleep(0.5)
            if faults:
                fault_log = inject_faults(args, broker, kiosks, boards, copies, games, url, mqtt)
            rcs = [k.wait(timeout=600) for k in kiosks]
            bad_rc = [(b, rc, k.stderr.read()[-300:]) for b, k, rc in zip(boards, kiosks, rcs) if rc != 0]
            deadline = time.monotonic() + 120
            rows: list[dict] = []
            while time.monotonic() < deadline:
                rows = get_json(url + "results.json")
                if sum(r["round"] == rnd for r in rows) >= args.n:
                    break
                time.sleep(0.25)
            wall = time.monotonic() - t0
            time.sleep(1.5)                      # let the page take the last pushes
            cpu = proc_cpu_s(desk.pid) - cpu0
            rss, hwm = proc_mem_mb(desk.pid)
            rows = get_json(url + "results.json")
            p = check_round(rows, rnd, expect)
            if bad_rc:
                p.append(f"round {rnd}: kiosks exited non-zero: {bad_rc[:3]}")
            problems += p
            if faults:                           # every injected bad message reaches the desk's count
                end = time.monotonic() + 15
                while get_json(url + "state.json")["status"]["refused_total"] + versions_kept(url, boards) < \
                        args.malformed and time.monotonic() < end:
                    time.sleep(0.2)
            lat = driver.execute_script("return window.deskLatency.slice()")
            lat_desk = driver.execute_script("return window.deskLatencyDesk.slice()")
            tiles = driver.execute_script("return document.querySelectorAll('.tile').length")
            over = driver.execute_script("return document.querySelectorAll('.tile.over').length")
            state = get_json(url + "state.json")
            shot = Path(args.json).parent / f"bench_page_n{args.n}_round{rnd}.png"
            shot.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(shot))
            r = {"results": sum(x["round"] == rnd for x in rows), "problems": p, "wall_s": round(wall, 1),
                 "desk_cpu_s": round(cpu, 2), "desk_cpu_share_of_core": round(cpu / wall, 3),
                 "desk_cpu_ms_per_event": round(1000 * cpu / total_events, 3),
                 "desk_rss_mb": round(rss, 1), "desk_peak_rss_mb": round(hwm, 1),
                 "page_tables": tiles, "page_finished": over, "latency_n": len(lat),
                 "latency_p50_ms": percentile(lat, 50), "latency_p99_ms": percentile(lat, 99),
                 "latency_max_ms": max(lat) if lat else None,
                 "steady_latency_n": len(lat) - steady_from if steady_from is not None else None,
                 "steady_latency_p50_ms": percentile(lat[steady_from:], 50) if steady_from is not None else None,
                 "steady_latency_p99_ms": percentile(lat[steady_from:], 99) if steady_from is not None else None,
                 "desk_to_page_p50_ms": percentile(lat_desk, 50), "desk_to_page_p99_ms": percentile(lat_desk, 99),
                 "desk_to_page_max_ms": max(lat_desk) if lat_desk else None,
                 "kiosk_to_desk_ms": state["status"].get("kiosk_to_desk_ms"),
                 "refused_total": state["status"]["refused_total"], "duplicates": state["status"]["duplicates"],
                 "refused_by_kind": {k: v["count"] for k, v in state["status"]["refused"].items()},
                 "versions_kept": versions_kept(url, boards),
                 "desk_ingest": state["status"].get("ingest"), "push_lag_max_ms": state["status"].get("push_lag_max_ms"),
                 "faults": fault_log}
            report[f"round{rnd}"] = r
            log(f"round {rnd}: {r['results']}/{args.n} results in {wall:.1f} s, page {tiles} tables, latency p99 "
                f"{r['latency_p99_ms']} ms (n={len(lat)}), desk CPU {cpu:.1f} s, RSS {rss:.0f} MB")
        r2 = report["round2"]
        if r2["refused_total"] + r2["versions_kept"] != args.malformed:
            problems.append(f"the desk counted {r2['refused_total']} bad messages and kept {r2['versions_kept']} "
                            f"other versions of games, {args.malformed} were injected")
        try:
            tsh = urllib.request.urlopen(url + "tsh/A.t", timeout=60).read().decode()
            checked, p = check_tsh(tsh, numbers, {1: expect, 2: expect})
        except urllib.error.HTTPError as exc:
            checked, p = 0, [f"tsh export refused: {exc.code} {exc.read().decode()[:300]}"]
        problems += p
        if (event_dir / "a.t").read_text() != t_original:
            problems.append("the director's a.t was changed")
        report["tsh_lines_checked"] = checked
        report["tsh_problems"] = p
        all_rows = get_json(url + "results.json")
        report["results_total"] = len(all_rows)
        report["results_unique"] = len({(r["board"], r["game_id"]) for r in all_rows})
        r1 = report["round1"]
        per_table_mb = max(0.0, (r1["desk_rss_mb"] - report["desk_rss_mb_idle"]) / args.n)
        report["line_200_tables"] = {
            "desk_cpu_s_per_round": round(r1["desk_cpu_s"] * 200 / args.n, 1),
            "desk_rss_mb": round(report["desk_rss_mb_idle"] + per_table_mb * 200, 1),
            "core_share_at_this_pace": round(r1["desk_cpu_share_of_core"] * 200 / args.n, 2),
            "events_per_s_one_core": round(1000 / r1["desk_cpu_ms_per_event"]) if r1["desk_cpu_ms_per_event"] else None,
        }
    finally:
        for k in kiosks:
            if k.poll() is None:
                k.kill()
        if driver is not None:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)
        desk.send_signal(signal.SIGTERM)
        try:
            desk.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            desk.kill()
        broker.close()
        shutil.rmtree(work, ignore_errors=True)
    report["problems"] = problems
    return report


def inject_faults(args, broker, kiosks, boards, copies, games, url, mqtt) -> list[str]:
    """Broker restart, kiosks killed and restarted, malformed messages - spread over the round's expected time."""
    expected = args.pace * (sum(n for _, _, n in games) / len(games)) + 3.0
    done: list[str] = []
    t0 = time.monotonic()

    def at(frac: float) -> None:
        time.sleep(max(0.0, t0 + frac * expected - time.monotonic()))

    def running() -> int:
        return sum(k.poll() is None for k in kiosks)

    at(0.3)
    log(f"faults: broker restart ({args.down} s down) with {running()} kiosks playing")
    done.append(f"broker restarted at {time.monotonic() - t0:.1f} s with {running()} kiosks playing, "
                f"down {args.down} s")
    broker.restart(down_s=args.down)
    at(0.55)
    victims = boards[: args.kill]
    playing = sum(kiosks[b - 1].poll() is None for b in victims)
    for b in victims:
        kiosks[b - 1].send_signal(signal.SIGKILL)
    for b in victims:
        kiosks[b - 1].wait()
    time.sleep(1.0)
    for b in victims:
        kiosks[b - 1] = start_kiosk(copies[(2, b)], b, broker.port, args.pace)
    done.append(f"{len(victims)} kiosks killed at {time.monotonic() - t0:.1f} s ({playing} of them mid-game) and "
                "restarted (re-publish from event 1)")
    at(0.7)
    # a changed copy of a game's first event (boot 'x': another kiosk run streaming the game again) is counted
    # as streamed_again only once the real one is in: wait for every game's start
    # (a kiosk's own credentials can otherwise start its game first - the desk cannot tell that from the kiosk)
    end = time.monotonic() + 300
    while time.monotonic() < end and sum(str(t.get("game_id") or "").startswith("bench-r2-") for t in
                                         get_json(url + "state.json")["tiles"]) < len(boards):
        time.sleep(0.5)
    done.append(f"{running()} kiosks playing when the malformed messages start")
    clients = {}
    infos = []
    for i in range(args.malformed):
        b = boards[i % len(boards)]
        if b not in clients:
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-bad-{b}")
            c.username_pw_set(kiosk_user(b), f"{kiosk_user(b)}-pw")
            c.connect("127.0.0.1", broker.port)
            c.loop_start()
            clients[b] = c
        evs = [e.to_dict() for e in events_from_gcg(copies[(2, b)])[:1]]
        topic, payload = malformed(i, b, evs, f"bench-r2-b{b}")
        info = clients[b].publish(topic, payload, qos=1)
        infos.append(info)
    end = time.monotonic() + 30
    for info in infos:
        try:
            info.wait_for_publish(max(0.1, end - time.monotonic()))
        except (RuntimeError, ValueError):
            pass
    acked = sum(i.is_published() for i in infos)
    for c in clients.values():
        c.loop_stop()
        c.disconnect()
    done.append(f"{args.malformed} malformed messages injected at {time.monotonic() - t0:.1f} s "
                f"({acked} acknowledged by the broker)")
    if acked != args.malformed:
        done.append(f"PROBLEM: the broker acknowledged only {acked} of the {args.malformed} bad messages")
    return done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=50, help="tables (kiosks) per round (default 50)")
    ap.add_argument("--pace", type=float, default=0.3, help="seconds between a kiosk's events (default 0.3)")
    ap.add_argument("--kill", type=int, default=5, help="kiosks killed and restarted in round 2 (default 5)")
    ap.add_argument("--malformed", type=int, default=100, help="bad messages injected in round 2 (default 100)")
    ap.add_argument("--down", type=float, default=2.0, help="seconds the broker stays down (default 2)")
    ap.add_argument("--pin", action="store_true",
                    help="pin the desk to one core (on a loaded machine this adds the core's queue to the delay)")
    ap.add_argument("--json", default=str(PROJECT / "artifacts" / "desk" / "bench.json"), help="figures file")
    args = ap.parse_args()
    if args.n < 1 or not 0 <= args.kill <= args.n or args.malformed < 0 or args.pace < 0:
        print("error: need --n >= 1, 0 <= --kill <= --n, --malformed >= 0, --pace >= 0", file=sys.stderr)
        return 2
    if not CORPUS.is_dir():
        print(f"error: {CORPUS}: the shared corpus is missing", file=sys.stderr)
        return 2
    rep = run(args)
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rep, indent=1) + "\n")
    r1, r2, line = rep["round1"], rep["round2"], rep["line_200_tables"]
    print(f"desk bench: {args.n} tables x 2 rounds, {rep['events_per_round']} events per round, pace {args.pace} s")
    print(f"  round 1 results: {r1['results']}/{args.n}, finals equal to the records: {not r1['problems']}")
    print(f"  tsh export: {rep['tsh_lines_checked']} player-rounds checked (opponent and score), "
          f"problems: {len(rep['tsh_problems'])}")
    print(f"  page: {r1['page_tables']} tables shown; update delay kiosk event -> page: p50 {r1['latency_p50_ms']} ms, "
          f"p99 {r1['latency_p99_ms']} ms, max {r1['latency_max_ms']} ms over {r1['latency_n']} updates "
          f"(bar p99 <= 1000 ms: {'met' if r1['latency_p99_ms'] <= 1000 else 'NOT met'})")
    print(f"    after every kiosk process had started ({rep.get('all_kiosks_started_s')} s into the round): "
          f"p50 {r1['steady_latency_p50_ms']} ms, p99 {r1['steady_latency_p99_ms']} ms over "
          f"{r1['steady_latency_n']} updates")
    kd = r1["kiosk_to_desk_ms"] or {}
    print(f"    of which the desk's own part (its receipt of the event -> page): p50 {r1['desk_to_page_p50_ms']} ms, "
          f"p99 {r1['desk_to_page_p99_ms']} ms, max {r1['desk_to_page_max_ms']} ms; kiosk event -> desk receipt "
          f"(the simulated kiosks' own queues and the broker): p50 {kd.get('p50')} ms, p99 {kd.get('p99')} ms")
    print(f"  faults ({'; '.join(r2['faults'])}): round 2 results {r2['results']}/{args.n}, each once: "
          f"{not r2['problems']}; all rounds {rep['results_total']} results, {rep['results_unique']} distinct; "
          f"bad messages counted {r2['refused_total']}/{args.malformed} {r2['refused_by_kind']}, other versions of "
          f"games kept {r2['versions_kept']}; page p99 {r2['latency_p99_ms']} ms "
          f"(includes the outage)")
    print(f"  desk{' (pinned to one core)' if args.pin else ''}: round 1 {r1['desk_cpu_s']} s CPU over {r1['wall_s']} s "
          f"({100 * r1['desk_cpu_share_of_core']:.0f}% of the core, {r1['desk_cpu_ms_per_event']} ms/event), "
          f"RSS {r1['desk_rss_mb']} MB (idle {rep['desk_rss_mb_idle']:.1f}, peak {r2['desk_peak_rss_mb']})")
    print(f"  200 tables (linear from {args.n}): {line['desk_cpu_s_per_round']} s CPU per round at this pace, "
          f"RSS about {line['desk_rss_mb']} MB; one core folds about {line['events_per_s_one_core']} events/s")
    for p in rep["problems"]:
        print(f"  PROBLEM: {p}")
    return 1 if rep["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
