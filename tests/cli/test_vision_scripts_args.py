"""The vision measuring scripts refuse bad arguments with a sentence naming the option or file, never a
traceback: ``scripts/bench_vision_speed.py --frames 0`` (a StatisticsError traceback), ``--real`` on a folder
that is no recording (KeyError 'default') or holds an unreadable frame; ``scripts/vision_failure_kinds.py
--kinds bogus`` (measured nothing and said nothing), ``--scenes 0``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORNERS = "[[5.0, 44.0], [908.0, 37.0], [910.0, 934.0], [21.0, 940.0]]"


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="dummy")
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)


def _recording(folder: Path, ini: str | None, frames: dict[str, bytes]) -> Path:
    folder.mkdir()
    if ini is not None:
        (folder / "game.ini").write_text(ini)
    for name, data in frames.items():
        (folder / name).write_bytes(data)
    return folder


def _png() -> bytes:
    import cv2
    import numpy as np

    return cv2.imencode(".png", np.full((40, 40, 3), 128, np.uint8))[1].tobytes()


@pytest.mark.parametrize("case", ["frames", "missing", "no-ini", "no-corners", "bad-corners", "one-frame", "corrupt"])
def test_bench_vision_speed_names_a_bad_argument(tmp_path, case):
    good = f"[default]\nwarp-coord = {CORNERS}\n"
    args, expect = {
        "frames": (["--frames", "0"], "--frames 0: at least 1"),
        "missing": (["--real", str(tmp_path / "nowhere")], "nowhere: not a folder"),
        "no-ini": (["--real", str(_recording(tmp_path / "r1", None, {}))], "game.ini: missing"),
        "no-corners": (["--real", str(_recording(tmp_path / "r2", "[default]\nname1 = A\n", {}))],
                       "game.ini: no [default] warp-coord"),
        "bad-corners": (["--real", str(_recording(tmp_path / "r3", "[default]\nwarp-coord = [[1, 2]]\n", {}))],
                        "warp-coord needs 4 points"),
        "one-frame": (["--real", str(_recording(tmp_path / "r4", good, {"image-1.jpg": _png()}))],
                      "1 frame image-N.jpg"),
        "corrupt": (["--real", str(_recording(tmp_path / "r5", good, {"image-1.jpg": _png(), "image-2.jpg": b"x" * 99}))],
                    "image-2.jpg: not a readable image"),
    }[case]
    p = _run("bench_vision_speed.py", *args)
    assert p.returncode == 2, p.stderr
    assert expect in p.stderr and "Traceback" not in p.stderr, p.stderr


@pytest.mark.parametrize(("args", "expect"), [
    (["--kinds", "bogus,hand"], "--kinds: unknown 'bogus' (known: exposure, ramp, hand, slide)"),
    (["--scenes", "0"], "--scenes must be at least 1"),
    (["--first", "-1"], "--first and --hand-first at least 0"),
])
def test_vision_failure_kinds_names_a_bad_argument(args, expect):
    p = _run("vision_failure_kinds.py", *args)
    assert p.returncode == 2, p.stderr
    assert expect in p.stderr and "Traceback" not in p.stderr, p.stderr
