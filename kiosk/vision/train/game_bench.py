"""Accuracy of the game-aware reader on synthetic games: each game of the corpus watched by one fixed camera in
one tile font, its frames read in order as the table reads them.

At the table the kiosk reads a frame after each clock press, knowing the board the referee accepted before it
(:class:`kiosk.vision.game.GameReader` with the accepted board as its :class:`~kiosk.vision.game.GamePrior`).
A doubt (``#``) is settled by the judge, so the board accepted after a move is the move's true board: here the
prior of move *i* is the true board after move *i - 1*, less the tiles of a move a challenge took back (the
referee's board loses them when the judge rules, before the next press). What is scored is what the reader had
to find out:

* **new tiles** (tiles of the move's squares, empty before it): read as their letter (or ``?`` for a blank),
  ``#`` (a doubt: the judge is asked), or wrong without doubt (another letter, ``?``, or empty: *silent*);
* **known tiles** read as another letter or empty (an anomaly the judge must dismiss: *false anomalies*);
* **phantoms**: squares empty before and after the move read as a tile without doubt;
* **empty squares doubted**: squares empty before and after the move read ``#`` (the judge confirms them empty).

Squares a hand covers are left out (as in :mod:`kiosk.vision.train.bench`). A frame the reader does not judge
usable (a hand, motion blur) is not used: the table takes the camera's next frame, so the game renders the same
board again with a new frame seed (at most ``RETRIES`` times; a move still unread then counts its new tiles
as doubts, ``unread``).

The figures differ from the per-frame benchmark's in what they count: the letters of the new tiles of each
move (what the kiosk reads), not every tile of a board read from nothing. Both are reported; which bar each one
meets is said in ``kiosk/vision/README.md``.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from kiosk.rules.board import SIZE, Board
from kiosk.rules.tiles import TileSet
from kiosk.vision.train.bench import UNSURE, corpus_files, frame_seed, game_tile_set, level_params

RETRIES = 4
"""Frames rendered again (new frame seed) after an unusable one, before the move counts as unread."""


@dataclass(frozen=True)
class GameSample:
    """One game to watch: its boards after each move (in order), its tile set and its file name."""

    boards: tuple[Board, ...]
    tile_set: TileSet
    source: str


def corpus_games(shared_dir: str | Path, n: int, seed: int = 0, tile_sets: tuple[str, ...] = ("english", "german"),
                 max_moves: int = 0) -> list[GameSample]:
    """``n`` games drawn (seeded, without replacement) from ``shared_dir``/corpus/gcg/real and selfplay, German
    games with the German tile set; ``max_moves`` > 0 keeps only each game's first boards.

    Raises:
        FileNotFoundError: the corpus folder is missing or holds no usable game.
    """
    from kiosk.rules.replay import game_positions

    root, files = corpus_files(shared_dir)
    rng = np.random.default_rng(seed)
    out: list[GameSample] = []
    for i in rng.permutation(len(files)):
        if len(out) >= n:
            break
        try:
            boards = game_positions(files[int(i)])
        except Exception:  # noqa: BLE001 - a broken record is skipped
            continue
        ts = game_tile_set(boards)
        if ts is None or ts.name not in tile_sets or len(boards) < 2:
            continue
        out.append(GameSample(tuple(boards[:max_moves] if max_moves else boards), ts,
                              os.path.basename(files[int(i)])))
    if not out:
        raise FileNotFoundError(f"no usable games under {root}")
    return out


@dataclass
class MoveResult:
    """Truth vs reading of one move's frame: new tiles by square -> (truth, read) characters, known tiles read
    otherwise, phantoms, frames rendered for it, whether any was usable, the font and the reading time."""

    new: dict[int, tuple[str, str]]
    false_anomalies: int
    phantoms: int
    frames: int
    used: bool
    font: str
    read_ms: float
    causes: dict[int, str] = field(default_factory=dict)   # new tile read wrong -> doubt kind, or "silent"
    disputes: list[str] = field(default_factory=list)      # known tiles read otherwise: "E->B", "E->."
    empty_doubts: int = 0                                   # squares empty before and after read '#'


@dataclass
class GameTally:
    """Running totals over moves (see the module doc)."""

    games: int = 0
    moves: int = 0
    frames: int = 0
    unread_moves: int = 0
    letters: int = 0
    letters_right: int = 0
    blanks: int = 0
    blanks_right: int = 0
    unsure: int = 0
    silent: int = 0
    false_anomalies: int = 0
    phantoms: int = 0
    empty_doubts: int = 0
    moves_exact: int = 0
    confusion: Counter = field(default_factory=Counter)
    by_face: dict = field(default_factory=dict)   # font -> [letters, right, tiles, silent]
    read_ms: list = field(default_factory=list)
    causes: Counter = field(default_factory=Counter)   # doubt kind (or "silent") of new tiles read wrong
    disputes: Counter = field(default_factory=Counter)  # known tiles read otherwise: "E->B" -> count

    def add(self, mv: MoveResult) -> None:
        """Add one move's result."""
        self.moves += 1
        self.frames += mv.frames
        self.unread_moves += not mv.used
        self.false_anomalies += mv.false_anomalies
        self.phantoms += mv.phantoms
        self.empty_doubts += mv.empty_doubts
        self.read_ms.append(mv.read_ms)
        self.causes.update(mv.causes.values())
        self.disputes.update(mv.disputes)
        face = self.by_face.setdefault(mv.font, [0, 0, 0, 0])
        exact = mv.false_anomalies == 0 and mv.phantoms == 0
        for t, r in mv.new.values():
            self.confusion[(t, r)] += 1
            exact &= t == r
            face[2] += 1
            if t == "?":
                self.blanks += 1
                self.blanks_right += r == t
            else:
                self.letters += 1
                self.letters_right += r == t
                face[0] += 1
                face[1] += r == t
            if r == UNSURE:
                self.unsure += 1
            elif r != t:
                self.silent += 1
                face[3] += 1
        self.moves_exact += exact

    def figures(self) -> dict[str, float]:
        """Percentages: new letters right, new blanks right, new tiles read wrong silently (of new tiles),
        doubts' share of the new tiles' errors, moves read exactly (new tiles, no false anomaly, no phantom)."""
        def pct(a: int, b: int) -> float:
            return 100.0 * a / b if b else float("nan")
        tiles = self.letters + self.blanks
        errors = tiles - self.letters_right - self.blanks_right
        return {"letters": pct(self.letters_right, self.letters), "blanks": pct(self.blanks_right, self.blanks),
                "silent_tile_errors": pct(self.silent, tiles), "unsure_share_of_errors": pct(self.unsure, errors),
                "exact_moves": pct(self.moves_exact, self.moves)}

    def lines(self, name: str) -> list[str]:
        """The printed summary of one level."""
        f = self.figures()
        tiles = self.letters + self.blanks
        ms = float(np.median(self.read_ms)) if self.read_ms else float("nan")
        out = [f"{name}: {self.games} games, {self.moves} moves, {self.frames} frames read "
               f"({self.unread_moves} moves without a usable frame), median {ms:.0f} ms a frame",
               f"  new letters read right   {f['letters']:8.3f}%  ({self.letters_right}/{self.letters})",
               f"  new blanks read right    {f['blanks']:8.3f}%  ({self.blanks_right}/{self.blanks})",
               f"  new tiles wrong silently {f['silent_tile_errors']:8.3f}%  ({self.silent}/{tiles})",
               f"  errors that are '#'      {f['unsure_share_of_errors']:8.3f}%",
               f"  moves read exactly       {f['exact_moves']:8.3f}%  ({self.moves_exact}/{self.moves})",
               f"  known tiles disputed {self.false_anomalies}, phantom tiles {self.phantoms}, "
               f"empty squares doubted {self.empty_doubts}"]
        for what, keep in (("new tiles read '#'", lambda r: r == UNSURE),
                           ("new tiles read wrong without doubt", lambda r: r != UNSURE)):
            wrong = [(n, t, r) for (t, r), n in self.confusion.items() if t != r and keep(r)]
            if wrong:
                out.append(f"  {what}: " + ", ".join(f"{t}->{r} {n}" for n, t, r in sorted(wrong, reverse=True)[:20]))
        if self.causes:
            out.append("  why new tiles were wrong: " + ", ".join(f"{k} {n}" for k, n in self.causes.most_common()))
        if self.disputes:
            out.append("  known tiles read otherwise: " + ", ".join(
                f"{k} {n}" for k, n in self.disputes.most_common(20)))
        for font, (lt, right, tiles_f, silent) in sorted(self.by_face.items()):
            out.append(f"  {font}: letters {right}/{lt} ({100.0 * right / max(lt, 1):.2f}%), "
                       f"silent {silent}/{tiles_f}")
        return out


def game_seed(level: str, game: int, seed: int) -> int:
    """The scene seed (camera, board, tile font) of game ``game``: >= 2**30 as every benchmark seed, and apart
    from the per-frame benchmark's frame seeds of the same ``seed``."""
    return frame_seed(level, 500_000 + game, seed)


def corpus_lexicon(shared_dir: str, tile_set: str) -> frozenset[str]:
    """The words the moves of the corpus's games of ``tile_set`` spell (every run of tiles through a move's new
    tiles, :func:`kiosk.vision.move_words.runs_through`; upper case, a blank as its letter), with ENABLE's words
    for the English set: the stand-in for the event's lexicon in ``--lexicon corpus`` (NWL and CSW, which the
    games were played under, cannot be shipped, and ENABLE lacks a quarter of their moves' words). A word played
    as a phony and never challenged off is in it too. Cached per process.

    Raises:
        FileNotFoundError: the corpus folder is missing or holds no game.
    """
    return _corpus_lexicon(str(shared_dir), tile_set)


@cache
def _corpus_lexicon(shared_dir: str, tile_set: str) -> frozenset[str]:
    from kiosk.rules.lexicon import enable_words
    from kiosk.rules.replay import game_positions
    from kiosk.vision.move_words import runs_through

    _, files = corpus_files(shared_dir)
    words: set[str] = set(enable_words()) if tile_set == "english" else set()
    for path in files:
        try:
            boards = game_positions(path)
        except Exception:  # noqa: BLE001 - a broken record is skipped, as corpus_games skips it
            continue
        ts = game_tile_set(boards)
        if ts is None or ts.name != tile_set:
            continue
        before = [""] * (SIZE * SIZE)
        for b in boards:
            cells = list(b.cells)
            new = [sq for sq in range(SIZE * SIZE) if cells[sq] and not before[sq]]
            words.update("".join(cells[sq] for sq in run).upper() for run in runs_through(cells, new))
            before = cells
    return frozenset(words)


def read_game(task: tuple) -> list[MoveResult]:
    """Watch one game: ``task`` = (game index, boards' cells (tuple per move), tile-set name, level, (w, h), seed,
    fonts[, new letter p[, shared folder for ``--lexicon corpus``, or None]]). Each board is rendered by the
    game's fixed camera and read by a :class:`GameReader` whose prior is the true board before the move (and
    whose lexicon, with a shared folder, is :func:`corpus_lexicon`); a reader exception counts the move as
    unread. Returns one result per move."""
    import time

    from kiosk.rules.tiles import load_tile_set
    from kiosk.vision.game import GameReader, prior_from_board
    from kiosk.vision.reader import BoardReader
    from kiosk.vision.synth.render import render_board

    index, boards, ts_name, level, size, seed, fonts = task[:7]
    new_letter_p = task[7] if len(task) > 7 else 0.0
    lexicon_from = task[8] if len(task) > 8 else None
    ts = load_tile_set(ts_name)
    word_ok = corpus_lexicon(lexicon_from, ts_name).__contains__ if lexicon_from else None
    params = level_params(level, fonts)
    reader = BoardReader(ts)   # a new reader per game: nothing carried from another game's camera
    before: list[str] = [""] * (SIZE * SIZE)
    state = {"prior": prior_from_board(before, ts)}
    game = GameReader(reader.read, ts, prior=lambda: state["prior"], new_letter_p=new_letter_p, word_ok=word_ok)
    scene = game_seed(level, index, seed)
    out: list[MoveResult] = []
    for m, cells in enumerate(boards):
        # tiles a challenge took back (a phony withdrawn) left the referee's board before the next press: the
        # prior of that press no longer holds them
        before = [b if c else "" for b, c in zip(before, cells)]
        state["prior"] = prior_from_board(before, ts)
        frames, used, ms, font = 0, False, 0.0, "?"
        grid: list[str] = []
        doubts: dict = {}
        occluded: set[int] = set()
        truth: list[str] = []
        for k in range(RETRIES + 1):
            frame = render_board(Board(list(cells)), seed=frame_seed(level, index * 1000 + m * 10 + k, seed + 1),
                                 scene_seed=scene, level=params, tile_set=ts, size=size)
            font, truth, occluded = str(frame.meta.get("font")), list(frame.truth), set(frame.occluded)
            frames += 1
            t0 = time.perf_counter()
            try:
                res = game.read_game(frame.image)
            except Exception:  # noqa: BLE001 - a reader crash loses this frame, never the run
                res = None
            ms = 1000 * (time.perf_counter() - t0)
            if res is not None and res.used:
                used, grid, doubts = True, list(res.reading.grid()), dict(res.reading.doubts)
                break
        out.append(_score(truth, grid if used else None, doubts, occluded, before, frames, font, ms))
        before = list(cells)
    return out


def _score(truth: list[str], grid: list[str] | None, doubts: dict, occluded: set[int], before: list[str],
           frames: int, font: str, ms: float) -> MoveResult:
    """One move's :class:`MoveResult`: the truth and reading grids (15 strings; ``grid`` None: no usable frame, its
    new tiles unread), the reading's doubts, the squares a hand covers, the board before the move (225 cells)."""
    new: dict[int, tuple[str, str]] = {}
    false_anomalies = phantoms = empty_doubts = 0
    causes: dict[int, str] = {}
    disputes: list[str] = []
    for sq in range(SIZE * SIZE):
        t = truth[sq // SIZE][sq % SIZE]
        r = grid[sq // SIZE][sq % SIZE] if grid is not None else UNSURE
        if sq in occluded and r == UNSURE:
            continue
        was = before[sq]
        if not was and t != ".":
            new[sq] = (t, r)
            if r != t:
                kind = getattr(doubts.get(sq), "kind", None)
                causes[sq] = "unread" if grid is None else "silent" if r != UNSURE else \
                    kind.value if kind is not None else "other"
        elif was and t != "." and r not in (t, UNSURE):
            false_anomalies += 1
            disputes.append(f"{t}->{r}")
        elif not was and t == "." and r not in (".", UNSURE):
            phantoms += 1
        elif not was and t == "." and r == UNSURE and grid is not None and sq not in occluded:
            empty_doubts += 1
    return MoveResult(new, false_anomalies, phantoms, frames, grid is not None, font, ms, causes, disputes,
                      empty_doubts)


def game_tasks(games: list[GameSample], level: str, size: tuple[int, int], seed: int, fonts: str,
               lexicon_from: str | None = None) -> list[tuple]:
    """The worker tasks (:func:`read_game`) of ``games`` at ``level``; ``lexicon_from``: the shared folder whose
    corpus gives the games' lexicon (:func:`corpus_lexicon`), or None (no word check)."""
    return [(i, tuple(tuple(b.cells) for b in g.boards), g.tile_set.name, level, size, seed, fonts, 0.0,
             lexicon_from) for i, g in enumerate(games)]
