"""docs/traceability.md: every row names tests, and every named test exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ABBREV = {
    "flow": "tests/referee/test_ref_flow.py", "chal": "tests/referee/test_ref_challenge.py",
    "end": "tests/referee/test_ref_endgame.py", "pre": "tests/referee/test_ref_presets.py",
    "clk": "tests/referee/test_ref_clock.py", "gcg": "tests/referee/test_ref_gcg.py",
    "games": "tests/referee/test_ref_games.py", "ev": "tests/referee/test_ref_events.py",
    "jr": "tests/store/test_store_journal.py", "kill": "tests/store/test_store_sigkill.py",
    "sc": "tests/rules/test_rules_scoring.py", "pl": "tests/rules/test_rules_placement.py",
    "bd": "tests/rules/test_rules_board.py", "sheet": "tests/referee/test_ref_sheet_rules.py",
    "flt": "tests/store/test_store_faults.py", "full": "tests/store/test_store_full.py",
    "jcli": "tests/store/test_store_journal_cli.py", "jfull": "tests/app/test_app_journal_full.py",
    "pin": "tests/app/test_app_pin.py", "rf": "tests/app/test_app_recording_frames.py",
    "uj": "tests/ui/test_ui_judge_table.py", "up": "tests/ui/test_ui_prompts.py",
    "uply": "tests/ui/test_ui_players.py", "jfail": "tests/store/test_store_write_fails.py",
    "runj": "tests/app/test_app_run_journal_fails.py", "paus": "tests/app/test_app_paused_reading.py",
    "salv": "tests/store/test_store_salvage_pages.py",
}


def test_ref_traceability_rows_name_existing_tests():
    text = (ROOT / "docs" / "traceability.md").read_text(encoding="utf-8")
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and not ln.startswith("| rule") and "---" not in ln]
    assert len(rows) > 90
    for row in rows:
        refs = re.findall(r"\b(\w+)::(test_\w+)", row)
        assert refs, f"row without a test: {row}"
        for abbrev, name in refs:
            path = ROOT / ABBREV[abbrev]
            assert path.is_file(), f"{abbrev} -> {path} missing"
            assert re.search(rf"^def {name}\(", path.read_text(encoding="utf-8"), re.M), f"{abbrev}::{name} not found"
