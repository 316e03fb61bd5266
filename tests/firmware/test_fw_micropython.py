"""The firmware is MicroPython: every module compiles with MicroPython's own compiler (mpy-cross, for the
RP2040's Cortex-M0+), and imports only modules that exist on the board."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware"
MODULES = sorted(p for p in FIRMWARE.glob("*.py"))
ON_BOARD = {"os", "struct", "sys", "time", "machine", "micropython", "select", "proto", "link", "debounce", "app"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(tmp_path / "out.mpy"),
                          str(path)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr + res.stdout
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_mpy_cross_rejects_what_micropython_lacks(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    match x:\n        case 1:\n            return 2\n")
    res = subprocess.run([sys.executable, "-m", "mpy_cross", str(bad)], capture_output=True, text=True, timeout=60)
    assert res.returncode != 0


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_imports_only_what_the_board_has(path: Path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("firmware_bridge"):
            # the CPython path, taken inside try/except ImportError
            continue
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        for name in names:
            assert name.split(".")[0] in ON_BOARD, f"{path.name} imports {name}, which MicroPython on the RP2040 lacks"
