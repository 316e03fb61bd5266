"""The ``kiosk`` command line: one subcommand per module in :mod:`kiosk.commands`.

Each module there defines ``NAME`` (the subcommand), ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit code). Modules keep heavy imports (OpenCV, pygame) inside ``run`` so that
``kiosk --help`` and ``kiosk replay`` start fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from kiosk import commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kiosk", description="Scrabble referee kiosk")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            mod = importlib.import_module(f"kiosk.commands.{info.name}")
            mod.add_arguments(argparse.ArgumentParser(add_help=False))  # fails here rather than below
        except Exception as exc:  # one broken command must not take the others down
            p = sub.add_parser(info.name.replace("_", "-"), help=f"(unavailable: {exc})", add_help=False)
            p.add_argument("rest", nargs=argparse.REMAINDER)
            p.set_defaults(_run=_unavailable(info.name, exc))
            continue
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _unavailable(name: str, exc: Exception):
    def run(_args: argparse.Namespace) -> int:
        print(f"error: the '{name}' command cannot start: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    return run


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kiosk`` console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
