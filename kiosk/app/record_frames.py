"""The recording demo's camera and its bad frames (:mod:`kiosk.app.recording`).

A recorded frame can fail the kiosk in two ways, and both are handled as at a table whose camera failed: the
frame is named, and the judge enters the move's tiles from the record (``game.csv``) over the last good frame.

* the file is missing or not an image (:meth:`RecordingCamera.show` raises): found before the press;
* the file is an image that gives no usable reading (black, no board in it, another size, turned, a hand
  over the board, the reader failing on it): found by the press, whose reading fails at once with the
  reader's verdict (the recording's worker is ``still``); the last good frame goes back before the camera.

Before the first usable frame (the first move's frame missing or bad, or the first few) there is no good frame
to go back to: the camera then shows nothing usable (:meth:`RecordingCamera.dark`), the press gets no reading,
and the judge's entries are the move (the kiosk's way with a camera that is down) over the board the referee
holds, empty before the first move. That is as well defined as an entry over a frame, and the game goes on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kiosk.app.recorded_moves import RecordRow, record_tiles
from kiosk.control.words import counted
from kiosk.devices.camera import CameraError
from kiosk.devices.health import DeviceHealth, HealthTracker

DARK_SHAPE = (1520, 2028, 3)
"""The size of :meth:`RecordingCamera.dark`'s frame when no recorded frame can be read for it (rows, columns)."""


class RecordingCamera:
    """The recorded frames as the kiosk's camera: :meth:`show` switches to the frame of a move,
    :meth:`restore` back to the last frame that gave a usable reading."""

    def __init__(self, clock: Callable[[], int]) -> None:
        self.clock = clock
        self.frame: np.ndarray | None = None
        self.path: Path | None = None
        self.good: tuple[np.ndarray, Path] | None = None   # the last frame a press read usefully
        self._health = HealthTracker("camera", "recording")

    def show(self, path: Path) -> None:
        """Show the frame at ``path``. Raises CameraError (naming the file) when it is not a readable image."""
        from kiosk.vision.images import ImageError, read_image

        try:
            img = read_image(path)
        except ImageError as exc:
            raise CameraError(f"recorded frame unreadable: {exc}") from None
        self.frame, self.path = img, path

    def mark_good(self) -> None:
        """The shown frame gave a usable reading: :meth:`restore` goes back to it."""
        if self.frame is not None and self.path is not None:
            self.good = (self.frame, self.path)

    def restore(self) -> bool:
        """Put the last good frame back before the camera (the shown one gave no usable reading); False when
        there is none."""
        if self.good is None:
            return False
        self.frame, self.path = self.good
        return True

    def dark(self, like: Path | None = None) -> None:
        """Nothing usable before the camera (no good frame yet to go back to: :meth:`restore` failed): a black
        frame, of the size of the frame at ``like`` when that can be read, else the recording camera's usual size.
        Its reading fails at once (a ``still`` worker), so the judge's entries are the move (see the module doc)."""
        shape: tuple[int, ...] = DARK_SHAPE
        if like is not None:
            from kiosk.vision.images import ImageError, read_image

            with contextlib.suppress(ImageError, OSError):
                shape = read_image(like).shape
        self.frame, self.path = np.zeros(shape, np.uint8), None

    def capture(self) -> tuple[int, np.ndarray]:
        if self.frame is None:
            raise CameraError("no recorded frame yet")
        return self.clock(), self.frame

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        pass


def frame_fault(path: Path, camera: RecordingCamera) -> str:
    """Show the frame at ``path``; "" when it is an image, else why not, naming the file
    (``image-5.jpg: missing``, ``image-7.jpg: empty file``)."""
    try:
        if not path.exists():
            raise CameraError("missing")
        camera.show(path)
        return ""
    except CameraError as exc:
        return f"{path.name}: " + str(exc).removeprefix("recorded frame unreadable: ").removeprefix(f"{path}: ")


def unusable_reading(unusable_frame: str, problem_squares: tuple[int, ...], path: Path | None) -> str:
    """Why the frame at ``path`` gave the press no usable reading (``image-5.jpg: no usable reading (blank
    frame ...)``), from the kiosk's ``view.unusable_frame`` after the press (the vision worker's
    ``StableReading.unusable``); "" when the press got a reading (its problem, if any, names squares the judge
    can correct)."""
    if problem_squares or not unusable_frame:
        return ""
    return f"{path.name if path else 'the frame'}: no usable reading ({unusable_frame})"


def enter_from_record(kiosk: Any, p: RecordRow, pin: str, why: str, out: Callable[[str], None],
                      camera_down: bool = False) -> int:
    """The judge enters the tiles of move ``p`` from the record over the last good frame (the frame of that
    move failed: ``why``); returns how many squares he set. Says what he did through ``out``.

    ``camera_down``: there is no good frame (:meth:`RecordingCamera.dark`): the entry is the move over the board
    the referee holds, the kiosk having got no reading; a move that lays no tile (a pass) is then entered as an
    empty square confirmed empty (the board as it stands), since with no entry at all the press gets nothing."""
    tiles: list[tuple[int, str]] = []
    if p.button in ("green", "red") and p.coord.strip("- "):
        try:
            tiles = record_tiles(p.coord, p.word, kiosk.state.board)
        except ValueError as exc:
            out(f"  move {p.move}: the record's move cannot be entered ({exc})")
    over = "over the board as it stands (no frame before it to read)" if camera_down else "over the last frame"
    out(f"  move {p.move}: {why}: the judge enters the move from the record ({p.coord} {p.word}, "
        f"{counted(len(tiles), 'tile')}) {over}")
    if camera_down and not tiles:
        empty = next((sq for sq, have in enumerate(kiosk.state.board) if not have), None)
        tiles = [] if empty is None else [(empty, ".")]
    if tiles:
        kiosk.act("judge_unlock", pin=pin)
        for sq, ch in tiles:
            kiosk.act("correct", square=sq, char=ch)
    return len(tiles)


def greyscale_without_corners(frames: list[Path]) -> str | None:
    """Why a recording without corners gave ``frames`` (those whose moves the judge entered) no usable reading,
    when they are greyscale photos: the reader finds the board without corners by its colours. Names how many
    of them are; None when none is (or none can be read: each is then named by its own fault)."""
    from kiosk.vision.images import NO_COLOUR, ImageError, is_greyscale_photo, read_image

    grey = []
    for path in frames:
        try:
            if is_greyscale_photo(read_image(path)):
                grey.append(path.name)
        except ImageError:
            continue
    if not grey:
        return None
    which = grey[0] if len(grey) == 1 else f"{len(grey)} of those frames ({grey[0]} the first)"
    return (f"{which}: {NO_COLOUR}; the reader finds the board by its colours, so without the board's corners "
            "(warp-coord in game.ini) it cannot read a greyscale frame: give warp-coord to have them read")


def grouped(problems: list[str]) -> str:
    """``problems`` (``"image-5.jpg: REASON"``, in move order) as one line: the frames of one kind of reason (its
    numbers aside) together, named by the first reason, e.g. ``image-1.jpg, image-2.jpg, ... image-21.jpg (21
    frames): no usable reading (grid uncertain: 49 of the 54 squares ... and the like)``."""
    import re

    kinds: dict[str, list[tuple[str, str]]] = {}
    for text in problems:
        name, _, reason = text.partition(": ")
        kinds.setdefault(re.sub(r"\d+", "N", reason), []).append((name, reason))
    parts = []
    for items in kinds.values():
        names = [n for n, _ in items]
        shown = ", ".join(names) if len(names) <= 3 else f"{names[0]}, {names[1]}, ... {names[-1]} ({len(names)} frames)"
        alike = " and the like" if len({r for _, r in items}) > 1 else ""
        parts.append(f"{shown}: {items[0][1]}{alike}")
    return "; ".join(parts)


def frame_lines(folder: Path, corners: bool, entered: list[str], unrefereed: list[str]) -> list[str]:
    """The closing lines on the recording's bad frames (``folder``; ``corners``: game.ini gives them):
    ``entered`` those whose moves the judge entered, ``unrefereed`` those of moves nothing could be entered over
    (each ``"image-5.jpg: REASON"``)."""
    lines = []
    if entered:
        lines.append(f"frames: {grouped(entered)} (those moves were entered by the judge from the record)")
        grey = None if corners else greyscale_without_corners([folder / p.partition(": ")[0] for p in entered])
        if grey is not None:
            lines.append(f"why: {grey}")
    if unrefereed:
        lines.append(f"frames: {grouped(unrefereed)} (nothing to enter them over: those moves were not refereed)")
    return lines



def vision_line(shown: list[str], entered: list[str], unrefereed: list[str], seconds: float) -> str:
    """The closing ``vision:`` line: how many of the frames the game showed (``shown``: their file names, in move
    order) were read and how many could not be (``entered`` and ``unrefereed``, as for :func:`frame_lines`: a
    frame missing, not an image, or giving no usable reading), naming those, e.g. ``vision: 26 of 27 frames read
    in 3.7 s; 1 could not be: image-9.jpg (why: the frames: line above)``."""
    frames = list(dict.fromkeys(shown))
    failed = {p.partition(": ")[0] for p in [*entered, *unrefereed]}
    bad = [name for name in frames if name in failed]
    line = f"vision: {len(frames) - len(bad)} of {counted(len(frames), 'frame')} read in {seconds:.1f} s"
    if bad:
        names = ", ".join(bad) if len(bad) <= 5 else f"{', '.join(bad[:3])}, ... {bad[-1]}"
        line += f"; {len(bad)} could not be: {names} (why: the frames: line above)"
    return line
