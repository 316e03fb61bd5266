"""The kiosk's control seam: what the touchscreen and the clock send to the kiosk, and what they may ask of it.

- :mod:`kiosk.control.commands`: frozen command types, one per touchscreen action (``Hold(player)``,
  ``Designate(player, square, letter)``, ``Rule(acceptable, pin)`` ...). :meth:`kiosk.app.kiosk.Kiosk.handle`
  turns each into referee events.
- :mod:`kiosk.control.port`: :class:`KioskPort`, the protocol the touchscreen talks to (the app's ``Kiosk``
  is one); :class:`KioskView`, what the screen shows besides the referee's state; :func:`act`, a command given
  by name with loose values (scripts, the demo's simulated players).
- :mod:`kiosk.control.side`: :class:`Side`, a player's side of the table (clock button and clock face).

The touchscreen (``kiosk.ui``) imports only this package and the referee's read-only values, never ``kiosk.app``.
"""
