"""``kiosk stream-game FILE.gcg --mqtt HOST:PORT [--board N]``: publish a recorded game to a broker as a table."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Callable

from kiosk.commands import seconds
from kiosk.rules.counts import counted

MAX_PACE_S = 3600.0        # an hour between events: beyond it, no demo (the clock of the events overflowed)
MAX_TIMEOUT_S = 86400.0    # a day's wait for the broker


def _seconds_up_to(most: float) -> Callable[[str], float]:
    """An argparse type: :func:`seconds`, at most ``most`` (a usage error beyond)."""
    def parse(text: str) -> float:
        v = seconds(text)
        if v > most:
            raise argparse.ArgumentTypeError(f"at most {most:g} seconds, got {text!r}")
        return v
    return parse


def _not_a_folder(path: str) -> str | None:
    """What is at ``path`` when it is there and no folder (nor a link to one): "a FIFO (named pipe)", ..."""
    try:
        link = "a link to " if os.path.islink(path) else ""
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a link to nothing" if os.path.islink(path) else None
    except OSError:
        return None   # said by the folder check that follows
    if stat.S_ISDIR(mode):
        return None
    kind = ("a regular file" if stat.S_ISREG(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a folder")
    return link + kind

NAME = "stream-game"
HELP = "referee a recorded GCG game and publish its events to an MQTT broker as table N (demo board)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE.gcg", help="the recorded game")
    p.add_argument("--mqtt", required=True, metavar="HOST:PORT", help="the broker (port default 1883)")
    p.add_argument("--board", type=int, default=0, metavar="N", help="table number (default 0)")
    p.add_argument("--preset", default="naspa", help="rule preset the referee applies (default naspa)")
    p.add_argument("--root", default="scrabble/local", help="topic root (default scrabble/local)")
    p.add_argument("--pace", type=_seconds_up_to(MAX_PACE_S), default=0.0, metavar="S",
                   help=f"seconds between events, 0 to {MAX_PACE_S:g} (default 0)")
    p.add_argument("--timeout", type=_seconds_up_to(MAX_TIMEOUT_S), default=30.0, metavar="S",
                   help=f"wait this long for the broker, at most {MAX_TIMEOUT_S:g} s (default 30)")
    p.add_argument("--username", help="broker user name")
    p.add_argument("--password-env", default="KIOSK_MQTT_PASSWORD", metavar="VAR",
                   help="environment variable holding the broker password (default KIOSK_MQTT_PASSWORD)")
    p.add_argument("--tls-ca", metavar="FILE", help="CA certificate: connect with TLS and verify the broker")
    p.add_argument("--records", metavar="DIR", help="also write the game's GCG and result file here")


def run(args: argparse.Namespace) -> int:
    from kiosk.files import check_output_folder, check_text_file
    from kiosk.referee.records import RecordEventsError, RecordScoresError
    from kiosk.stream.mqtt import MqttConfigError
    from kiosk.stream.publish import PublishError, parse_host_port, publish_game
    from kiosk.stream.records import RecordsError

    try:
        host, port = parse_host_port(args.mqtt)
    except ValueError as exc:
        print(f"kiosk stream-game: --mqtt: {exc}", file=sys.stderr)
        return 2
    from kiosk.stream.subscriber import MAX_BOARD

    if not 0 <= args.board <= MAX_BOARD:   # the desk and the subscribers take no table number beyond it
        print(f"kiosk stream-game: --board: {args.board} is not a table number (0 to {MAX_BOARD:,})", file=sys.stderr)
        return 2
    from kiosk.referee.presets import PresetError, load_preset

    try:   # the preset is the option's, not the record's: said before the record is read
        load_preset(args.preset)
    except PresetError as exc:
        print(f"kiosk stream-game: --preset {args.preset}: {exc}", file=sys.stderr)
        return 2
    check_text_file(args.file, "GCG record")
    if args.records is not None:   # said once, before the game: not a warning for every event
        what = _not_a_folder(args.records)
        if what is not None:
            print(f"kiosk stream-game: --records {args.records}: is {what}, not a folder", file=sys.stderr)
            return 2
        check_output_folder(args.records, "records folder")
    import socket

    try:   # a typo in the host name is named as such, not as a broker that never answered
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        print(f"kiosk stream-game: --mqtt {args.mqtt}: unknown host {host!r} "
              f"({getattr(exc, 'strerror', None) or exc})", file=sys.stderr)
        return 2
    password = os.environ.get(args.password_env) if args.username else None
    if args.username and password is None:   # as `kiosk desk` says it: a broker would refuse the login later
        print(f"kiosk stream-game: --username {args.username}: the environment variable {args.password_env} "
              "holding the password is not set", file=sys.stderr)
        return 2

    live = sys.stderr.isatty()   # a counter rewritten in place on a terminal; elsewhere (a log) only the last, a line

    def progress(i: int, n: int) -> None:
        if i == n or (live and i % 20 == 0):
            # queued for the broker: whether it took them is said once the broker answered (or did not)
            print(f"\r{i}/{n} events queued" if live else f"{i}/{n} events queued", end="\n" if i == n else "",
                  file=sys.stderr, flush=True)

    try:
        rep = publish_game(args.file, host, port, args.board, preset=args.preset, root=args.root, pace_s=args.pace,
                           timeout_s=args.timeout, username=args.username, password=password, tls_ca=args.tls_ca,
                           records_dir=args.records, progress=progress)
    except RecordScoresError as exc:   # a broadcast of wrong totals is worse than none: nothing was sent
        print(f"kiosk stream-game: {exc}. Nothing was published: the desk would have shown scores the record does "
              f"not have. If the record follows other rules, give them with --preset.", file=sys.stderr)
        return 1
    except (RecordEventsError, MqttConfigError) as exc:   # the record or the broker settings: bad input
        print(f"kiosk stream-game: {exc}", file=sys.stderr)
        return 2
    except RecordsError as exc:   # a file of the game in the records folder cannot be written: nothing was sent
        print(f"kiosk stream-game: --records: {exc}. Nothing was published.", file=sys.stderr)
        return 2
    except PublishError as exc:                             # the broker did not take the game
        print(f"kiosk stream-game: {exc}", file=sys.stderr)
        return 1
    print(f"board {args.board}: game {rep.game_id}: {counted(rep.events, 'event')} published to {host}:{port} "
          f"under {args.root} in {rep.seconds:.2f} s (boot {rep.boot})")
    for e in rep.errors:
        print(f"kiosk stream-game: warning: {e}", file=sys.stderr)
    for e in rep.records_errors:   # each once: the game was published, its records are not whole
        print(f"kiosk stream-game: {e}", file=sys.stderr)
    return 1 if rep.records_errors else 0
