"""Subcommands of the ``kiosk`` command line (see :mod:`kiosk.cli`)."""
