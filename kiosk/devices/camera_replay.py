"""Replays recorded frames: a folder of images (sorted by name) or a video file. For demos, tests and
re-running the reader on a recorded game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from kiosk.devices.camera import CameraError, check_frame
from kiosk.devices.health import DeviceHealth, HealthTracker, monotonic_ms

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class ReplayCamera:
    """``path``: a folder of images or a video file; ``loop``: start over at the end (else CameraError
    "end of replay"). An unreadable image raises CameraError naming it; the next capture moves on. Health:
    "degraded" after an unreadable image, "down" once every image of the folder in a row was unreadable (a
    folder of garbage is a camera that does not work), "ok" again with the next image read."""

    def __init__(self, path: str | Path, loop: bool = True) -> None:
        self.path = Path(path)
        self.loop = loop
        self.index = 0
        self._files: list[Path] = []
        self._video: Any = None
        self._health = HealthTracker("camera", "replay")
        self._bad_run = 0    # unreadable images in a row
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise CameraError(f"replay folder {self.path} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        elif self.path.is_file():
            self._open_video()
        else:
            raise CameraError(f"replay source {self.path} does not exist")
        self._health.set("ok", f"replaying {self.path}")

    def _open_video(self) -> None:
        import cv2

        video = cv2.VideoCapture(str(self.path))
        if not video.isOpened():
            raise CameraError(f"replay video {self.path} cannot be opened")
        self._video = video

    def __len__(self) -> int:
        return len(self._files)

    def capture(self) -> tuple[int, np.ndarray]:
        if self._video is not None:
            return self._capture_video()
        from kiosk.vision.images import ImageError, read_image

        if self.index >= len(self._files):
            if not self.loop:
                self._health.set("down", "end of replay")
                raise CameraError(f"end of replay {self.path}")
            self.index = 0
        f = self._files[self.index]
        self.index += 1
        try:
            frame = read_image(f)
        except ImageError as exc:
            self._health.count("bad_files")
            self._bad_run += 1
            if self._bad_run >= len(self._files):
                self._health.set("down", f"no image in {self.path} can be read (the last: {exc})")
            else:
                self._health.set("degraded", f"an image cannot be read: {exc}")
            raise CameraError(f"replay image unreadable: {exc}") from None
        if self._bad_run:
            self._bad_run = 0
            self._health.set("ok", f"replaying {self.path}")
        self._health.count("frames")
        return monotonic_ms(), check_frame(frame, str(f))

    def _capture_video(self) -> tuple[int, np.ndarray]:
        ok, frame = self._video.read()
        if not ok and self.loop and self.index > 0:
            self._video.release()
            self._open_video()
            self.index = 0
            ok, frame = self._video.read()
        if not ok:
            self._health.set("down", "end of replay")
            raise CameraError(f"end of replay {self.path}")
        self.index += 1
        self._health.count("frames")
        return monotonic_ms(), check_frame(frame, f"{self.path} frame {self.index}")

    def health(self) -> DeviceHealth:
        return self._health.snapshot()

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None
