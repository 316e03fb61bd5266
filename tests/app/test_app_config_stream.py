"""``[stream]`` mistakes stop ``kiosk run`` at the config (exit 2, naming the file and the key): a topic root with a
wildcard, a password file that is not there, a CA file without a certificate and a port out of range ran the
table with only a log line "ERROR ... MQTT is off" (exit 0). The stream's own checks say what is wrong."""

from __future__ import annotations

import pytest
from common_fixtures import headless_config

from kiosk.app.config import ConfigError, load_config
from kiosk.cli import main


def _with_stream(tmp_path, lines: str):
    path = headless_config(tmp_path, buttons='{backend = "scripted", script = []}')
    path.write_text(path.read_text() + f"[stream]\nboard = 1\nmqtt_host = \"127.0.0.1\"\n{lines}\n")
    return path


@pytest.mark.parametrize("lines, says", [
    ('mqtt_root = "a/#"', "stream.mqtt_root: 'a/#' must be a topic path without wildcards"),
    ('mqtt_username = "u"\nmqtt_password_file = "{tmp}/none.txt"',
     "stream.mqtt_password_file: {tmp}/none.txt: no such password file"),
    ('mqtt_tls_ca = "{tmp}/ca.pem"', "stream.mqtt_tls_ca: cannot load {tmp}/ca.pem: the file holds no PEM certificate"),
    ('mqtt_tls_ca = "{tmp}/missing.pem"', "stream.mqtt_tls_ca: {tmp}/missing.pem is not a readable file"),
    ("mqtt_port = 70000", "stream.mqtt_port: 70000 is not a TCP port"),
    ("live_port = 70000", "stream.live_port: 70000 is not a TCP port"),
], ids=["root-wildcard", "no-password-file", "ca-without-certificate", "no-ca-file", "mqtt-port", "live-port"])
def test_a_stream_mistake_is_refused_with_the_config(tmp_path, capsys, lines, says):
    (tmp_path / "ca.pem").write_text("this is no certificate\n")
    path = _with_stream(tmp_path, lines.format(tmp=tmp_path))
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value) == f"{path}: {says.format(tmp=tmp_path)}" or \
        str(exc.value).startswith(f"{path}: {says.format(tmp=tmp_path)}"), str(exc.value)
    assert main(["run", "--config", str(path), "--headless", "--seconds", "1"]) == 2
    err = capsys.readouterr().err
    assert f"kiosk run: {path}: {says.format(tmp=tmp_path)}" in err and "Traceback" not in err
    assert not (tmp_path / "journal.sqlite").exists()   # stopped before anything was opened


def test_a_good_stream_section_loads(tmp_path):
    (tmp_path / "pw").write_text("secret\n")
    cfg = load_config(_with_stream(tmp_path, f'mqtt_username = "u"\nmqtt_password_file = "{tmp_path}/pw"\n'
                                              'mqtt_root = "scrabble/nationals"'))
    assert cfg.stream_settings is not None and cfg.stream_settings.mqtt_root == "scrabble/nationals"


def _host_config(tmp_path, lines: str):
    path = headless_config(tmp_path, buttons='{backend = "scripted", script = []}')
    path.write_text(path.read_text() + f"[stream]\nboard = 1\n{lines}\n")
    return path


@pytest.mark.parametrize("host, says", [
    ("127.0.0.1:18931", "stream.mqtt_host: '127.0.0.1:18931' holds a port: give the host alone and the port as "
                        "mqtt_port = 18931"),
    ("127.0.0.1:notaport", "stream.mqtt_host: '127.0.0.1:notaport' holds a port: give the host alone and the port "
                           "as mqtt_port (a whole number)"),
    ("desk.local:1883", "stream.mqtt_host: 'desk.local:1883' holds a port: give the host alone and the port as "
                        "mqtt_port = 1883"),
    ("[::1]:1883", "stream.mqtt_host: '[::1]:1883' holds a port: give the host alone and the port as "
                   "mqtt_port = 1883"),
    ("[::1]", "stream.mqtt_host: '[::1]': write an IPv6 address without brackets"),
    ("a:b:c", "stream.mqtt_host: 'a:b:c' holds colons but is not an IPv6 address"),
])
def test_an_mqtt_host_with_a_port_is_refused_at_config_load(tmp_path, capsys, host, says):
    """'127.0.0.1:18931' was taken as a host name and dialled on port 1883."""
    path = _host_config(tmp_path, f'mqtt_host = "{host}"')
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value).startswith(f"{path}: {says}"), str(exc.value)
    assert main(["run", "--config", str(path), "--headless", "--seconds", "1"]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


@pytest.mark.parametrize("host", ["::1", "fe80::1", "127.0.0.1", "desk.local"])
def test_a_bare_host_or_ipv6_address_is_accepted(tmp_path, host):
    cfg = load_config(_host_config(tmp_path, f'mqtt_host = "{host}"'))
    assert cfg.stream_settings is not None and cfg.stream_settings.mqtt_host == host


def test_a_password_file_that_is_a_fifo_is_refused_not_waited_on(tmp_path, capsys):
    """kiosk run hung at start reading a FIFO given as mqtt_password_file."""
    import os
    fifo = tmp_path / "pw.fifo"
    os.mkfifo(fifo)
    path = _with_stream(tmp_path, f'mqtt_username = "u"\nmqtt_password_file = "{fifo}"')
    says = f"stream.mqtt_password_file: {fifo}: not a regular file"
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert str(exc.value) == f"{path}: {says}"
    assert main(["run", "--config", str(path), "--headless", "--seconds", "1"]) == 2
    assert says in capsys.readouterr().err
