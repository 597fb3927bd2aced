"""JSON log lines and where they go (POKERBOT_LOG_STREAM)."""

import io
import json
import os
import socket
import subprocess
import sys

import pytest
import structlog

from pokerbot.protocol import logs


@pytest.fixture(autouse=True)
def restore_logging(monkeypatch):
    monkeypatch.delenv(logs.STREAM_ENV, raising=False)
    yield
    monkeypatch.delenv(logs.STREAM_ENV, raising=False)
    logs.configure("warning")  # what tests/conftest.py sets


def _one_json_line(text: str) -> dict:
    lines = [l for l in text.splitlines() if l.strip()]
    assert len(lines) == 1, text
    return json.loads(lines[0])


def test_default_stream_is_stderr(capsys):
    logs.configure("info")
    structlog.get_logger("t").info("hello", x=1)
    out, err = capsys.readouterr()
    assert out == ""
    line = _one_json_line(err)
    assert line["event"] == "hello" and line["x"] == 1 and line["level"] == "info" and "timestamp" in line


@pytest.mark.parametrize("value", ["stdout", "STDOUT", " stdout "])
def test_stream_env_stdout(monkeypatch, capsys, value):
    monkeypatch.setenv(logs.STREAM_ENV, value)
    logs.configure("info")
    structlog.get_logger("t").warning("to_stdout")
    out, err = capsys.readouterr()
    assert err == ""
    assert _one_json_line(out)["event"] == "to_stdout"


def test_stream_env_stderr_explicit(monkeypatch, capsys):
    monkeypatch.setenv(logs.STREAM_ENV, "stderr")
    logs.configure("info")
    structlog.get_logger("t").info("to_stderr")
    out, err = capsys.readouterr()
    assert out == "" and _one_json_line(err)["event"] == "to_stderr"


def test_unknown_stream_value_is_reported_and_stderr_used(monkeypatch, capsys):
    monkeypatch.setenv(logs.STREAM_ENV, "syslog")
    logs.configure("info")
    structlog.get_logger("t").info("still_logged")
    out, err = capsys.readouterr()
    assert out == ""
    assert "POKERBOT_LOG_STREAM='syslog' is not one of stderr, stdout" in err
    assert json.loads(err.splitlines()[-1])["event"] == "still_logged"


def test_explicit_stream_wins_over_env(monkeypatch, capsys):
    monkeypatch.setenv(logs.STREAM_ENV, "stdout")
    buf = io.StringIO()
    logs.configure("info", stream=buf)
    structlog.get_logger("t").info("to_buffer")
    out, err = capsys.readouterr()
    assert out == "" and err == ""
    assert _one_json_line(buf.getvalue())["event"] == "to_buffer"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_player_program_logs_json_to_the_chosen_stream(stream):
    """`pokerbot play` (as a container runs it): the JSON lines go to the stream the
    environment names; the one-line human message stays on stderr."""
    env = {**os.environ, logs.STREAM_ENV: stream}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pokerbot.bot.cli",
            "play",
            "127.0.0.1",
            str(_closed_port()),
            "--strategy",
            "call",
            "--log-level",
            "info",
            "--connect-timeout",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=50,
        env=env,
    )
    assert r.returncode == 1
    json_lines = [
        json.loads(l) for l in (r.stdout if stream == "stdout" else r.stderr).splitlines() if l.startswith("{")
    ]
    assert [l["event"] for l in json_lines] == ["connect_failed"] and json_lines[0]["level"] == "error"
    assert "pokerbot play: could not connect" in r.stderr
    if stream == "stdout":
        assert not any(l.startswith("{") for l in r.stderr.splitlines())
    else:
        assert r.stdout == ""
