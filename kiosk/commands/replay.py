"""``kiosk replay FILE.gcg...``: recompute every score of GCG records and report where they differ.

Each file is read game by game (:func:`kiosk.rules.gcg.iter_gcg`): a file holding a whole event's games
one after another is replayed in bounded memory, each game's problems naming file and line."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from kiosk.rules.counts import counted

NAME = "replay"
HELP = "replay GCG game records, recomputing every score; report mismatches and rule errors"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE.gcg", help="GCG records to replay")
    p.add_argument("--tiles", default="auto", help="tile set: english, german, a .toml file, or auto (default: from the record)")
    p.add_argument("--preset", help="judge by an event preset (name such as club-reading, or a .toml file): the "
                   "record is played through the kiosk's referee under that preset, every rule of it applied "
                   "(players, exchanges, challenge bonuses, the game's end and its rack points); default: "
                   "standard tournament rules as GCG engines use")
    p.add_argument("--json", action="store_true", help="one JSON object per game, then the summary")
    p.add_argument("--quiet", action="store_true", help="only the summary line")


def _rules(args: argparse.Namespace) -> tuple[Any, Any] | str:
    """(tile set or None for auto, the preset or None), or the sentence saying what is wrong."""
    from kiosk.rules.tiles import TileSetError, load_tile_set

    tile_set = preset = None
    if args.tiles != "auto":
        try:
            tile_set = load_tile_set(args.tiles)
        except TileSetError as exc:
            return str(exc)
    if args.preset:
        from dataclasses import replace

        from kiosk.referee.presets import PresetError, load_preset

        try:
            preset = load_preset(args.preset)
        except (PresetError, ValueError) as exc:
            return str(exc)
        if args.tiles != "auto":   # the record's tiles, given: the referee deals from them
            preset = replace(preset, tile_set=args.tiles)
    return tile_set, preset


@dataclass
class _Tally:
    """What the replay found over all files."""

    games: int = 0
    moves: int = 0
    mismatches: int = 0
    errors: int = 0
    unreadable: int = 0     # files not read (missing, binary, no game in them ...)
    skipped: int = 0        # games of files read that could not be read themselves (too large, bad bytes)


def _replay_file(path: str, args: argparse.Namespace, tile_set: Any, preset: Any, tally: _Tally) -> None:
    """Replay every game of ``path``, one at a time (a file of a whole event is never held in memory): by the
    standard rules GCG engines use, or with ``preset`` through the referee under that preset."""
    from kiosk.files import InputError, check_text_file
    from kiosk.referee.record_check import judge_record
    from kiosk.rules.gcg import GcgError, iter_gcg
    from kiosk.rules.replay import replay_game

    read = skipped = 0
    try:
        for game in iter_gcg(check_text_file(path, "GCG record")):
            if game.skipped:
                skipped += 1
                print(f"kiosk replay: {game.errors[0]}", file=sys.stderr)
            elif game.players or game.events:
                read += 1
                res = replay_game(game, tile_set) if preset is None else judge_record(game, preset)
                _report(path, game, res, args, tally)
            elif game.errors:   # a record that names no players: its move lines could not be read (was dropped
                skipped += 1    # silently, e.g. the rest of a game after a #character-encoding line in mid-game)
                first, lost = game.errors[0], len(game.errors)
                print(f"kiosk replay: {path}:{game.first_line}: a game record begins here but names no players "
                      f"(#player1, #player2), so its {counted(lost, 'move line')} {'was' if lost == 1 else 'were'} "
                      f"not read (line {first.line}: {first.message}); a #character-encoding line belongs on a "
                      "game's first line",
                      file=sys.stderr)
        if not read and not skipped:
            raise InputError(f"{path}: not a GCG record (no #player lines and no moves)")
    except (InputError, GcgError) as exc:   # bad input: a diagnostic, counted apart from the rule errors
        tally.unreadable += 1
        print(f"kiosk replay: {exc}", file=sys.stderr)
        return
    if read:
        tally.skipped += skipped
    else:
        tally.unreadable += 1     # its one game (or every game) could not be read: said above


def _report(path: str, game: Any, res: Any, args: argparse.Namespace, tally: _Tally) -> None:
    """Count one game's replay and print its warnings and problems (or its JSON object)."""
    out = sys.stdout
    tally.games += 1
    tally.moves += res.moves
    problems = res.problems
    if not args.quiet:
        for w in game.warnings:
            print(f"{w}  (warning)", file=out)
    tally.mismatches += sum(1 for p in problems if p.kind == "mismatch")
    tally.errors += sum(1 for p in problems if p.kind == "error")
    if args.json:
        print(json.dumps({
            "file": path, "line": game.first_line, "moves": res.moves, "tile_set": res.tile_set.name,
            "players": res.players, "totals": res.totals, "ended": res.ended, "end_style": res.end_style,
            "problems": [{"line": p.line, "kind": p.kind, "message": p.message,
                          "computed": p.computed, "recorded": p.recorded} for p in problems],
        }, ensure_ascii=False), file=out)
    elif not args.quiet:
        for p in problems:
            print(p, file=out)


def run(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if isinstance(rules, str):
        print(f"kiosk replay: {rules}", file=sys.stderr)
        return 2
    tile_set, preset = rules
    tally = _Tally()
    for path in args.files:
        try:
            _replay_file(path, args, tile_set, preset, tally)
        except Exception:   # a fault of the kiosk's on one record must not lose the other files' replay
            tally.unreadable += 1
            print(f"kiosk replay: {path}: the kiosk failed while replaying this record (a fault of the kiosk, "
                  "not of the record: please report it with the file); the other files are replayed", file=sys.stderr)
    out = sys.stdout
    if tally.errors:
        print(f"{counted(tally.errors, 'rule error')} (records that break the rules; see above)",
              file=out)
    # the last line as the README documents it (games: the records read), then what could not be read; its
    # nouns stay plural at 1 too: scripts parse it as r'(\d+) games, (\d+) moves, (\d+) mismatches' (the
    # shared checks' measure.py, over ~291 games)
    summary = f"{tally.games} games, {tally.moves} moves, {tally.mismatches} mismatches"
    if tally.skipped:
        summary += f"; {counted(tally.skipped, 'game')} not read (see above)"
    if tally.unreadable:
        summary += f"; {tally.unreadable} of {counted(len(args.files), 'file')} unreadable"
    print(summary, file=out)
    if tally.unreadable or tally.skipped:
        return 2
    return 0 if tally.mismatches == 0 and tally.errors == 0 else 1
