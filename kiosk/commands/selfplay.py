"""``kiosk selfplay``: two computer players play a whole game; the record is written as GCG."""

from __future__ import annotations

import argparse
import sys

NAME = "selfplay"
HELP = "generate a complete computer self-play game (GCG) with the default or a given lexicon"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=1, help="random seed (same seed, same game)")
    p.add_argument("--names", default="Ada,Bo", help="two player nicknames, comma-separated")
    p.add_argument("--lexicon", help="a compiled .marisa lexicon or a word list (default: ENABLE)")
    p.add_argument("-o", "--output", help="GCG file to write (default: standard output)")
    p.add_argument("--quiet", action="store_true", help="no move-by-move progress on standard error")


def run(args: argparse.Namespace) -> int:
    from kiosk.files import atomic_output, check_output
    from kiosk.lexicons import cached_default_lexicon, load_lexicon
    from kiosk.rules.gcg import write_gcg
    from kiosk.rules.lexicon import LexiconError
    from kiosk.tools.selfplay import self_play

    names = tuple(n.strip() for n in args.names.split(","))
    if len(names) != 2 or not all(names) or any(" " in n for n in names):
        print("kiosk selfplay: --names takes two nicknames without spaces, e.g. Ada,Bo", file=sys.stderr)
        return 2
    if args.output:
        check_output(args.output, "GCG file")   # before the game is generated, not after
    try:
        lex = load_lexicon(args.lexicon) if args.lexicon else cached_default_lexicon()
    except LexiconError as exc:
        print(f"kiosk selfplay: {exc}", file=sys.stderr)
        return 2
    game = self_play(args.seed, names, lex, progress=None if args.quiet else lambda m: print(m, file=sys.stderr))
    text = write_gcg(game)
    if args.output:
        with atomic_output(args.output, what="GCG file") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0
