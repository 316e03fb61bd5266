"""The synthetic camera: renders the current physical board with :func:`kiosk.vision.synth.render_board`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kiosk.devices.camera import CameraError, check_frame
from kiosk.devices.health import DeviceHealth, HealthTracker, monotonic_ms
from kiosk.rules.counts import counted


class SyntheticCamera:
    """``board``: callable returning the physical Board now on the table; ``seed``: the scene (camera pose,
    board and table style: a fixed camera watching one game), passed as ``scene_seed``; each capture renders
    with ``seed`` + frame number so repeated shots differ like real ones (light, noise, a hand) unless
    ``fixed_seed``; ``level``: render_board's realism level ("easy"/"typical"/"hard"); ``size`` (w, h) px;
    ``render``: injects the renderer (default kiosk.vision.synth.render_board)."""

    def __init__(self, board: Callable[[], Any], seed: int = 0, level: Any = None, fixed_seed: bool = False,
                 size: tuple[int, int] | None = None, render: Callable[..., Any] | None = None) -> None:
        self.board = board
        self.seed = seed
        self.size = size
        self.level = level
        self.fixed_seed = fixed_seed
        self.frames = 0
        self._render = render
        self._health = HealthTracker("camera", "synthetic", "ok", self.describe())

    def describe(self) -> str:
        """What it renders, for its health line: "renders the board, typical realism, 2028x1520 px" (the
        renderer's defaults named, where the line said "level None")."""
        level = self.level if isinstance(self.level, str) else "typical" if self.level is None else "custom"
        w, h = self.size or (2028, 1520)
        return f"renders the board, {level} realism, {w}x{h} px"

    def _renderer(self) -> Callable[..., Any]:
        if self._render is None:
            try:
                from kiosk.vision.synth import render_board
            except ImportError as exc:
                self._health.set("down", f"synthetic renderer unavailable: {exc}")
                raise CameraError(f"synthetic renderer unavailable: {exc}") from exc
            self._render = render_board
        return self._render

    def capture(self) -> tuple[int, np.ndarray]:
        render = self._renderer()
        seed = self.seed if self.fixed_seed else self.seed + self.frames
        kwargs: dict[str, Any] = {"seed": seed, "scene_seed": self.seed}
        if self.level is not None:
            kwargs["level"] = self.level
        if self.size is not None:
            kwargs["size"] = self.size
        try:
            result = render(self.board(), **kwargs)
        except Exception as exc:  # a renderer bug must not take the kiosk down
            self._health.count("render_errors")
            self._health.set("down", f"synthetic render failed: {exc}")
            raise CameraError(f"synthetic render failed: {exc}") from exc
        self.frames += 1
        image = getattr(result, "image", result)
        self._health.set("ok", f"{self.describe()}; {counted(self.frames, 'frame')} rendered")
        return monotonic_ms(), check_frame(image, "synthetic camera")

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        pass
