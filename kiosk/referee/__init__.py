"""The referee: game flow, clocks, holds, challenges, tile tracking and rule presets.

Pure logic (no I/O beyond reading bundled preset/tile files, no hardware; time comes in as event timestamps
in ms). The kiosk app drives it from one event loop, through :class:`kiosk.store.GameSession` so that every
accepted event is journaled before it takes effect::

    from kiosk.referee import load_preset
    from kiosk.referee.events import GameStarted, ClockPressed, Play, Challenge, ChallengeRuled
    from kiosk.store import GameSession

    session = GameSession.open("/var/lib/kiosk/journal.sqlite")   # resumes an unfinished game
    session.resume(now_ms)                                         # downtime charged to nobody
    if not session.in_game:
        session.apply(GameStarted(t=now_ms, preset=load_preset("nsf").to_dict(), players=("Ann", "Bob")))
    session.apply(ClockPressed(t=press_ms, player=0))              # clock button
    result = session.apply(Play(t=read_ms, player=0, tiles=((112, "Q"), (113, "I"))))  # accepted board reading
    if not result:                                                 # refused: result.reason, .code, .judge, .squares
        ...
    session.advance(now_ms)                                        # due time events (window closed, courtesy, overtime)
    session.heartbeat(now_ms)                                      # every few seconds
    session.referee.state                                          # frozen GameState (to_dict() for the stream)
    session.referee.pending_prompts()                              # what the touchscreen shows / asks
    session.referee.challenge_ruling(lexicon, now_ms)              # lexicon's suggested ruling for the judge

Modules: :mod:`~kiosk.referee.events` (event values), :mod:`~kiosk.referee.referee` (:class:`Referee`, the
dispatcher), :mod:`~kiosk.referee.phase` (:class:`Phase` and ``ALLOWED``, which events each phase allows; see
``docs/phases.md``), :mod:`~kiosk.referee.kinds` (refusal codes, end reasons, prompt kinds),
:mod:`~kiosk.referee.state` (snapshots, prompts, results), :mod:`~kiosk.referee.clock`,
:mod:`~kiosk.referee.presets`, :mod:`~kiosk.referee.endgame`, :mod:`~kiosk.referee.gcg_export`,
:mod:`~kiosk.referee.game_id` (the one rule naming a recorded game, and the characters an id may hold),
:mod:`~kiosk.referee.simulate` (scripted games and the :class:`~kiosk.referee.simulate.Script` driver).
Private to the package: :mod:`~kiosk.referee.model` (the mutable game) and the handler modules
:mod:`~kiosk.referee.turns`, :mod:`~kiosk.referee.challenges`, :mod:`~kiosk.referee.timing`,
:mod:`~kiosk.referee.judge`, :mod:`~kiosk.referee.ending`, with :mod:`~kiosk.referee.prompts` and
:mod:`~kiosk.referee.snapshot` reading the model out.
"""

from kiosk.referee.events import Event, EventError, event_from_dict
from kiosk.referee.kinds import Code, EndReason, PromptKind
from kiosk.referee.phase import ALLOWED, Phase
from kiosk.referee.presets import Preset, PresetError, bundled_presets, load_preset
from kiosk.referee.referee import Prepared, Referee
from kiosk.referee.state import GameResult, GameState, Prompt, Result

__all__ = [
    "ALLOWED", "Code", "EndReason", "Event", "EventError", "GameResult", "GameState", "Phase", "Preset", "PresetError",
    "Prepared", "Prompt", "PromptKind", "Referee", "Result", "bundled_presets", "event_from_dict", "load_preset",
]
