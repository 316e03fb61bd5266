"""The board reader the kiosk uses: :class:`kiosk.vision.reader.BoardReader`, set up once per table; and the calibration
profile a recording's letter images give (:func:`recording_profile`)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kiosk.rules.tiles import TileSet
from kiosk.vision.reading import N_SQUARES, BoardReading


class ReaderUnavailable(RuntimeError):
    """The vision reader cannot be set up (module missing, bad calibration profile); the message says why."""


def make_reader(tile_set: TileSet, profile: Any = None, corners: np.ndarray | None = None,
                prior: Callable[[], Any] | None = None) -> Callable[[np.ndarray], BoardReading]:
    """A callable frame (BGR uint8 HxWx3) -> :class:`BoardReading` for ``tile_set``.

    ``profile``: the calibration profile (a :class:`kiosk.vision.profile.CalibrationProfile`, or the path of
    its file, loaded here), or None for the reader's built-in models;
    ``corners``: the board's grid corners in the frame (4x2 px) when known (fixed camera), else the reader
    locates the board itself; ``prior``: the game's :class:`kiosk.vision.game.GamePrior` now (the referee's
    accepted board): then the reader is a :class:`kiosk.vision.game.GameReader`, every reading judged
    against it, and without ``corners`` the board found first is kept from frame to frame.

    Raises:
        ReaderUnavailable: ``kiosk.vision.reader`` is missing or refuses the set-up, or the profile file cannot
            be loaded (the message names the file and why).
    """
    try:
        from kiosk.vision.reader import BoardReader
    except ImportError as exc:
        raise ReaderUnavailable(f"the board reader (kiosk.vision.reader) is not available: {exc}") from None
    if isinstance(profile, str | Path):
        from kiosk.vision.profile import ProfileError, load_profile

        try:
            profile = load_profile(profile)
        except (ProfileError, ValueError, OSError) as exc:
            raise ReaderUnavailable(f"the calibration profile {profile} cannot be used: {exc}") from None
    try:
        reader = BoardReader(tile_set, profile)
    except (ValueError, OSError) as exc:   # the reader's own errors (ModelError, ProfileError) say what and where
        raise ReaderUnavailable(f"the board reader cannot start: {exc}") from None
    except Exception as exc:  # anything else: reported with its kind, never a traceback
        raise ReaderUnavailable(f"the board reader cannot start: {type(exc).__name__}: {exc}") from None

    if prior is not None:
        from kiosk.vision.game import GameReader

        return GameReader(reader.read, reader.tile_set, corners=corners, prior=prior)

    def read(frame: np.ndarray) -> BoardReading:
        return reader.read(frame, corners=corners)

    return read


def board_prior(kiosks: list[Any], tile_set: TileSet) -> Any:
    """The reader's prior at a table (a :class:`kiosk.vision.game.GamePrior`): the accepted board of
    ``kiosks[0]`` (the kiosk, once made; an empty board before) and the tiles not on it. The kiosk is made after
    its reader, so the table hands the reader ``partial(board_prior, held, tile_set)`` and appends the kiosk to
    ``held`` once it exists (``kiosk run``, the recording demo)."""
    from kiosk.vision.game import prior_from_board

    return prior_from_board(kiosks[0].state.board if kiosks else [""] * N_SQUARES, tile_set)


def recording_profile(folder: Path, out: Callable[[str], None] = print) -> Path | None:
    """The calibration profile for a recording: a ScrabScrap recording keeps that system's letter images of the
    same tiles beside the game folders (``../letter-templates/default``), the calibration material the event
    allows. The profile is built from them once (about 2-3 minutes) and cached; None when there are none.

    Raises ValueError when the letter images are malformed (naming them)."""
    templates = folder.parent / "letter-templates" / "default"
    if not templates.is_dir():
        return None
    from kiosk.lexicons import cache_dir

    stamp = hashlib.sha1("".join(f"{p.name}:{p.stat().st_size}:{int(p.stat().st_mtime)}"
                                 for p in sorted(templates.iterdir())).encode()).hexdigest()[:12]
    cached = cache_dir() / "profiles" / f"letter-templates-{stamp}.json"
    if not cached.exists():
        from kiosk.vision.train import build_profile

        out(f"calibrating the reader from the recording's letter images {templates} (once; cached in {cached}) ...")
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(cached.name + f".{os.getpid()}.tmp")
        with contextlib.redirect_stderr(io.StringIO()):  # its progress lines would land after our final line
            acc = build_profile(tmp, templates, "german", 20, f"glyph model from the letter templates {templates}")
        os.replace(tmp, cached)
        out(f"calibrated: cross-validated letter accuracy {acc:.1%}")
    return cached
