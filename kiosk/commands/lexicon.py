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
    c.add_argument("-o", "--output", help="output file, NAME.marisa (default: the cache folder, NAME.marisa)")
    c.add_argument("--name", help="lexicon name shown to players (default: file name)")
    c.add_argument("--tiles", default="english",
                   help="the tile set whose letters every word must be spelt with: english (default), german, "
                        "or a .toml file")
    k = sub.add_parser("check", help="look words up (each line says which lexicon answered)")
    k.add_argument("words", nargs="+")
    k.add_argument("--lexicon", help="a .marisa file or word list (default: ENABLE, an English list: with other "
                                     "--tiles a warning says so)")
    k.add_argument("--tiles", default=None,
                   help="the tile set the words are spelt with (default english); with a word list, its words "
                        "must be spelt with it too")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from kiosk.lexicons import cache_dir, cached_default_lexicon, compile_word_list, load_lexicon
    from kiosk.rules.counts import counted
    from kiosk.rules.lexicon import LexiconError
    from kiosk.rules.tiles import TileSetError, load_tile_set

    try:
        tiles = load_tile_set(args.tiles or "english")
    except TileSetError as exc:
        print(f"kiosk lexicon: --tiles: {exc}", file=sys.stderr)
        return 2
    try:
        if args.action == "compile":
            name = args.name or Path(args.wordlist).stem.upper()
            out = args.output or str(cache_dir() / f"{name}.marisa")
            if not args.output:
                cache_dir().mkdir(parents=True, exist_ok=True)
            lex = compile_word_list(args.wordlist, out, name, progress=lambda m: print(m, file=sys.stderr),
                                    letters=tiles.letters)
            print(f"{lex.name}: {counted(len(lex), 'word')} -> {out}")
            return 0
        blank = next((w for w in args.words if not w.strip()), None)
        if blank is not None:   # it printed ': not in ENABLE', an answer about no word at all
            print(f"kiosk lexicon: {blank!r} is not a word: give the words to look up", file=sys.stderr)
            return 2
        odd = next((w for w in args.words if any(c.upper() not in tiles.letters for c in w.strip())), None)
        if odd is not None:   # '123' was answered 'not in ENABLE' (exit 1), as if it were a word
            print(f"kiosk lexicon: {odd!r} is not a word: it holds characters that are no letter of the "
                  f"{tiles.name} tiles", file=sys.stderr)
            return 2
        if args.lexicon:
            lex = load_lexicon(args.lexicon, tiles.letters, notice=lambda m: print(f"kiosk lexicon: {m}", file=sys.stderr))
        else:
            lex = cached_default_lexicon()
            if tiles.name != "english":   # 'ÄPFEL: not in ENABLE' answered a German word from an English list
                print(f"kiosk lexicon: no --lexicon given: these words are looked up in ENABLE, an English word list, "
                      f"not a {tiles.name.capitalize()} one; give the event's {tiles.name.capitalize()} word list (or its compiled "
                      f".marisa) with --lexicon", file=sys.stderr)
        bad = 0
        for w in args.words:
            ok = w in lex
            bad += not ok
            print(f"{w.upper()}: {'acceptable in' if ok else 'not in'} {lex.name}")
        return 1 if bad else 0
    except LexiconError as exc:
        print(f"kiosk lexicon: {exc}", file=sys.stderr)
        return 2
