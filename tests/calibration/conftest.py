"""pytest puts tests/ on sys.path (tests/conftest.py, no __init__.py files), where this folder's name would
make ``import calibration`` a namespace package of test files. Put the project root first so the project's
``calibration`` package is the one imported (see the report: ``pythonpath = ["."]`` in pyproject would fix it
for every folder)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
_mod = sys.modules.get("calibration")
if _mod is not None and getattr(_mod, "__file__", None) is None:  # a namespace package got there first
    for name in [n for n in sys.modules if n == "calibration" or n.startswith("calibration.")]:
        del sys.modules[name]
