"""Talking to systemd with the standard library only: sd_notify and journal priorities.

Under systemd (`Type=notify`) the service manager waits for READY=1 before it counts the
companion as started, and restarts it when WATCHDOG=1 stops arriving. Outside systemd
($NOTIFY_SOCKET unset) every call is a no-op, so the same code runs on a laptop.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import time
from collections.abc import Callable
from typing import IO

log = logging.getLogger(__name__)


class Notifier:
    """sd_notify over $NOTIFY_SOCKET.

    Call ready() once the camera and the screen are up, watchdog() on every pass of the main loop
    (from the loop itself, never from a thread: a hung loop must stop the pings), status(text) for
    what `systemctl status` shows, and stopping() when shutting down.
    """

    def __init__(
        self,
        environ: dict[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        env = os.environ if environ is None else environ
        self._address = _socket_address(env.get("NOTIFY_SOCKET", ""))
        self._clock = clock
        self._socket: socket.socket | None = None
        self._last_ping: float | None = None
        self.watchdog_interval = _watchdog_interval(env)
        self._failed = False

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def ready(self) -> None:
        self.send("READY=1")

    def status(self, text: str) -> None:
        # The protocol is line-based: a newline would start a new (bogus) assignment.
        self.send("STATUS=" + " ".join(text.splitlines()))

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def watchdog(self) -> None:
        """Ping the watchdog, at most every half interval however fast the loop spins."""
        if self.watchdog_interval is None:
            return
        now = self._clock()
        if self._last_ping is not None and now - self._last_ping < self.watchdog_interval / 2:
            return
        self._last_ping = now
        self.send("WATCHDOG=1")

    def send(self, message: str) -> None:
        if self._address is None:
            return
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._socket.sendto(message.encode("utf-8"), self._address)
        except OSError as error:
            # Losing a notification must never stop the game; systemd will tell by itself.
            if not self._failed:
                log.warning("could not notify systemd (%s): %s", message.split("=")[0], error)
                self._failed = True

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def _socket_address(value: str) -> str | bytes | None:
    if not value:
        return None
    if value.startswith("@"):
        # An abstract socket: a leading NUL byte instead of the '@'.
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    return None


def _watchdog_interval(env: dict[str, str] | os._Environ[str]) -> float | None:
    """Seconds from $WATCHDOG_USEC, when the watchdog is meant for this very process."""
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 1_000_000


def priority(levelno: int) -> int:
    """The syslog priority that journald reads from a "<N>" line prefix, for a logging level."""
    if levelno >= logging.CRITICAL:
        return 2
    if levelno >= logging.ERROR:
        return 3
    if levelno >= logging.WARNING:
        return 4
    if levelno > logging.INFO:
        return 5  # NOTICE: custom levels between INFO and WARNING
    if levelno == logging.INFO:
        return 6
    return 7


class JournalFormatter(logging.Formatter):
    """Prefixes every line with its journal priority, so `journalctl -p warning` finds problems."""

    def __init__(self, fmt: str = "%(name)s: %(message)s") -> None:
        super().__init__(fmt)

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines() or [""])


def under_journal(stream: IO[str] | None = None, environ: dict[str, str] | None = None) -> bool:
    """Whether `stream` (stderr by default) is connected to the journal ($JOURNAL_STREAM)."""
    env = os.environ if environ is None else environ
    device, _, inode = env.get("JOURNAL_STREAM", "").partition(":")
    if not (device.isdigit() and inode.isdigit()):
        return False
    target = sys.stderr if stream is None else stream
    try:
        stat = os.fstat(target.fileno())
    except (OSError, ValueError):  # a closed stream, or one with no file behind it
        return False
    return (stat.st_dev, stat.st_ino) == (int(device), int(inode))


def setup_logging(level: int = logging.INFO) -> None:
    """Log to stderr: with journal priorities under systemd, with times in a terminal."""
    handler = logging.StreamHandler(sys.stderr)
    if under_journal(sys.stderr):
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
