"""Structure bars: import cycles (counting imports inside functions and under ``TYPE_CHECKING``) among the
project's modules and among its packages, files over a line limit and functions over a line limit.

    .venv/bin/python scripts/check_structure.py                      # cycles in kiosk, calibration, firmware_bridge
    .venv/bin/python scripts/check_structure.py --size kiosk/app kiosk/ui   # plus the size bars for these folders

Exit 1 when anything is over a bar. A package's modules are its folder's ``.py`` files (``kiosk.vision.train``
belongs to ``kiosk.vision``, ``kiosk.vision.synth.render`` to ``kiosk.vision.synth``); the package graph joins
every module edge between two packages.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kiosk", "calibration", "firmware_bridge")
MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 60


def module_name(path: Path, root: Path = ROOT) -> str:
    """``kiosk/ui/app.py`` -> ``kiosk.ui.app``; ``kiosk/ui/__init__.py`` -> ``kiosk.ui``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``: dotted name -> file."""
    out: dict[str, Path] = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            out[module_name(path, root)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports anywhere in its file (``from P import M`` counts as ``P.M`` when
    that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:  # ``import kiosk.ui.app as x`` / a name inside a module
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def import_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    mods = modules(root, packages)
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def package_of(module: str, graph: dict[str, set[str]], root: Path = ROOT) -> str:
    """The package a module belongs to (a package's ``__init__`` belongs to the package itself)."""
    if (root / Path(*module.split("."))).is_dir():
        return module
    return module.rpartition(".")[0]


def package_graph(graph: dict[str, set[str]], root: Path = ROOT) -> dict[str, set[str]]:
    """Package -> the packages its modules import (edges between two different packages only)."""
    out: dict[str, set[str]] = {}
    for mod, targets in graph.items():
        src = package_of(mod, graph, root)
        out.setdefault(src, set())
        for t in targets:
            dst = package_of(t, graph, root)
            if dst != src:
                out[src].add(dst)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


@dataclass(frozen=True)
class Oversize:
    """A file or function over its bar: ``where`` (path, or path:line name), ``lines``."""

    where: str
    lines: int


def oversized(folders: Iterable[Path], max_file: int = MAX_FILE_LINES,
              max_function: int = MAX_FUNCTION_LINES) -> list[Oversize]:
    """Files over ``max_file`` lines and functions (decorators included) over ``max_function`` lines."""
    out: list[Oversize] = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            n = len(text.splitlines())
            if n > max_file:
                out.append(Oversize(str(rel), n))
            for node in ast.walk(ast.parse(text, str(path))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                    size = (node.end_lineno or node.lineno) - first + 1
                    if size > max_function:
                        out.append(Oversize(f"{rel}:{node.lineno} {node.name}", size))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", nargs="*", default=[], metavar="FOLDER", help="folders held to the size bars")
    args = ap.parse_args(argv)
    graph = import_graph()
    bad = 0
    for kind, g in (("module", graph), ("package", package_graph(graph))):
        found = cycles(g)
        print(f"{kind} import cycles: {len(found)}")
        for c in found:
            print("  " + " <-> ".join(c))
        bad += len(found)
    if args.size:
        over = oversized(ROOT / f for f in args.size)
        print(f"over {MAX_FILE_LINES} lines per file / {MAX_FUNCTION_LINES} per function in "
              f"{', '.join(args.size)}: {len(over)}")
        for o in over:
            print(f"  {o.where}: {o.lines} lines")
        bad += len(over)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
