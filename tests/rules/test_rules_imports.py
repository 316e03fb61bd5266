"""The rules core's imports: no cycle among its modules (imports inside functions count), nothing from the rest
of the kiosk (kiosk.rules is the pure core the referee, the app and the stream build on) but the one reader of a
person's text file (kiosk.files.read_toml, for a tile set file), which itself imports nothing of the kiosk."""

import ast
from pathlib import Path

import kiosk.rules

RULES = Path(kiosk.rules.__file__).parent


def kiosk_imports(source: str, module: str) -> set[str]:
    """Every ``kiosk...`` module ``source`` imports, at the top or inside a function (``from kiosk.a import b``
    counts as ``kiosk.a`` and ``kiosk.a.b``)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return {m for m in out if m.startswith("kiosk") and m != module}


def rules_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    return {m: {t for t in kiosk_imports(src, m) if t in sources} for m, src in sources.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as the list of modules along it, or [] when there is none."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        path.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state and (found := visit(t)):
                return found
        path.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return []


def sources() -> dict[str, str]:
    return {f"kiosk.rules.{f.stem}": f.read_text(encoding="utf-8") for f in RULES.glob("*.py") if f.stem != "__init__"}


def test_rules_modules_import_no_cycle():
    assert find_cycle(rules_graph(sources())) == []


def test_rules_cycle_check_catches_an_import_inside_a_function():
    src = sources()
    # the cycle there was: gcg's game_positions imported the replay inside the function
    src["kiosk.rules.gcg"] += "\n\ndef positions():\n    from kiosk.rules.replay import replay_game\n"
    assert find_cycle(rules_graph(src)) == ["kiosk.rules.gcg", "kiosk.rules.replay", "kiosk.rules.gcg"]


FILE_EDGE = Path(kiosk.rules.__file__).parent.parent / "files"


def test_rules_core_imports_nothing_else_of_the_kiosk():
    outside = {m: sorted(t for t in kiosk_imports(s, m) if not t.startswith(("kiosk.rules", "kiosk.files")))
               for m, s in sources().items()}
    assert {m: t for m, t in outside.items() if t} == {}
    edge = {f.stem: kiosk_imports(f.read_text(encoding="utf-8"), f"kiosk.files.{f.stem}") for f in FILE_EDGE.glob("*.py")}
    assert {m: sorted(t for t in ts if not t.startswith("kiosk.files")) for m, ts in edge.items()} == \
        {m: [] for m in edge}   # the file edge the core reads through builds on nothing of the kiosk
