"""Pure rules core: tile sets, board, placement validation, scoring, lexicon and GCG.

No I/O beyond reading bundled data files; no hardware, screen or network imports.
"""
