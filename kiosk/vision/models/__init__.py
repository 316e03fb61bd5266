"""Shipped default models of the board reader (built by ``python -m kiosk.vision.train defaults``)."""
