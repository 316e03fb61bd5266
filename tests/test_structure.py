"""Structure bars of the whole project (scripts/check_structure.py; issue 17): no import cycle among the modules or
the packages of kiosk, calibration and firmware_bridge (imports inside functions and under TYPE_CHECKING count),
the touchscreen never imports the app, no file over 500 lines and no function over 60 lines in kiosk/referee,
kiosk/app, kiosk/ui, kiosk/control and kiosk/desk."""

from __future__ import annotations

from pathlib import Path

from scripts.check_structure import ROOT, cycles, import_graph, oversized, package_graph

SIZE_CHECKED = ("kiosk/referee", "kiosk/app", "kiosk/ui", "kiosk/control", "kiosk/desk")


def test_the_checker_finds_a_cycle_through_a_function_level_or_type_checking_import(tmp_path: Path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg import b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from pkg.b import x\n")
    (pkg / "d.py").write_text("import pkg.sub.c\n")
    graph = import_graph(tmp_path, ["pkg"])
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    assert cycles(package_graph(graph, tmp_path)) == [["pkg", "pkg.sub"]]


def test_no_import_cycle_in_the_project():
    graph = import_graph()
    assert len(graph) > 150
    for kind, g in (("module", graph), ("package", package_graph(graph))):
        assert cycles(g) == [], f"{kind} cycles: {cycles(g)}"


def test_the_touchscreen_and_the_control_seam_never_import_the_app():
    graph = import_graph()
    leaks = {m: sorted(t for t in targets if t.startswith("kiosk.app"))
             for m, targets in graph.items() if m.startswith(("kiosk.ui", "kiosk.control"))}
    assert {m: t for m, t in leaks.items() if t} == {}


def test_no_file_over_500_lines_and_no_function_over_60_lines():
    over = oversized(ROOT / d for d in SIZE_CHECKED)
    assert over == [], "\n".join(f"{o.where}: {o.lines} lines" for o in over)
