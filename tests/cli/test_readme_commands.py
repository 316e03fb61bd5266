"""The README against the program: its "Trying it" commands run exactly as written, its command table names
only subcommands and flags the program has (it said ``kiosk run [CONFIG]`` while the command wants
``--config``), and ``./run demo`` ends with the built-in record's final score."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kiosk.cli import build_parser
from shared_data import HAVE_SHARED

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
VENV_BIN = ROOT / ".venv" / "bin"


def _try_it_commands() -> list[tuple[str, int]]:
    section = README.split("### Trying it", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    rows = []
    for line in block.splitlines():
        if not line.strip():
            continue
        cmd, _, note = line.partition("  #")
        m = re.search(r"exit (\d)", note)
        rows.append((cmd.strip(), int(m.group(1)) if m else 0))
    return rows


COMMANDS = _try_it_commands()


def _env() -> dict[str, str]:
    return dict(os.environ, PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", SDL_VIDEODRIVER="dummy",
                PYTHONUNBUFFERED="1")


def test_the_try_it_block_covers_every_subcommand_but_the_long_ones():
    used = {c.split()[1] for c, _ in COMMANDS}
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    # demo: ./run demo below and tests/app; stream-game and desk need a broker (tests/stream, tests/desk), and
    # the desk serves until stopped; bench-vision renders hundreds of frames (a benchmark, not a test)
    assert set(sub.choices) - used == {"demo", "stream-game", "bench-vision", "desk"}


@pytest.mark.skipif(not VENV_BIN.is_dir(), reason="no .venv (the README's commands run in ./run's environment)")
@pytest.mark.skipif(not HAVE_SHARED, reason="../shared is absent: the README's examples read it")
def test_the_readmes_commands_run_as_written():
    shutil.rmtree(ROOT / "kiosk-try", ignore_errors=True)   # what the commands write, the table's journal too
    for cmd, want in COMMANDS:
        res = subprocess.run(["bash", "-c", cmd], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
        assert res.returncode == want, f"{cmd}: exit {res.returncode}\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
        assert "Traceback" not in res.stderr and "pygame" not in res.stdout, (cmd, res.stdout, res.stderr)


def test_the_try_it_commands_and_the_example_table_write_nothing_to_a_shared_place():
    """The example table's journal was /tmp/kiosk-readme-run.sqlite: a second user of the machine resumed the
    first one's game or found the journal locked; the other outputs could not be overwritten by him."""
    import tomllib

    from kiosk.app.config import load_config

    assert not [c for c, _ in COMMANDS if "/tmp" in c]
    example = ROOT / "docs" / "examples" / "simulated-table.toml"
    journal = tomllib.loads(example.read_text(encoding="utf-8"))["table"]["journal"]
    assert not Path(journal).is_absolute() and journal.startswith("kiosk-try/")
    assert load_config(example).journal == Path(journal)   # relative: taken from the working folder
    assert f"kiosk journal show {journal}" in [c for c, _ in COMMANDS]


TABLE = README.split("| command | what it does |", 1)[1].split("\n\n", 1)[0]
_CELL = r"(kiosk (?:[^|`\\]|\\\|)*?)"  # a usage in backticks; "\|" (an escaped bar) may separate choices


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    return dict(action.choices) if action is not None else {}


def test_the_command_table_names_real_subcommands_and_flags():
    sub = _subparsers(build_parser())
    cells = re.findall(rf"^\| `{_CELL}`(?: / `{_CELL}`)? \|", TABLE, re.M)
    assert len(cells) >= len(sub), "a row's usage was not recognised"
    for cell in cells:
        for usage in filter(None, cell):
            words = usage.split()
            assert words[1] in sub, usage
            parser = sub[words[1]]
            if len(words) > 2 and words[2] in _subparsers(parser):
                parser = _subparsers(parser)[words[2]]
            flags = {o for a in parser._actions for o in a.option_strings}
            for flag in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", usage):
                assert flag in flags, f"README: {usage}: {flag} is not an option of the command"
            if "CONFIG" in usage:
                assert "--config CONFIG" in usage, usage


def test_the_command_table_names_every_option_of_every_subcommand():
    """Each subcommand's rows (and each of its steps': ``journal recover``, ``lexicon compile``) name all its
    long options, so the table is the whole command line; a row ``kiosk COMMAND ...`` instead points at
    ``kiosk COMMAND ... --help`` (calibrate, bench-vision: many options, each explained there)."""
    rows = {name: [r for r in TABLE.splitlines() if r.startswith(f"| `kiosk {name} ")] for name in _subparsers(
        build_parser())}
    for name, parser in _subparsers(build_parser()).items():
        assert rows[name], f"README: no row for kiosk {name}"
        text = " ".join(rows[name])
        usages = [m.group(1) for r in rows[name] if (m := re.match(rf"\| `{_CELL}`", r))]
        if any(u.endswith(" ...") for u in usages):
            assert "--help" in text, f"README: kiosk {name} ...: say where its options are"
            continue
        for step in [parser, *_subparsers(parser).values()]:
            for action in step._actions:
                longs = [o for o in action.option_strings if o.startswith("--") and o != "--help"]
                named = any(re.search(re.escape(o) + r"(?![\w-])", text) for o in action.option_strings
                            if o != "-h")
                assert not longs or named, f"README: the kiosk {name} rows do not name {longs[0]} ({step.prog})"


@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / "run").exists(), reason="no ./run")
def test_run_demo_as_written_ends_with_the_records_final(tmp_path):
    from kiosk.app.record_demo import BUILTIN_GAME
    from kiosk.app.record_players import plan_record
    from kiosk.rules.gcg import read_gcg

    plan = plan_record(read_gcg(BUILTIN_GAME))
    env = dict(_env(), XDG_DATA_HOME=str(tmp_path))   # a fresh demo journal: the game from its start
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    res = subprocess.run(["bash", "-c", "./run demo"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert res.stdout.splitlines()[-1] == f"final: {plan.nicks[0]} {plan.finals[0]}, {plan.nicks[1]} {plan.finals[1]}"
    assert "pygame" not in res.stdout and "Traceback" not in res.stderr
