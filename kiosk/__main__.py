"""``python -m kiosk``: the same as the ``kiosk`` command (:mod:`kiosk.cli`)."""

import sys

from kiosk.cli import main

sys.exit(main())
