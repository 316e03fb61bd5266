"""``python -m kiosk.vision.train ...``: see :mod:`kiosk.vision.train`."""

import sys

from kiosk.vision.train import main

sys.exit(main())
