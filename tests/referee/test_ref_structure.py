"""The referee's seams: every event has one handler, and nothing outside kiosk/referee imports its private names."""

from __future__ import annotations

import ast
from pathlib import Path

from kiosk.referee import referee  # noqa: F401  (imports the handler modules, which register)
from kiosk.referee.events import EVENT_TYPES, GameStarted
from kiosk.referee.model import HANDLERS, REFUSALS
from kiosk.referee.phase import ALLOWED

ROOT = Path(__file__).resolve().parents[2]


def test_ref_every_event_but_game_started_has_one_handler():
    assert set(HANDLERS) == set(EVENT_TYPES.values()) - {GameStarted}
    assert set(REFUSALS) <= set(ALLOWED)


def private_imports(path: Path) -> list[str]:
    """``from kiosk.referee... import _x`` and ``kiosk.referee.m._x`` in one file, as 'file:line name'."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kiosk.referee"):
            found += [f"{path}:{node.lineno} {a.name}" for a in node.names if a.name.startswith("_")]
            if any(part.startswith("_") for part in (node.module or "").split(".")):
                found.append(f"{path}:{node.lineno} {node.module}")
        if isinstance(node, ast.Import):
            found += [f"{path}:{node.lineno} {a.name}" for a in node.names
                      if a.name.startswith("kiosk.referee") and any(p.startswith("_") for p in a.name.split("."))]
    return found


def test_ref_no_private_name_is_imported_from_outside_the_referee():
    files = [p for d in ("kiosk", "calibration", "firmware_bridge", "tests", "scripts") for p in (ROOT / d).rglob("*.py")
             if not p.is_relative_to(ROOT / "kiosk" / "referee")]
    assert len(files) > 50
    assert [hit for p in files for hit in private_imports(p)] == []


def test_ref_the_private_import_check_finds_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from kiosk.referee.model import GameModel, _x\nimport kiosk.referee._hidden\n", encoding="utf-8")
    assert [h.split(" ")[1] for h in private_imports(bad)] == ["_x", "kiosk.referee._hidden"]
