"""MicroPython entry point for an RP2040 clock board (Raspberry Pi Pico or similar). Copy this folder's
``proto.py``, ``link.py``, ``debounce.py``, ``app.py`` and ``main.py`` to the board (e.g. ``mpremote cp``).

Wiring (change PINS / I2C below to match your board):
  buttons: GP2 left, GP3 right, GP4 pause, GP5 judge, each to GND (internal pull-ups, active low)
  displays: two HT16K33 4-digit 7-segment backpacks on I2C0 (GP0 SDA, GP1 SCL), left 0x70, right 0x71
  host: USB CDC (the board's USB port); the Pi sees /dev/ttyACM*, the udev rule names it /dev/scrabble-clock

Everything that can be tested runs in app.ClockFirmware; this file only touches hardware.
"""

import os
import select
import sys
import time

import machine
import micropython
from app import ClockFirmware

PINS = (2, 3, 4, 5)
DISPLAY_ADDRESSES = (0x70, 0x71)
POSITIONS = (0, 2, 6, 8)  # HT16K33 RAM address of each digit on a 4-digit backpack; colon at 4

micropython.kbd_intr(-1)  # Ctrl-C (0x03) is data on this link, not an interrupt
buttons = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in PINS]
i2c = machine.I2C(0, sda=machine.Pin(0), scl=machine.Pin(1), freq=400000)


def init_display(addr):
    try:
        i2c.writeto(addr, b"\x21")  # system setup: oscillator on
        i2c.writeto(addr, b"\x81")  # display on, blink off
        i2c.writeto(addr, b"\xef")  # full brightness
        return True
    except OSError:
        return False


def read_buttons():
    return [b.value() == 0 for b in buttons]


def write_display(side, segments, flags):
    ram = bytearray(17)  # command byte 0x00 (RAM address 0) + 16 bytes
    for pos, seg in zip(POSITIONS, segments):
        ram[1 + pos] = seg
    ram[1 + 4] = 0x02 if flags & 0x01 else 0x00
    try:
        i2c.writeto(DISPLAY_ADDRESSES[side], ram)
        i2c.writeto(DISPLAY_ADDRESSES[side], b"\x83" if flags & 0x02 else b"\x81")
        return True
    except OSError:
        init_display(DISPLAY_ADDRESSES[side])
        return False


for a in DISPLAY_ADDRESSES:
    init_display(a)



def random_boot_id():
    """32 random bits from the RP2040's ring oscillator (os.urandom); a reset must not repeat the last id."""
    try:
        b = os.urandom(4)
        return (b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]) or 1
    except (AttributeError, OSError, NotImplementedError):  # a port without urandom: mix what differs per boot
        uid = machine.unique_id()
        x = time.ticks_cpu() ^ (time.ticks_us() << 7)
        for c in uid:
            x = (x * 31 + c) & 0xFFFFFFFF
        return x or 1


fw = ClockFirmware(read_buttons, write_display, boot_id=random_boot_id())
poller = select.poll()
poller.register(sys.stdin.buffer, select.POLLIN)
out = sys.stdout.buffer
start = time.ticks_ms()
elapsed = 0
last = start
while True:
    now = time.ticks_ms()
    elapsed = (elapsed + time.ticks_diff(now, last)) & 0xFFFFFFFF  # ticks_ms wraps early on some ports
    last = now
    rx = bytearray()
    while len(rx) < 64 and poller.poll(0):
        rx.extend(sys.stdin.buffer.read(1))
    data = fw.step(elapsed, rx)
    if data:
        out.write(data)
    time.sleep_ms(1)
