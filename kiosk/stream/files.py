"""File names for the stream's outputs (records, overlay fields); they are written by :func:`kiosk.files.write_atomic`.

:func:`safe_name` lives with the game id's rule (:mod:`kiosk.referee.game_id`, pure, which the referee uses
too); it is named here as well for the stream's and the desk's file names."""

from __future__ import annotations

from kiosk.referee.game_id import safe_name

__all__ = ["safe_name"]
