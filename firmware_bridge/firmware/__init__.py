"""Firmware for the RP2040 clock board (MicroPython). The modules also run under CPython for tests and the
simulator; main.py is the only one that touches hardware."""
