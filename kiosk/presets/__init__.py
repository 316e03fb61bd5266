"""Bundled rule presets: one TOML file per rule sheet (loaded by :mod:`kiosk.referee.presets`)."""
