"""The Scrabble referee kiosk.

Pure logic lives in :mod:`kiosk.rules` (tiles, board, placement, scoring, lexicon, GCG) and
:mod:`kiosk.referee` (game flow, clocks, challenges, journal folding); hardware, camera, screen and
network live at the edges (:mod:`kiosk.devices`, :mod:`kiosk.vision`, :mod:`kiosk.ui`, :mod:`kiosk.stream`).
"""

__version__ = "0.1.0"
