"""Clock microcontroller on USB serial: protocol (firmware/proto.py, PROTOCOL.md), firmware (firmware/), the
host side (host.py, pyserial) and a simulator speaking the protocol over a pty (simulator.py)."""
