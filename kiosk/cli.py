"""The ``kiosk`` command line: one subcommand per module in :mod:`kiosk.commands`.

Each module there defines ``NAME`` (the subcommand), ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit code). Modules keep heavy imports (OpenCV, pygame) inside ``run`` so that
``kiosk --help`` and ``kiosk replay`` start fast.

The convention every subcommand keeps (README, "Command-line conventions"; tests/app/test_cli_convention.py):
results on stdout, diagnostics on stderr; exit 0 ok, 1 a finding (a mismatch, no board read), 2 bad usage or
input; a message naming the file and what is wrong, never a traceback; a wrong flag shows the subcommand's
own usage. :func:`main` holds the last line of that: a file the command could not open or write is reported
as ``kiosk COMMAND: PATH: REASON`` with exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")   # pygame's banner would land on stdout, among results
# numpy's OpenBLAS spreads the reader's small matrix products over every core and its threads then spin
# between them: the recording demo took 30-40% more CPU time, and 10% more wall time, than with one thread
# (README, "Testing"). The reader's speed bars are measured with one thread (scripts/bench_vision_speed.py).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from kiosk import commands  # noqa: E402
from kiosk.files import InputError, describe_os_error  # noqa: E402


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser: an argument it does not know is an error shown with its own usage (argparse
    otherwise hands it up to ``kiosk``'s parser, which shows the top-level usage)."""

    def parse_known_args(self, args=None, namespace=None):  # noqa: ANN001, ANN201 - argparse's signature
        ns, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns, extras


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kiosk", description="Scrabble referee kiosk")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
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
    except InputError as exc:
        print(f"kiosk {args.command}: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnicodeError) as exc:   # a file the command did not check itself: named, not a traceback
        print(f"kiosk {args.command}: {describe_os_error(exc)}", file=sys.stderr)
        return 2



if __name__ == "__main__":
    sys.exit(main())
