import io
import logging
import os
import socket
import sys

import pytest

from companion.hardware.notify import JournalFormatter, Notifier, priority, setup_logging, under_journal


@pytest.fixture
def systemd_socket(tmp_path):
    """A datagram socket standing where systemd's $NOTIFY_SOCKET would be."""
    path = str(tmp_path / "notify")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(path)
    server.settimeout(2)
    yield path, server
    server.close()


def received(server) -> list[bytes]:
    messages = []
    server.setblocking(False)
    try:
        while True:
            messages.append(server.recv(4096))
    except BlockingIOError:
        return messages
    finally:
        server.settimeout(2)


def test_ready_status_and_stopping_reach_the_socket(systemd_socket):
    path, server = systemd_socket
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.enabled
    notifier.ready()
    notifier.status("Waiting for\nthe board")
    notifier.stopping()
    assert received(server) == [b"READY=1", b"STATUS=Waiting for the board", b"STOPPING=1"]


def test_an_abstract_socket_address(systemd_socket):
    name = f"companion-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(b"\0" + name.encode())
    try:
        Notifier({"NOTIFY_SOCKET": "@" + name}).ready()
        server.settimeout(2)
        assert server.recv(100) == b"READY=1"
    finally:
        server.close()


def test_the_watchdog_is_pinged_at_most_every_half_interval(systemd_socket):
    path, server = systemd_socket
    now = [100.0]
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"}, clock=lambda: now[0])
    assert notifier.watchdog_interval == 2.0
    pings = []
    for step in range(10):  # the main loop, every 0.25 s
        now[0] = 100.0 + step * 0.25
        notifier.watchdog()
        pings.extend(now[0] for _ in received(server))
    assert pings == [100.0, 101.0, 102.0]


def test_a_watchdog_meant_for_another_process_is_ignored(systemd_socket):
    path, server = systemd_socket
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"})
    notifier.watchdog()
    assert notifier.watchdog_interval is None
    assert received(server) == []


def test_outside_systemd_everything_is_a_no_op():
    notifier = Notifier({})
    assert not notifier.enabled
    notifier.ready()
    notifier.watchdog()
    notifier.status("x")
    notifier.stopping()


def test_a_vanished_socket_is_logged_once_and_never_raises(tmp_path, caplog):
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    with caplog.at_level(logging.WARNING):
        notifier.ready()
        notifier.status("still playing")
    assert len(caplog.records) == 1
    assert "could not notify systemd (READY)" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    ("level", "expected"),
    [(logging.CRITICAL, 2), (logging.ERROR, 3), (logging.WARNING, 4), (25, 5), (logging.INFO, 6),
     (logging.DEBUG, 7)],
)
def test_levels_become_syslog_priorities(level, expected):
    assert priority(level) == expected


def test_every_line_of_a_record_carries_its_priority():
    record = logging.LogRecord("companion.app", logging.ERROR, __file__, 1, "first\nsecond", None, None)
    assert JournalFormatter().format(record) == "<3>companion.app: first\n<3>second"


def test_the_journal_stream_is_recognised_by_device_and_inode(tmp_path):
    with open(tmp_path / "stream", "w") as stream:
        info = os.fstat(stream.fileno())
        assert under_journal(stream, {"JOURNAL_STREAM": f"{info.st_dev}:{info.st_ino}"})
        assert not under_journal(stream, {"JOURNAL_STREAM": f"{info.st_dev}:{info.st_ino + 1}"})
        assert not under_journal(stream, {})
    assert not under_journal(io.StringIO(), {"JOURNAL_STREAM": "1:2"})


@pytest.mark.parametrize("journal", [True, False])
def test_the_log_carries_journal_priorities_only_under_the_journal(tmp_path, monkeypatch, journal):
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    with open(tmp_path / "stderr", "w") as stream:
        info = os.fstat(stream.fileno())
        monkeypatch.setattr(sys, "stderr", stream)
        monkeypatch.setenv("JOURNAL_STREAM", f"{info.st_dev}:{info.st_ino}" if journal else "")
        try:
            setup_logging()
            logging.getLogger("companion.app").warning("the camera is slow")
            logging.getLogger("companion.app").debug("not shown")
        finally:
            root.handlers[:], level = saved
            root.setLevel(level)
    text = (tmp_path / "stderr").read_text()
    if journal:  # journald reads "<4>" as a warning: `journalctl -p warning` finds it
        assert text == "<4>companion.app: the camera is slow\n"
    else:
        assert text.endswith(" WARNING companion.app: the camera is slow\n") and "not shown" not in text
