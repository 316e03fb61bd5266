"""The kiosk application: the event loop that owns the referee, the vision worker, the demo's simulated table.

Entry points: :class:`kiosk.app.kiosk.Kiosk` (one table's controller), :class:`kiosk.app.vision_worker.VisionWorker`,
:func:`kiosk.app.record_demo.run_demo` (``kiosk demo``) and :mod:`kiosk.app.config` (``kiosk run``'s config file).
"""
