"""``kiosk selfplay``: 2-4 computer players play a whole game; the record is written as GCG."""

from __future__ import annotations

import argparse
import sys

NAME = "selfplay"
DEFAULT_NAMES = ("Ada", "Bo", "Cy", "Di")
HELP = "generate a complete computer self-play game (GCG) with the default or a given lexicon"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=1, help="random seed (same seed, same game)")
    p.add_argument("--names", default=None, help="2-4 player nicknames, comma-separated (default: Ada,Bo,Cy,Di "
                   "cut to --players)")
    p.add_argument("--players", type=int, default=None, help="number of players, 2-4 (default: 2, or as many as "
                   "--names)")
    p.add_argument("--preset", help="play under an event preset (name such as team, or a .toml file): its scoring "
                   "rules, exchange counts and end-of-game lines; default: standard tournament rules, NASPA end")
    p.add_argument("--lexicon", help="a compiled .marisa lexicon or a word list (default: ENABLE)")
    p.add_argument("-o", "--output", help="GCG file to write (default: standard output)")
    p.add_argument("--quiet", action="store_true", help="no move-by-move progress on standard error")


def nickname_problem(nick: str) -> str | None:
    """Why a GCG record cannot hold ``nick`` as a player's nickname (a sentence to follow it), or None: what no
    player's name may be (:func:`kiosk.rules.names.name_problem`: more than 100 characters, a GCG line holding 512,
    or a control character), a colon (``>NICK: RACK ...`` ends the nickname at the first), whitespace or a
    character that cannot be printed."""
    from kiosk.rules.names import name_problem

    if (why := name_problem(nick)) is not None:
        return why
    if ":" in nick:
        return "holds a colon, which ends a nickname on a GCG move line"
    if any(c.isspace() for c in nick):
        return "holds a space (a GCG nickname is one word)"
    if not nick.isprintable():
        return "holds a character that cannot be printed"
    return None


def run(args: argparse.Namespace) -> int:
    from kiosk.files import atomic_output, check_output
    from kiosk.lexicons import cached_default_lexicon, load_lexicon
    from kiosk.rules.gcg import write_gcg
    from kiosk.rules.lexicon import LexiconError
    from kiosk.rules.names import clash, shown_name
    from kiosk.tools.selfplay import self_play

    count = args.players if args.players is not None else len(args.names.split(",")) if args.names else 2
    if not 2 <= count <= 4:   # the option that gave the count is named: --names A said '--players: ... got 1'
        given = "--players" if args.players is not None else "--names"
        what = "" if args.players is not None else " nicknames, comma-separated"
        print(f"kiosk selfplay: {given}: expected 2 to 4{what}, got {count}", file=sys.stderr)
        return 2
    names = tuple(n.strip() for n in args.names.split(",")) if args.names else DEFAULT_NAMES[:count]
    bad = next(((n, why) for n in names if (why := nickname_problem(n))), None)
    if bad is not None:   # a colon ends a GCG line's nickname; a line break or tab breaks the record's lines
        print(f"kiosk selfplay: --names: the nickname {shown_name(bad[0])} {bad[1]}; give nicknames such as "
              f"{','.join(DEFAULT_NAMES[:count])}", file=sys.stderr)
        return 2
    if all(names) and (same := clash(names)) is not None:   # 'Ann' and 'ann' are one name on a scoresheet
        print(f"kiosk selfplay: --names: nicknames {same[0] + 1} and {same[1] + 1} {same[2]}; give {count} different "
              f"nicknames, e.g. {','.join(DEFAULT_NAMES[:count])}", file=sys.stderr)
        return 2
    if len(names) != count or not all(names):
        print(f"kiosk selfplay: --names takes {count} different nicknames without spaces, e.g. "
              f"{','.join(DEFAULT_NAMES[:count])}", file=sys.stderr)
        return 2
    preset = None
    if args.preset:
        from kiosk.referee.presets import PresetError, load_preset

        try:
            preset = load_preset(args.preset)
        except PresetError as exc:
            print(f"kiosk selfplay: {exc}", file=sys.stderr)
            return 2
        if not preset.min_players <= count <= preset.max_players:
            print(f"kiosk selfplay: --players: the preset {preset.name} is for {preset.seats}, not {count}",
                  file=sys.stderr)
            return 2
    if args.output:
        check_output(args.output, "GCG file")   # before the game is generated, not after
    try:
        lex = load_lexicon(args.lexicon) if args.lexicon else cached_default_lexicon()
    except LexiconError as exc:
        print(f"kiosk selfplay: {exc}", file=sys.stderr)
        return 2
    game = self_play(args.seed, names, lex, progress=None if args.quiet else lambda m: print(m, file=sys.stderr),
                     preset=preset)
    text = write_gcg(game)
    if args.output:
        with atomic_output(args.output, what="GCG file") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0
