"""What the touchscreen remembers between taps (:class:`TouchState`): the overlay shown, the PIN being typed,
the racks being entered, the judge's selections, the new-game choices. The screens draw from it and the
kiosk's state; the actions change it and send commands to the kiosk."""

from __future__ import annotations

from collections import Counter

from kiosk.control.port import KioskPort
from kiosk.control.words import device_problems
from kiosk.devices.health import DeviceHealth

CLOCK_DOWN = frozenset(device_problems([DeviceHealth("buttons", "", "down"), DeviceHealth("clock-link", "", "down")])
                       .values())
"""The device lines (``view.devices``) that say the chess clock's buttons cannot be pressed: the buttons or the
clock's link (a serial clock's presses come over it) are down."""


class TouchState:
    """The touchscreen's own state, beside the kiosk it talks to.

    Attributes:
        kiosk: the table's kiosk (:class:`KioskPort`). overlay: the screen asked for on top of the state's
        ("exchange", "pin", "judge", "judge_correct", "judge_adjust", "judge_player", "new_game") or None. pin_buffer: the
        digits typed; pin_touched_ms: kiosk time the PIN pad was opened or last touched. pin_purpose: "judge" (open the menu), "rule:1" / "rule:0" (rule acceptable /
        unacceptable). selected: the square the judge tapped. racks / rack_player: the end-of-game racks
        typed so far (one per player) and whose is being typed; rack_said: why Done was refused (shown until the
        next key). adj_player / adj_points / adj_reason: the
        judge's score adjustment (adj_player, None until the judge taps one on the screen he opened, also the
        player of the judge's player screen: a minute, resign,
        lateness); late_minutes: the lateness the judge sets there (minutes). new_players / new_preset: the new-game screen's choices (2-4 players in turn
        order); name_pool: the names a player count of up to 4 takes them from. wired: the seats whose clock
        button is wired (the chess clock's left and right); the others end their turn with the screen's "Done",
        and so do these while the clock is down (:meth:`wired_now`).
    """

    def __init__(self, kiosk: KioskPort, players: tuple[str, ...], preset: str) -> None:
        self.kiosk = kiosk
        self.overlay: str | None = None
        self.pin_buffer = ""
        self.pin_purpose = "judge"
        self.pin_touched_ms = 0
        self.selected: int | None = None
        self.racks = [""] * self.player_count()
        self.rack_player = 0
        self.rack_said = ""
        self.adj_player: int | None = None
        self.adj_points = 0
        self.adj_reason = "misscored"
        self.late_minutes = 0
        self.new_players = tuple(players)
        self.new_preset = preset
        self.event_preset = preset  # the event's rules (a bundled name or its preset file): the first choice
        self.name_pool = tuple(players) + tuple(f"Player {i}" for i in range(len(players) + 1, 5))
        self.wired: frozenset[int] = frozenset({0, 1})

    def new_game(self) -> None:
        """A game started: the last game's overlay, selections and typed racks do not carry over (a fourth
        player chosen on the judge's player screen does not exist in a two-player game)."""
        self.overlay, self.selected, self.pin_buffer = None, None, ""
        self.racks, self.rack_player = [""] * self.player_count(), 0
        self.adj_player, self.adj_points, self.adj_reason, self.late_minutes = None, 0, "misscored", 0

    def wired_now(self) -> frozenset[int]:
        """The seats whose clock button works now: :attr:`wired`, or none while the clock's buttons or its link are
        reported down (:data:`CLOCK_DOWN` in ``view.devices``); every other seat gets the screen's Done (README:
        with the clock buttons down, the touchscreen's clock buttons remain). When the clock works again, the
        wired seats' Done goes: each seat keeps one way to end its turn, the clock its players' hands know, and
        the panel keeps its room for the challenge and exchange buttons."""
        if CLOCK_DOWN.intersection(self.kiosk.view.devices):
            return frozenset()
        return self.wired

    def player_count(self) -> int:
        """Players in the game (2 before a game starts)."""
        return len(self.kiosk.state.players) or 2

    def next_player(self, player: int) -> int:
        """The player after ``player`` in turn order (the one who may hold or challenge ``player``'s play)."""
        return (player + 1) % self.player_count()

    def rack_list(self) -> list[str]:
        """The racks typed so far, one per player of the game (a new game's count, whatever it was before)."""
        n = self.player_count()
        if len(self.racks) != n:
            self.racks = (self.racks + [""] * n)[:n]
            self.rack_player = min(self.rack_player, n - 1)
        return self.racks

    def rack_keys(self) -> list[tuple[str, int]]:
        """Every tile of the game's set in a fixed order (letters, then the blank) with how many are still
        possible for the rack being entered (0: used up, its key greyed but kept in place, so the keys after it
        never shift under a finger)."""
        tile_set = self.kiosk.tile_set
        left = dict(self.rack_choices())
        tiles = sorted(tile_set.letters) + ["?"] * bool(tile_set.blanks) if tile_set else sorted(left)
        return [(t, left.get(t, 0)) for t in tiles]

    def rack_choices(self) -> list[tuple[str, int]]:
        """Tiles still possible for the rack being entered: the unseen tiles minus those already typed."""
        unseen = Counter(dict(self.kiosk.state.unseen))
        unseen.subtract(Counter("".join(self.rack_list())))
        return [(t, n) for t, n in sorted(unseen.items(), key=lambda kv: (kv[0] == "?", kv[0])) if n > 0]
