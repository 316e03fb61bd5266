"""``kiosk lexicon compile WORDLIST.txt`` / ``kiosk lexicon check WORD...``."""

from __future__ import annotations

import argparse
import sys

NAME = "lexicon"
HELP = "compile an event's word list into a fast lexicon file, or check words"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    c = sub.add_parser("compile", help="compile a one-word-per-line list (NWL, CSW, ...) into a .marisa file")
    c.add_argument("wordlist")
    c.add_argument("-o", "--output", help="output file (default: the cache folder, NAME.marisa)")
    c.add_argument("--name", help="lexicon name shown to players (default: file name)")
    k = sub.add_parser("check", help="look words up")
    k.add_argument("words", nargs="+")
    k.add_argument("--lexicon", help="a .marisa file or word list (default: ENABLE)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kiosk.rules.lexicon import LexiconError, cache_dir, compile_word_list, default_lexicon, load_lexicon

    try:
        if args.action == "compile":
            name = args.name or Path(args.wordlist).stem.upper()
            out = args.output or str(cache_dir() / f"{name}.marisa")
            lex = compile_word_list(args.wordlist, out, name, progress=lambda m: print(m, file=sys.stderr))
            print(f"{lex.name}: {len(lex)} words -> {out}")
            return 0
        lex = load_lexicon(args.lexicon) if args.lexicon else default_lexicon()
        bad = 0
        for w in args.words:
            ok = w in lex
            bad += not ok
            print(f"{w.upper()}: {'acceptable' if ok else 'not in ' + lex.name}")
        return 1 if bad else 0
    except LexiconError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
