"""The values a person writes in the kiosk's settings files, checked where every tool that reads them can reach
them: the ``[table]`` section of the config file (:mod:`kiosk.settings.table`: ``kiosk run``, its ``--check`` and
the device check refuse a value in one sentence) and the rule of a PIN (:mod:`kiosk.settings.pins`: the config's
and the desk's). Below :mod:`kiosk.app` and :mod:`kiosk.devices` (both use it), above the rules, the presets and
the lexicons (it loads them to check a value naming one)."""
