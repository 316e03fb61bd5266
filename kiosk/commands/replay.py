"""``kiosk replay FILE.gcg...``: recompute every score of GCG records and report where they differ."""

from __future__ import annotations

import argparse
import json
import sys

NAME = "replay"
HELP = "replay GCG game records, recomputing every score; report mismatches and rule errors"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE.gcg", help="GCG records to replay")
    p.add_argument("--tiles", default="auto", help="tile set: english, german, a .toml file, or auto (default: from the record)")
    p.add_argument("--preset", help="score under an event preset (name such as club-reading, or a .toml file): "
                   "its scoring rules and exchange limit; default: standard tournament rules as GCG engines use")
    p.add_argument("--json", action="store_true", help="one JSON object per game, then the summary")
    p.add_argument("--quiet", action="store_true", help="only the summary line")


def run(args: argparse.Namespace) -> int:
    from kiosk.rules.gcg import GcgError, read_gcg
    from kiosk.rules.replay import replay_game
    from kiosk.rules.tiles import TileSetError, load_tile_set

    tile_set = None
    rules_kw: dict = {}
    if args.preset:
        from kiosk.referee.presets import PresetError, load_preset

        try:
            preset = load_preset(args.preset)
            rules_kw = {"rules": preset.scoring_rules(),
                        "exchange_min_bag": preset.exchange.min_bag if preset.exchange.allowed else 10**6,
                        "out_rack_lines": preset.end.out_adjustment != "none",
                        "six_rack_lines": preset.end.no_out_adjustment != "none"}
        except (PresetError, ValueError) as exc:
            print(f"kiosk replay: {exc}", file=sys.stderr)
            return 2
    if args.tiles != "auto":
        try:
            tile_set = load_tile_set(args.tiles)
        except TileSetError as exc:
            print(f"kiosk replay: {exc}", file=sys.stderr)
            return 2
    from kiosk.files import InputError, check_text_file

    games = moves = mismatches = errors = unreadable = 0
    out = sys.stdout
    for path in args.files:
        try:
            game = read_gcg(check_text_file(path, "GCG record"))
            if not game.players and not game.events:
                raise InputError(f"{path}: not a GCG record (no #player lines and no moves)")
        except (InputError, GcgError) as exc:   # bad input: a diagnostic, counted apart from the rule errors
            unreadable += 1
            print(f"kiosk replay: {exc}", file=sys.stderr)
            continue
        games += 1
        res = replay_game(game, tile_set, **rules_kw)
        problems = res.problems
        moves += res.moves
        if not args.quiet:
            for w in game.warnings:
                print(f"{w}  (warning)", file=out)
        mismatches += sum(1 for p in problems if p.kind == "mismatch")
        errors += sum(1 for p in problems if p.kind == "error")
        if args.json:
            print(json.dumps({
                "file": path, "moves": res.moves, "tile_set": res.tile_set.name, "players": res.players,
                "totals": res.totals, "ended": res.ended, "end_style": res.end_style,
                "problems": [{"line": p.line, "kind": p.kind, "message": p.message,
                              "computed": p.computed, "recorded": p.recorded} for p in problems],
            }, ensure_ascii=False), file=out)
        elif not args.quiet:
            for p in problems:
                print(p, file=out)
    if errors:
        print(f"{errors} rule {_plural(errors, 'error')} (records that break the rules; see above)", file=out)
    # the last line as the README documents it (games: the records read), then the files that could not be
    summary = f"{games} games, {moves} moves, {mismatches} mismatches"
    if unreadable:
        summary += f"; {unreadable} of {len(args.files)} {_plural(len(args.files), 'file')} unreadable"
    print(summary, file=out)
    if unreadable:
        return 2
    return 0 if mismatches == 0 and errors == 0 else 1


def _plural(n: int, one: str) -> str:
    return one if n == 1 else one + "s"
