"""``kiosk desk --mqtt HOST:PORT --http ADDR:PORT --event DIR``: the tournament desk (every table, results, tsh)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time

from kiosk.rules.counts import counted

NAME = "desk"
HELP = "the tournament desk: every table live on one page, results stored and exported for tsh"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's options (see docs/desk.md)."""
    p.add_argument("--mqtt", required=True, metavar="HOST:PORT", help="the event's broker (port default 1883)")
    p.add_argument("--username", help="broker user name")
    p.add_argument("--password-env", default="KIOSK_DESK_PASSWORD", metavar="VAR",
                   help="environment variable holding the broker password (default KIOSK_DESK_PASSWORD)")
    p.add_argument("--tls-ca", metavar="FILE", help="CA certificate: connect with TLS and verify the broker")
    p.add_argument("--root", default="scrabble/local", help="topic root (default scrabble/local)")
    p.add_argument("--http", default="127.0.0.1:8090", metavar="ADDR:PORT",
                   help="where to serve the desk page and exports (default 127.0.0.1:8090)")
    p.add_argument("--event", required=True, metavar="DIR", help="the event folder holding event.toml")
    p.add_argument("--data", metavar="DIR", help="the desk's own folder (database, .t copies); default DIR/desk")
    p.add_argument("--client-id", default="", help="MQTT client id (the broker keeps the desk's session under "
                   "it; default kiosk-desk- and 10 hex digits of this host and the --data folder)")


def run(args: argparse.Namespace) -> int:
    """Run the desk until SIGTERM or Ctrl-C; 0 when stopped, 2 for bad usage or input (problem on stderr)."""
    from kiosk.desk.event import EventFileError
    from kiosk.desk.ingest import BrokerConfig, IngestConfigError
    from kiosk.desk.service import Desk
    from kiosk.desk.store import StoreError
    from kiosk.stream.publish import parse_host_port

    try:
        host, port = parse_host_port(args.mqtt)
    except ValueError as exc:
        print(f"kiosk desk: --mqtt: {exc}", file=sys.stderr)
        return 2
    try:
        http_host, http_port = parse_host_port(args.http, default_port=8090)
    except ValueError as exc:
        print(f"kiosk desk: --http: {str(exc).replace('broker address', 'address')}", file=sys.stderr)
        return 2
    if args.tls_ca and not os.path.isfile(args.tls_ca):
        print(f"kiosk desk: --tls-ca {args.tls_ca}: no such file", file=sys.stderr)
        return 2
    if not args.root or any(c in args.root for c in "#+") or args.root.strip("/") != args.root:
        print(f"kiosk desk: --root {args.root!r}: a topic path without wildcards or edge slashes", file=sys.stderr)
        return 2
    password = None
    if args.username:
        password = os.environ.get(args.password_env)
        if password is None:
            print(f"kiosk desk: --username {args.username}: the environment variable {args.password_env} "
                  "holding the password is not set", file=sys.stderr)
            return 2
    broker = BrokerConfig(host, port, root=args.root, username=args.username, password=password,
                          tls_ca=args.tls_ca, client_id=args.client_id)
    try:
        desk = Desk(args.event, broker, http_host=http_host, http_port=http_port, data_dir=args.data)
    except (EventFileError, StoreError, IngestConfigError) as exc:
        print(f"kiosk desk: {exc}", file=sys.stderr)
        return 2
    try:
        desk.start()
    except OSError as exc:
        print(f"kiosk desk: --http {args.http}: {exc}", file=sys.stderr)
        return 2
    print(f"desk: {desk.config.name}: {counted(len(desk.config.divisions), 'division')}, "
          f"{counted(len(desk.config.pairings), 'pairing')}; {counted(desk.restored, 'event')} restored; "
          f"serving {desk.url}; broker {host}:{port} "
          f"under {args.root} as client {desk.ingest.config.client_id}", flush=True)
    for problem in desk.pairing_problems:
        print(f"warning: {problem}", file=sys.stderr)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    reported = 0
    try:
        while not stop.wait(1.0):
            new = desk.ingest.error_total - reported
            if new > 0:
                for e in list(desk.ingest.errors)[-new:]:
                    print(f"warning: {e}", file=sys.stderr, flush=True)
                reported = desk.ingest.error_total
    except KeyboardInterrupt:
        pass
    finally:
        t = time.monotonic()
        desk.stop()
        print(f"desk: stopped ({time.monotonic() - t:.1f} s)", file=sys.stderr)
    return 0
