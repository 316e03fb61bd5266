"""The touchscreen: pygame screens drawn from the kiosk's state, taps turned into kiosk actions.

:class:`kiosk.ui.app.KioskUI` is the whole screen (one surface, any size: 800x480 landscape by default, portrait
such as 720x1280 too); :class:`kiosk.ui.window.DemoWindow` puts it in a window for ``kiosk demo``.
"""
