"""``kiosk run``: one table with the backends its config names (Pi hardware), in one event loop.

The loop (about 30 turns a second) takes the clock buttons' presses (stamped when they happened), the
touchscreen's taps, the vision worker's readings and the referee's due time events, in that order, on this one
thread; the journaled session sees every event first, then the screen and the stream. On every turn the clock
display is brought up to the referee's time when a face changed (:class:`LiveClockFace`: within one loop turn).
Every few seconds it writes a heartbeat (so a restart charges the downtime to nobody) and tells systemd's
watchdog that the loop is alive.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from kiosk.app.clock_face import LiveClockFace
from kiosk.app.config import KioskConfig
from kiosk.app.device_log import DeviceLog
from kiosk.app.event_clock import EventClock, wall_ms
from kiosk.app.flags import TableFlags
from kiosk.app.kiosk import Kiosk
from kiosk.app.pin import PinGate, pin_state_path
from kiosk.app.reader_setup import ReaderUnavailable, board_prior, make_reader
from kiosk.app.vision_worker import VisionWorker
from kiosk.control.rules_choice import rules_preset
from kiosk.devices.health import monotonic_ms
from kiosk.referee.events import Event, KioskResumed
from kiosk.referee.presets import Preset, PresetError, bundled_presets
from kiosk.rules.board import Board
from kiosk.rules.tiles import TileSet, load_tile_set
from kiosk.store import GameSession, JournalError, JournalFull, open_wait_sentence

log = logging.getLogger("kiosk.run")


def stream_seed(session: GameSession) -> list[Event]:
    """The events a restarted kiosk re-publishes from its journal (the desk drops the ones it has, by ``seq``):
    the game in progress, or else the journal's latest game with events, finished or not - a game that ended
    while the broker was out of reach would otherwise never reach the desk. Empty for a new journal."""
    if session.in_game:
        return list(session.referee.events)
    for rec in reversed(session.journal.games()):
        events = session.journal.events(rec.id)
        if events:
            return events
    return []


def _stream(cfg: KioskConfig, session: GameSession,
            clock: Callable[[], int]) -> tuple[Any, list[Callable[..., None]], Any]:
    """The stream hub (None: no ``[stream]``; its clocks shown at ``clock``'s time, the events' time base), the
    kiosk's listeners feeding it, and the MQTT publisher."""
    from kiosk.stream.setup import start_stream

    started = start_stream(cfg.stream_settings, stream_seed(session), now_ms=clock)  # problems are logged; never raises
    hub = started.hub
    if hub is None:
        return None, [], None
    return hub, [lambda ev, st: hub.publish(ev)], started.mqtt


def table_reader(tile_set: TileSet, profile: Any, held: list[Kiosk]) -> Callable[[Any], Any]:
    """The table's game-aware reader (:class:`kiosk.vision.game.GameReader`): each frame is read knowing the
    accepted board of ``held[0]`` (the kiosk, appended once made; an empty board before) and the unseen tiles,
    so known tiles are checked rather than read again, a board found is kept from frame to frame, and each
    reading is judged against the game (:func:`kiosk.vision.game.apply_prior`). It never checks the move's words
    against the lexicon (:mod:`kiosk.vision.move_words`): a doubt raised because a word is not in it would show
    both players that a phony is one before anyone challenged it.

    Raises:
        ReaderUnavailable: the reader cannot be set up (see :func:`make_reader`).
    """
    return make_reader(tile_set, profile, prior=partial(board_prior, held, tile_set))


def run_table(cfg: KioskConfig, *, headless: bool = False, max_seconds: float | None = None) -> int:
    """Run the table until the window closes (or ``max_seconds``). Returns the exit code; problems are logged
    and shown, never raised (a device that fails is reported "down" and the kiosk goes on without it)."""
    from kiosk.devices.sdnotify import SdNotifier, start_watchdog

    clock = EventClock(wall_ms, monotonic_ms)  # events: wall-clock ms paced by the devices' monotonic clock
    opened = _open(cfg, clock, max_seconds)
    if isinstance(opened, int):
        return opened
    preset, tile_set, session, devices, profile, event_lexicon = opened
    vision = None
    held: list[Kiosk] = []   # the kiosk, once made: its accepted board is the reader's prior
    try:
        vision = VisionWorker(devices.camera, table_reader(tile_set, profile, held), stable_frames=cfg.stable_frames,
                              clock=clock, frame_clock=monotonic_ms).start()
    except ReaderUnavailable as exc:
        print(f"kiosk run: {exc}: moves must be entered by the judge", file=sys.stderr)
    hub, listeners, mqtt = _stream(cfg, session, clock)
    lexicon = event_lexicon if event_lexicon is not None else _lexicon()
    kiosk = Kiosk(session, vision, lexicon, PinGate(cfg.judge_pin, recovery_code=cfg.director_code,
                                                    state_path=pin_state_path(cfg.journal)), clock, listeners)
    held.append(kiosk)
    note = session.journal.salvage_note(session.game) if session.in_game and session.game is not None else None
    if note:  # the game goes on from a recovered journal: the judge checks the board first
        log.warning("%s", note)
        kiosk.view.message = note
    flags = TableFlags(mqtt, kiosk, devices, note) if mqtt is not None else None
    notifier = SdNotifier()
    window = watchdog = None
    try:  # whatever happens from here on, the clean-up below runs (threads stopped before the interpreter ends)
        window = _screen(cfg, kiosk, devices, preset, headless)
        watchdog = start_watchdog(notifier)
        notifier.ready("kiosk running")
        _loop(kiosk, clock, devices, window, watchdog, max_seconds, flags)
    except KeyboardInterrupt:
        pass
    finally:
        notifier.stopping()
        if watchdog is not None:
            watchdog.stop()
        if vision is not None:
            vision.stop()
        if hub is not None:
            hub.stop()
        if window is not None:
            window.close()
        devices.close()
        session.close()
    return 0


def _rules_of(cfg: KioskConfig) -> tuple[Preset, TileSet, Any] | int:
    """The config's rules preset, tile set and event lexicon (``table.lexicon``, or None); a problem is printed,
    naming the config file and its key, and returned as exit code 2."""
    where = cfg.source or "config"
    try:
        preset = rules_preset(cfg.preset)  # loaded once: the new-game screen starts the event's rules as checked
    except (PresetError, ValueError) as exc:
        print(f"kiosk run: {where}: table.preset: {exc}", file=sys.stderr)
        return 2
    try:
        tile_set = load_tile_set(cfg.tiles or preset.tile_set)
    except ValueError as exc:
        key = "table.tiles" if cfg.tiles else f"the tile set of table.preset {cfg.preset!r}"
        print(f"kiosk run: {where}: {key}: {exc}", file=sys.stderr)
        return 2
    event_lexicon = None
    if cfg.lexicon is not None:
        from kiosk.lexicons import load_lexicon
        from kiosk.rules.lexicon import LexiconError

        try:
            event_lexicon = load_lexicon(cfg.lexicon, tile_set.letters, in_memory=True)   # may be replaced in place
        except LexiconError as exc:
            print(f"kiosk run: {where}: table.lexicon: {exc}", file=sys.stderr)
            return 2
    return preset, tile_set, event_lexicon


def _open(cfg: KioskConfig, clock: EventClock,
          max_seconds: float | None = None) -> tuple[Preset, TileSet, GameSession, Any, Any, Any] | int:
    """The config's rules and tile set, the journal (its game resumed at ``clock``'s time; the clock then counts
    on from the journal's last time if the wall clock booted stale), the devices, the calibration profile and the
    event's lexicon (``table.lexicon``, or None); a problem is printed and returned as exit code 2 (what was opened
    is closed)."""
    from kiosk.devices import build_devices
    from kiosk.devices.factory import DeviceConfigError, devices_words

    rules = _rules_of(cfg)
    if isinstance(rules, int):
        return rules
    preset, tile_set, event_lexicon = rules
    session = _open_journal(cfg, preset, max_seconds)
    if isinstance(session, int):
        return session

    def board_as_kept() -> Board:
        """What a synthetic camera shows at a table run without one: the board as the kiosk keeps it (moves
        come from the judge; the camera, reader and stable-frame path run end to end on it)."""
        return Board(list(session.state.board))

    try:
        devices = build_devices(cfg.devices, board=board_as_kept)
    except DeviceConfigError as exc:
        print(f"kiosk run: {cfg.source or 'config'}: {devices_words(exc)}", file=sys.stderr)
        session.close()
        return 2
    resumed = session.resume(clock())
    if resumed is not None:
        log.info("resumed game %s: %s", session.game, resumed.reason or "ok")
    clock.not_before(session.state.last_t)
    profile = None
    if cfg.profile:
        from kiosk.vision.profile import ProfileError, load_profile

        try:
            profile = load_profile(cfg.profile)
        except ProfileError as exc:
            print(f"kiosk run: calibration profile: {exc}", file=sys.stderr)
            session.close()
            devices.close()
            return 2
    return preset, tile_set, session, devices, profile, event_lexicon


def _open_journal(cfg: KioskConfig, preset: Preset, max_seconds: float | None) -> GameSession | int:
    """The table's journal, its unfinished game checked to be this table's (:func:`other_game`); a problem is
    printed and returned as exit code 2."""
    from kiosk.devices.sdnotify import SdNotifier

    try:
        session = open_session_waiting(cfg.journal, SdNotifier(), max_seconds=max_seconds)
    except JournalError as exc:
        print(f"kiosk run: journal: {exc}", file=sys.stderr)
        return 2
    other = other_game(session, cfg, preset)
    if other:
        print(f"kiosk run: {other}", file=sys.stderr)
        session.close()
        return 2
    return session


def other_game(session: GameSession, cfg: KioskConfig, preset: Preset) -> str | None:
    """Why the journal's unfinished game is not this table's to resume, or None: a ``kiosk demo`` or recording
    game, players the config's names cannot make (the new-game screen takes them from ``table.players`` and
    "Player 3", "Player 4") or rules neither the config's preset nor a bundled one (the screen's choices)."""
    if not session.in_game:
        return None
    first = session.referee.events[0]
    players = tuple(session.state.players)
    game_preset = str((getattr(first, "preset", None) or {}).get("name", "?"))
    game_id = str(getattr(first, "game_id", "") or "")
    names = set(cfg.players) | {f"Player {i}" for i in range(len(cfg.players) + 1, 5)}
    demo = game_id.startswith(("demo:", "recording:"))
    if not demo and set(players) <= names and game_preset in {preset.name, *bundled_presets()}:
        return None
    kind = " (a kiosk demo's game)" if demo else ""
    where = cfg.source if cfg.source is not None else "the config"
    return (f"journal {cfg.journal} holds an unfinished game{kind} of {' vs '.join(players)} under {game_preset}, "
            f"but {where} has {' vs '.join(cfg.players)} under {preset.name}: it is not this table's game and was not "
            f"resumed (the journal is left as it is); give table.journal another path, or finish that game with "
            f"the command that started it")


def _screen(cfg: KioskConfig, kiosk: Kiosk, devices: Any, preset: Preset, headless: bool) -> Any:
    """The touchscreen window, or None (headless, no display, or a screen that cannot be opened): then the
    config's players start at once."""
    screen = not headless and bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or cfg.fullscreen)
    window = _window(cfg, devices) if screen else None
    if not kiosk.session.in_game and window is None:  # no new-game screen: the config's players start at once
        res = kiosk.start_game(preset.to_dict(), cfg.players)
        log.info("new game %s under %s: %s", " vs ".join(cfg.players), preset.name, res.reason or "ok")
    return window


INVISIBLE = ("offscreen", "dummy")
"""SDL video drivers that show nothing: taken only when SDL_VIDEODRIVER asks for them (the tests, a headless
trial); SDL falling back to one (no X, no Wayland, no KMS: a Pi started without its display) is no screen, or
the kiosk would wait for ever on a new-game screen nobody sees."""


def _window(cfg: KioskConfig, devices: Any) -> Any:
    """The touchscreen window, or None when it cannot be opened (no display driver, e.g. SDL's kmsdrm without
    access to /dev/dri): said in a sentence on stderr and in the log, and the table runs on without it (README:
    device trouble never stops the kiosk)."""
    from kiosk.devices import KeyboardButtons

    keys = devices.buttons.handle_event if isinstance(devices.buttons, KeyboardButtons) else None
    try:
        import pygame

        from kiosk.ui.window import DemoWindow

        window = DemoWindow(cfg.size, fullscreen=cfg.fullscreen, keys=keys, players=cfg.players, preset=cfg.preset)
        try:
            drawn_on = pygame.display.get_driver()
        except pygame.error:   # no SDL display behind the window (nothing to tell)
            drawn_on = ""
        if drawn_on in INVISIBLE and os.environ.get("SDL_VIDEODRIVER", "") != drawn_on:
            window.close()   # SDL found no display and fell back to drawing where nobody sees: no screen at all
            raise RuntimeError(f"no display was found: SDL fell back to its {drawn_on} driver, which shows nothing")
        return window
    except Exception as exc:  # pygame.error, or an SDL that cannot load at all
        _close_display()
        print(f"kiosk run: {screen_sentence(exc)}", file=sys.stderr)
        log.error("%s", screen_sentence(exc))
        return None


def _frame(window: Any, kiosk: Kiosk) -> bool | None:
    """One turn of the screen: False when the window was closed, None when the display failed (pygame.error: the
    display driver or its device went away), which is said as a screen that cannot be opened is."""
    import pygame

    try:
        return bool(window.frame(kiosk))
    except pygame.error as exc:
        window.close()
        print(f"kiosk run: {screen_sentence(exc)}", file=sys.stderr)
        log.error("%s", screen_sentence(exc))
        return None


def screen_sentence(exc: BaseException) -> str:
    """Why the screen did not open, and that the table goes on without it, in a sentence."""
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    why = str(exc).strip().rstrip(".") or type(exc).__name__
    via = f" with SDL's {driver} video driver" if driver else ""
    return (f"The screen cannot be opened{via} ({why}). The table goes on without it: the clock buttons, the "
            "journal and the stream work; the judge's touchscreen needs the screen back (check the display and "
            "its driver, then restart the kiosk).")


def _close_display() -> None:
    """Leave SDL's display as it was before the failed window (so nothing of it is left to tear down at exit)."""
    try:
        import pygame

        pygame.display.quit()
    except Exception:  # pygame itself did not load: nothing was opened
        pass


def _loop(kiosk: Kiosk, clock: EventClock, devices: Any, window: Any, watchdog: Any, max_seconds: float | None,
          flags: TableFlags | None = None) -> None:
    """The event loop: a wall clock set forward (:func:`wall_clock_set`), presses (stamped on the monotonic
    clock, moved to ``clock`` by their age), the screen, readings and due events, the clock faces, the desk's
    flags when they change, a heartbeat every 5 s with the devices' problems (shown, and logged as they change)."""
    start = time.monotonic()
    last_beat = 0.0
    face = LiveClockFace(devices.display)
    device_log = DeviceLog()
    kiosk.view.devices = device_log.update(devices.health())
    while max_seconds is None or time.monotonic() - start < max_seconds:
        stepped = clock.step()
        if stepped is not None:
            wall_clock_set(kiosk, *stepped)
        for press in devices.buttons.poll():
            outcome = kiosk.press(press.side, clock.from_mono(press.timestamp_ms))
            log.info("press %s: %s", press.side, outcome)
        if window is not None:
            shown = _frame(window, kiosk)
            if shown is None:   # the screen went away: the table goes on without it
                window = None
            elif not shown:     # the window was closed
                break
        for outcome in kiosk.poll():
            log.info("%s", outcome)
        face.update(kiosk)
        if flags is not None:
            flags.update()
        now = time.monotonic()
        if now - last_beat >= 5:
            last_beat = now
            kiosk.session.heartbeat(kiosk.now())
            kiosk.view.devices = device_log.update(devices.health())
        if watchdog is not None:
            watchdog.progress()
        if window is None:
            time.sleep(0.02)


def wall_clock_set(kiosk: Kiosk, before: int, after: int) -> None:
    """The wall clock was set forward from ``before`` to ``after`` (event ms; NTP at boot): in a game the step
    is recorded as a ``kiosk_resumed`` event, its time charged to nobody (no player's clock, no hold or
    challenge window loses it), and the judge menu stays open as long as it had left. While the journal
    cannot be written the clocks already stand still; the pause is charged to nobody when it ends."""
    log.warning("the wall clock was set forward by %d s: event times follow it, no player's clock is charged",
                (after - before) // 1000)
    if kiosk.view.judge_until > before:
        kiosk.view.judge_until += after - before
    if kiosk.session.in_game and not kiosk.session.paused:
        kiosk.apply(KioskResumed(t=after, down_since=max(before, kiosk.state.last_t)))


def open_session_waiting(path: Any, notifier: Any, *, max_seconds: float | None = None, retry_s: float = 2.0,
                         sleep: Callable[[float], None] = time.sleep) -> GameSession:
    """:meth:`GameSession.open`, waiting while the journal cannot be opened for a reason that can pass: the disk
    too full to open it (its -shm, a new file), or its disk or file failing (a disk I/O error, read-only, locked
    by another program: :attr:`JournalError.cause`): says so once in the sentence of :func:`open_wait_sentence`
    (stdout, the log, systemd's status), keeps systemd's watchdog fed, and tries again every ``retry_s``
    seconds - so it is a visible pause, not a crash loop.

    Raises:
        JournalError: any other journal problem (damaged, another kiosk on it, not a journal), or still failing
            after ``max_seconds`` (None: wait for ever).
    """
    start = time.monotonic()
    told = False
    while True:
        try:
            return GameSession.open(path)
        except JournalError as exc:
            if not (isinstance(exc, JournalFull) or exc.cause) or \
                    max_seconds is not None and time.monotonic() - start >= max_seconds:
                raise
            said = open_wait_sentence(path, exc)
            if not told:
                told = True
                print(f"kiosk run: {said}")
                log.error("%s (%s)", said, exc)
                notifier.ready(said)
            notifier.status(said)
            notifier.watchdog()
            sleep(retry_s)



def _lexicon() -> Any:
    try:
        from kiosk.lexicons import cached_default_lexicon

        return cached_default_lexicon()
    except Exception as exc:  # the judge still rules; he only loses the suggestion
        log.warning("no lexicon for challenge suggestions: %s", exc)
        return None


__all__ = ["open_session_waiting", "run_table", "wall_clock_set", "wall_ms"]
