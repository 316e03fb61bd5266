"""A recorded game (GCG) as the referee events a real table would have produced - for demos and tests.

:func:`events_from_gcg` drives a real :class:`~kiosk.referee.Referee` through the record, so the events it
returns are exactly ones the referee accepts: plays (blanks placed as ``"?"`` then designated), passes,
exchanges, challenges ruled either way with the phony taken off, out-plays accepted, racks entered after a
scoreless end. Scores are the referee's own (under the chosen preset); time penalties in the record are
skipped (the referee charges time from its own clock). A record the referee cannot follow raises
:class:`GcgDemoError` naming the file, the line and the referee's reason.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kiosk.referee.events import (
    BlankDesignated,
    Challenge,
    ChallengeRuled,
    Event,
    Exchange,
    GameStarted,
    OutplayAccepted,
    Pass,
    Play,
    RacksEntered,
    TilesRemoved,
)
from kiosk.referee.presets import PresetError, load_preset
from kiosk.referee.referee import Referee
from kiosk.referee.state import OUTPLAY, OVER, PLAYING, RACK_ENTRY
from kiosk.rules.gcg import EventKind, GcgError, GcgGame, read_gcg
from kiosk.rules.placement import Placement
from kiosk.rules.racks import split_racks


class GcgDemoError(ValueError):
    """The record cannot be turned into referee events (``file:line: reason``)."""


class _Driver:
    def __init__(self, game: GcgGame, preset: str, step_ms: int, start_ms: int) -> None:
        self.game = game
        self.name = game.name or "<gcg>"
        self.ref = Referee()
        self.events: list[Event] = []
        self.step = step_ms
        self.t = start_ms
        try:
            self.preset = load_preset(preset)
        except PresetError as exc:
            raise GcgDemoError(f"{self.name}: {exc}") from None

    def go(self, ev: Event, line: int) -> None:
        res = self.ref.apply(ev)
        if not res.accepted:
            raise GcgDemoError(f"{self.name}:{line}: the referee refuses {ev.type}: {res.reason}")
        self.events.append(ev)

    def later(self, ms: int | None = None) -> int:
        self.t = max(self.t, self.ref.state.last_t) + (self.step if ms is None else ms)
        return self.t

    def challenge(self, line: int, acceptable: bool) -> None:
        st = self.ref.state
        lp = st.last_play
        if lp is None:
            raise GcgDemoError(f"{self.name}:{line}: a challenge with no play before it")
        opp = (lp.player + 1) % len(st.players)
        self.go(Challenge(t=self.later(1_000), player=opp), line)
        self.go(ChallengeRuled(t=self.later(3_000), acceptable=acceptable, judge="demo"), line)
        if not acceptable:
            self.go(TilesRemoved(t=self.later(2_000)), line)

    def run(self) -> list[Event]:
        g = self.game
        players = tuple(p.name.strip() or p.nick for p in g.players)
        if len(set(players)) != len(players):
            players = tuple(p.nick for p in g.players)
        game_id = (g.pragmas.get("id") or [Path(self.name).stem])[-1].replace(" ", "_")[:64]
        self.go(GameStarted(t=self.t, preset=self.preset.to_dict(), players=players, game_id=game_id), 0)
        evs = g.events
        racks: dict[int, str] = {}
        for i, ev in enumerate(evs):
            p = g.player_index(ev.nick)
            if p < 0:
                raise GcgDemoError(f"{self.name}:{ev.line}: unknown player '{ev.nick}'")
            st = self.ref.state
            if st.phase == OVER:
                break
            nxt = evs[i + 1].kind if i + 1 < len(evs) else None
            if ev.kind is EventKind.PLAY:
                assert ev.coordinate is not None
                try:
                    placement = Placement.from_word(None, ev.coordinate, ev.word, through=ev.through)
                except ValueError as exc:
                    raise GcgDemoError(f"{self.name}:{ev.line}: {exc}") from None
                self.go(Play(t=self.later(), player=p, tiles=placement.undesignated), ev.line)
                for sq, letter in placement.blanks:
                    self.go(BlankDesignated(t=self.later(2_000), player=p, square=sq, letter=letter), ev.line)
                if self.ref.state.phase == OUTPLAY and nxt not in (EventKind.WITHDRAWN, EventKind.CHALLENGE_BONUS):
                    self.go(OutplayAccepted(t=self.later(1_000), player=(p + 1) % len(players)), ev.line)
            elif ev.kind is EventKind.WITHDRAWN:
                self.challenge(ev.line, acceptable=False)
            elif ev.kind is EventKind.CHALLENGE_BONUS:
                self.challenge(ev.line, acceptable=True)
            elif ev.kind is EventKind.PASS:
                self.go(Pass(t=self.later(), player=p), ev.line)
            elif ev.kind is EventKind.EXCHANGE:
                self.go(Exchange(t=self.later(), player=p, count=ev.count or len(ev.tiles)), ev.line)
            elif ev.kind is EventKind.END_RACK:
                if st.phase == OUTPLAY:
                    lp = st.last_play
                    assert lp is not None
                    self.go(OutplayAccepted(t=self.later(1_000), player=(lp.player + 1) % len(players)), ev.line)
                elif st.phase == RACK_ENTRY:
                    racks[p] = ev.tiles
            # TIME_PENALTY: skipped (the kiosk's own clock decides time penalties)
        self.finish(racks)
        return self.events

    def finish(self, racks: dict[int, str]) -> None:
        st = self.ref.state
        if st.phase == OUTPLAY:
            lp = st.last_play
            assert lp is not None
            self.go(OutplayAccepted(t=self.later(1_000), player=(lp.player + 1) % len(st.players)), 0)
        elif st.phase == RACK_ENTRY:
            known = {**self.game.racks, **racks}
            entered = tuple(known.get(i, "") for i in range(len(st.players)))
            if any(len(r) != n for r, n in zip(entered, st.racks)):
                entered = split_racks(Counter(dict(st.unseen)), st.racks)
            self.go(RacksEntered(t=self.later(), racks=entered), 0)
        elif st.phase not in (PLAYING, OVER):
            raise GcgDemoError(f"{self.name}: the record ends in the middle of a turn ({st.phase})")


def events_from_gcg(source: str | Path | GcgGame, preset: str = "naspa", *, step_ms: int = 15_000,
                    start_ms: int = 1_000) -> list[Event]:
    """The referee events of a recorded game.

    Args:
        source: a GCG file path or a parsed :class:`GcgGame`.
        preset: rule preset the referee applies (bundled name or .toml path; default "naspa").
        step_ms: time between turns (ms; each player's clock is charged that much per turn).
        start_ms: time of ``game_started`` (ms).

    Raises:
        GcgDemoError: unreadable record, record errors, or a move the referee refuses (file:line: reason).
    """
    if isinstance(source, GcgGame):
        game = source
    else:
        try:
            game = read_gcg(source)
        except GcgError as exc:
            raise GcgDemoError(str(exc)) from None
    if game.errors:
        raise GcgDemoError(f"the record has errors; first: {game.errors[0]}")
    if not 2 <= len(game.players) <= 4:
        raise GcgDemoError(f"{game.name}: {len(game.players)} players in the record (2-4 needed)")
    if step_ms < 5_000:
        raise GcgDemoError(f"step_ms {step_ms}: at least 5000 ms between turns (challenges need room)")
    return _Driver(game, preset, step_ms, start_ms).run()
