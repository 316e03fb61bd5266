"""scripts/bench_desk.py at a small scale: 4 kiosks against Mosquitto with ACLs, two rounds, the second with the
broker restarted, a kiosk killed and restarted and 20 bad messages injected. The figures at N=50 are in
docs/desk.md; this run checks the bench and the desk's correctness bars, not the speed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.stream.broker import mosquitto_path
from shared_data import needs_shared

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_desk.py"


@needs_shared
def test_bench_desk_small_n_meets_the_correctness_bars(tmp_path):
    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, str(SCRIPT), "--n", "4", "--pace", "0.25", "--kill", "2", "--malformed", "20",
                        "--down", "1.5", "--json", str(out)], capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    rep = json.loads(out.read_text())
    assert rep["problems"] == []
    assert rep["round1"]["results"] == rep["round2"]["results"] == 4
    assert rep["results_total"] == rep["results_unique"] == 8
    assert rep["tsh_lines_checked"] == 16
    assert rep["round1"]["page_tables"] == 4 and rep["round1"]["latency_n"] > 10
    # of the 20, 2 are another kiosk run's changed copy of a game's start: kept as those games' other versions
    assert (rep["round2"]["refused_total"], rep["round2"]["versions_kept"]) == (18, 2)
    assert "with 4 kiosks playing" in rep["round2"]["faults"][0]        # the broker went down mid-round
    assert "(2 of them mid-game)" in rep["round2"]["faults"][1]
    assert "bar p99 <= 1000 ms" in r.stdout and "200 tables" in r.stdout
