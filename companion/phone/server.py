"""The phones' web server: aiohttp, on an asyncio event loop in a thread of its own.

aiohttp because it is well kept, asyncio-native (one thread serves every phone, no thread per
connection competing with the main loop for the GIL), and both in Debian (python3-aiohttp, which the
Pi installs) and on PyPI. The main loop hands the server an immutable `Snapshot` (`publish`: one
reference swap, atomic under the GIL) and never waits for it; the server only reads the latest one.
It serves GET and HEAD only, answers nobody outside the local network, reads no request body, keeps
requests small and connections few, sets no cookie and logs no address.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from aiohttp import web

from . import pages
from .view import Finished, SeatPage, Snapshot, TablePage

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 64  # a table of four with a phone or two each, reloading, is far below this
MAX_BODY = 1024  # bytes; no page takes a request body
MAX_LINE = 2048  # bytes of the request line and of any one header: links are about 60 characters
MAX_HEADERS = 40
IDLE_SECONDS = 20.0  # a phone polls every few seconds; an idle connection is closed after this
RETRY_SECONDS = 5.0  # between attempts to listen while the network is not up yet
REFUSED_SECONDS = 2.0  # a refused connection is cut after this, closed by the phone or not
REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 5\r\n"
           b"Connection: close\r\n\r\n")


def local(host: str) -> bool:
    """Whether `host` is on this machine or a local network (private, link-local or loopback)."""
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_private or address.is_loopback or address.is_link_local


def local_address() -> str | None:
    """This machine's address on its local network: the source address of its default route.

    A UDP socket's connect() only chooses the route; it sends nothing. None without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1 (RFC 5737): never a real host
            host: str = probe.getsockname()[0]
        except OSError:
            return None
    return host if local(host) and not ipaddress.ip_address(host).is_loopback else None


class _Refuse(asyncio.Protocol):
    """A connection over the limit: told to come back later, and closed once the phone has heard it
    (closing with its request unread would reset the connection and lose the answer)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(REFUSED)
        transport.write_eof()
        self.deadline = asyncio.get_running_loop().call_later(REFUSED_SECONDS, transport.abort)

    def data_received(self, data: bytes) -> None:
        pass  # the request is not read

    def eof_received(self) -> bool:
        self.transport.close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.deadline.cancel()


@dataclass(frozen=True, slots=True)
class Listening:
    host: str
    port: int

    def url(self, token: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/p/{token}"


class PhoneServer:
    """Serves the latest snapshot to the phones. `start` and `stop` are called from the main loop."""

    def __init__(self, bind: str = "", port: int = 8080, *, max_connections: int = MAX_CONNECTIONS) -> None:
        self.bind, self.port, self.max_connections = bind, port, max_connections
        self.snapshot: Snapshot | None = None  # swapped whole by `publish`, only read by the server
        self.listening: Listening | None = None
        self.problem = ""  # why it does not listen yet, in words
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._reports: dict[Finished, asyncio.Future[tuple[str, str]]] = {}  # the report's page and record
        # Each page's live part, made once per version for every phone that asks (the table's page
        # draws the board): (version, token) → HTML. Only the server's thread touches it.
        self._made: dict[tuple[int, str], str] = {}
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="phones-report")

    # --- the main loop's side ---------------------------------------------------------------------

    def publish(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="phones", daemon=True)
        self._thread.start()
        self._started.wait(5)

    def stop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(10)
        self._worker.shutdown(wait=False, cancel_futures=True)

    @property
    def running(self) -> bool:
        """Whether the server's thread is up."""
        return self._thread is not None and self._thread.is_alive()

    def url(self, token: str) -> str:
        """The link to a page, or "" while the server does not listen."""
        listening = self.listening
        return "" if listening is None else listening.url(token)

    # --- the server's thread ----------------------------------------------------------------------

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except Exception as error:  # never let the phones take the table down: say why and stop serving
            log.exception("phones: the server stopped")
            self.problem = f"the phones' server stopped: {error}"
        finally:
            self.listening = None
            self._started.set()

    async def _serve(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        runner = web.AppRunner(self._app(), access_log=None, keepalive_timeout=IDLE_SECONDS,
                               max_line_size=MAX_LINE, max_field_size=MAX_LINE, max_headers=MAX_HEADERS)
        await runner.setup()
        handler = runner.server
        assert handler is not None

        def connection() -> asyncio.BaseProtocol:
            if len(handler.connections) >= self.max_connections:
                return _Refuse()
            return handler()

        server: asyncio.AbstractServer | None = None
        try:
            while server is None:
                host = self.bind or local_address()
                if host is not None:
                    try:
                        server = await self._loop.create_server(connection, host, self.port, reuse_address=True,
                                                                backlog=self.max_connections)
                        port = server.sockets[0].getsockname()[1]  # the one the system chose for port 0
                        self.listening, self.problem = Listening(host, port), ""
                        log.info("phones: listening on %s port %d", host, port)
                    except OSError as error:
                        self.problem = f"cannot listen on {host} port {self.port}: {error.strerror or error}"
                else:
                    self.problem = "the companion is not on a network yet"
                self._started.set()
                if server is None:
                    log.warning("phones: %s; trying again in %.0f s", self.problem, RETRY_SECONDS)
                    try:
                        await asyncio.wait_for(self._stop.wait(), RETRY_SECONDS)
                        return
                    except TimeoutError:
                        continue
            await self._stop.wait()
        finally:
            if server is not None:
                server.close()
            await runner.cleanup()

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._only_local])
        app.router.add_get("/", self._welcome)
        app.router.add_get("/p/{token}", self._page)
        app.router.add_get("/p/{token}/live", self._live)
        app.router.add_get("/p/{token}/report", self._report)
        app.router.add_get("/p/{token}/report.html", self._report_file)
        app.router.add_get("/p/{token}/record.json", self._record)
        app.on_response_prepare.append(_headers)
        return app

    @web.middleware
    async def _only_local(self, request: web.Request,
                          handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        if request.remote is None or not local(request.remote):
            return web.Response(status=403, text="Only phones on the table's own network may look.")
        return await handler(request)

    def _find(self, request: web.Request) -> tuple[Snapshot, SeatPage | TablePage] | None:
        snapshot = self.snapshot
        token = request.match_info.get("token", "")
        shown = None if snapshot is None else snapshot.page(token)
        return None if snapshot is None or shown is None else (snapshot, shown)

    async def _welcome(self, request: web.Request) -> web.Response:
        return _html(pages.WELCOME)

    async def _page(self, request: web.Request) -> web.Response:
        found = self._find(request)
        if found is None:
            return _html(pages.NOT_THIS_GAME, 404)
        snapshot, shown = found
        return _html(pages.page(snapshot, request.match_info["token"], shown))

    async def _live(self, request: web.Request) -> web.Response:
        found = self._find(request)
        if found is None:
            return _html(pages.NOT_THIS_GAME, 404)
        snapshot, shown = found
        tag = f'"{snapshot.version}"'
        if request.headers.get("If-None-Match") == tag:
            return web.Response(status=304, headers={"ETag": tag})
        token = request.match_info["token"]
        key = (snapshot.version, token)
        if key not in self._made:
            if any(version != snapshot.version for version, _ in self._made):
                self._made = {}
            self._made[key] = pages.live(snapshot, token, shown)
        response = _html(self._made[key])
        response.headers["ETag"] = tag
        return response

    async def _made_report(self, request: web.Request) -> tuple[str, str] | web.Response:
        found = self._find(request)
        if found is None:
            return _html(pages.NOT_THIS_GAME, 404)
        finished = found[0].finished
        if finished is None:
            return _html(pages.notice("Not yet", "The report is ready when the game is over."), 404)
        if finished not in self._reports:  # made once per game, away from this loop: it takes a while
            self._reports = {finished: asyncio.get_running_loop().run_in_executor(self._worker, _report, finished)}
        return await self._reports[finished]

    async def _report(self, request: web.Request) -> web.Response:
        made = await self._made_report(request)
        return made if isinstance(made, web.Response) else _html(made[0])

    async def _report_file(self, request: web.Request) -> web.Response:
        made = await self._made_report(request)
        if isinstance(made, web.Response):
            return made
        response = _html(made[0])
        response.headers["Content-Disposition"] = 'attachment; filename="tigris-euphrates-report.html"'
        return response

    async def _record(self, request: web.Request) -> web.Response:
        made = await self._made_report(request)
        if isinstance(made, web.Response):
            return made
        return web.Response(text=made[1], content_type="application/json", headers={
            "Content-Disposition": 'attachment; filename="tigris-euphrates-game.json"'})


def _report(finished: Finished) -> tuple[str, str]:
    """The report's page and the game's record (imported here: matplotlib loads only when a game ends)."""
    from .report import Report, html

    report = Report.of(finished.config, finished.actions)
    return html(report), report.record


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8")


async def _headers(request: web.Request, response: web.StreamResponse) -> None:
    """On every answer: nothing cached (the links are secrets), our own script only, no framing."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = pages.POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
