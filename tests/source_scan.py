"""A source scan of the project's packages (kiosk, calibration, firmware_bridge) for calls of one kind: each one
found is named by file, line and enclosing function, unless a table says why it may stay. Kept so by it: every
write goes through the one atomic writer (``tests/test_files_writers.py``), every text file a person gives is read
by the one reader (``tests/test_files_bom.py``).

Import as ``from source_scan import calls, strays`` (``tests/`` is on ``sys.path`` through its conftest)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kiosk", "calibration", "firmware_bridge")


def call_name(call: ast.Call) -> str:
    """The called name: ``f`` of ``f(...)`` and of ``x.f(...)``."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def open_mode(call: ast.Call) -> str | None:
    """The mode of an ``open(path, MODE)``, ``x.open(MODE)`` or ``os.fdopen(fd, MODE)`` call: ``"r"`` when none is
    given, None when it is no string written there."""
    given = call.args[1:2] if isinstance(call.func, ast.Name) or call_name(call) == "fdopen" else call.args[:1]
    mode = [*given, *(k.value for k in call.keywords if k.arg == "mode")][:1]
    if not mode:
        return "r"
    return mode[0].value if isinstance(mode[0], ast.Constant) and isinstance(mode[0].value, str) else None


def calls(path: Path, matches: Callable[[ast.Call], bool], guards: Collection[str] = ()) -> list[tuple[int, str, str]]:
    """(line, enclosing function, called name) of each call in the file ``path`` that ``matches``, but those inside
    a ``with GUARD(...)`` block (``guards``: the called names that make a block safe, e.g. ``replacing``)."""
    found: list[tuple[int, str, str]] = []

    def visit(node: ast.AST, func: str, guarded: bool) -> None:
        if isinstance(node, (ast.With, ast.AsyncWith)):
            guarded = guarded or any(isinstance(i.context_expr, ast.Call) and call_name(i.context_expr) in guards
                                     for i in node.items)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node.name
        elif isinstance(node, ast.Call) and not guarded and matches(node):
            found.append((node.lineno, func, call_name(node)))
        for child in ast.iter_child_nodes(node):
            visit(child, func, guarded)

    visit(ast.parse(path.read_text(encoding="utf-8")), "<module>", False)
    return found


def strays(matches: Callable[[ast.Call], bool], allowed: Mapping[tuple[str, str], str],
           guards: Collection[str] = ()) -> list[str]:
    """``FILE:LINE FUNCTION(): CALL`` of each call :func:`calls` finds in :data:`PACKAGES` whose (file, function)
    ``allowed`` does not list (its values: why each may stay)."""
    out: list[str] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            out += [f"{rel}:{line} {func}(): {call}" for line, func, call in calls(path, matches, guards)
                    if (rel, func) not in allowed]
    return out
