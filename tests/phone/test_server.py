"""The phones' server on 127.0.0.1: read-only, secret links, small requests, few connections."""

from __future__ import annotations

import asyncio
import http.client
import re
import socket
from collections.abc import Iterator
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from games import Table, table

from companion.phone.follow import Phones
from companion.phone.server import MAX_LINE, PhoneServer, local


@pytest.fixture
def served() -> Iterator[tuple[PhoneServer, Phones, Table]]:
    server = PhoneServer("127.0.0.1", 0, max_connections=6)
    server.start()
    assert server.listening is not None, server.problem
    phones = Phones(server)
    game = table("three-standard", 60)
    phones.follow(game)
    try:
        yield server, phones, game
    finally:
        server.stop()


def get(server: PhoneServer, path: str, headers: dict[str, str] | None = None,
        method: str = "GET", body: bytes | None = None) -> tuple[int, dict[str, str], str]:
    assert server.listening is not None
    connection = http.client.HTTPConnection("127.0.0.1", server.listening.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read().decode("utf-8", "replace")
    finally:
        connection.close()


def raw(server: PhoneServer, data: bytes) -> bytes:
    """Send bytes as they are and read what comes back until the server closes (b"" when it cut us off)."""
    assert server.listening is not None
    received = b""
    with socket.create_connection(("127.0.0.1", server.listening.port), timeout=30) as s:
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            while chunk := s.recv(65536):
                received += chunk
        except ConnectionResetError:
            return b""
    return received


def path(url: str) -> str:
    return urlsplit(url).path


def test_each_seats_link_opens_its_page_with_its_own_points(served) -> None:
    server, _, game = served
    for seat, code in enumerate(game.phones[:-1]):
        status, headers, page = get(server, path(code.text))
        assert status == 200 and headers["content-type"].startswith("text/html")
        points = game.game.state.players[seat].points
        assert "".join(f'<td class="num big">{n}</td>' for n in points) in page
        assert f"<h1>{game.game.state.players[seat].name}" in page
    status, _, page = get(server, path(game.phones[-1].text))
    assert status == 200 and "<h1>The table</h1>" in page and "<svg" in page


def test_wrong_missing_and_old_links_open_nothing(served) -> None:
    server, phones, game = served
    seat = path(game.phones[0].text)
    token = seat.rsplit("/", 1)[1]
    for wrong in (f"/p/{token[:-1]}x", "/p/", "/p", f"/p/{token}extra", f"/p/{token.upper()}", "/p/%00",
                  f"/p/{token}/../{token}", f"/p/{token}/nothing"):
        status, _, page = get(server, wrong)
        assert status == 404, wrong
        assert game.game.state.players[0].name not in page
    old = game.phones
    game.game = table("three-standard", 60).game  # a new game: new links
    phones.follow(game)
    assert {c.text for c in game.phones}.isdisjoint(c.text for c in old)
    for code in old:
        for suffix in ("", "/live", "/report"):
            status, _, page = get(server, path(code.text) + suffix)
            assert status == 404 and "not for the game at the table now" in page
    assert get(server, path(game.phones[0].text))[0] == 200


def test_another_seats_link_shows_that_seat_only(served) -> None:
    server, _, game = served
    players = game.game.state.players
    _, _, page = get(server, path(game.phones[1].text))
    assert f"<h1>{players[1].name} (bull)</h1>" in page and "Scores are hidden." in page
    assert page.count('class="num big"') == 5  # one row of points: seat 1's own


def test_the_live_part_is_sent_again_only_when_the_game_changed(served) -> None:
    server, phones, game = served
    live = path(game.phones[0].text) + "/live"
    status, headers, first = get(server, live)
    assert status == 200 and headers["etag"] == '"1"'
    assert get(server, live, {"If-None-Match": headers["etag"]})[0] == 304
    game.play(1)
    phones.follow(game)
    status, headers, second = get(server, live, {"If-None-Match": '"1"'})
    assert status == 200 and headers["etag"] == '"2"' and second != first


def test_pages_only_read_set_no_cookie_and_load_nothing_from_outside(served) -> None:
    server, _, game = served
    seat = path(game.phones[0].text)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert get(server, seat, method=method, body=b"support 6")[0] == 405
    _, headers, page = get(server, seat)
    assert "set-cookie" not in headers and headers["cache-control"] == "no-store"
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer" and headers["x-frame-options"] == "DENY"
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_oversized_and_malformed_requests_are_refused_and_the_server_goes_on(served) -> None:
    server, _, game = served
    seat = path(game.phones[0].text)
    long_path = seat + "/" + "a" * (MAX_LINE + 10)
    assert get(server, long_path)[0] in (400, 414)
    assert get(server, seat, {"X-Big": "b" * (MAX_LINE + 10)})[0] in (400, 431)
    assert get(server, seat, {f"X-{n}": "1" for n in range(100)})[0] in (400, 431)
    assert get(server, seat, method="POST", body=b"x" * 5_000_000)[0] in (405, 413)
    for garbage in (b"\x00\xff\x10 nonsense\r\n\r\n", b"GET\r\n\r\n", b"GET /p/ HTTP/9.9\r\n\r\n",
                    b"GET " + seat.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"):
        answer = raw(server, garbage)
        # a refusal (4xx) or a closed connection; aiohttp answers in the version its parser got
        # (Debian's 3.8 echoes the HTTP/9.9 of the request line, as a 404)
        assert answer == b"" or re.match(rb"HTTP/\d\.\d 4\d\d ", answer), answer[:80]
    assert get(server, seat)[0] == 200


def test_connections_over_the_limit_are_told_to_come_back_later(served) -> None:
    server, _, _ = served
    assert server.listening is not None
    held = [socket.create_connection(("127.0.0.1", server.listening.port), timeout=30) for _ in range(6)]
    try:
        for s in held:  # each one a connection the server has taken up
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(12) == b"HTTP/1.1 200"
        assert raw(server, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 503")
    finally:
        for s in held:
            s.close()


def test_nobody_outside_the_local_network_is_answered() -> None:
    for address in ("127.0.0.1", "::1", "10.1.2.3", "172.16.0.9", "192.168.1.20", "169.254.3.3", "fe80::1%eth0",
                    "fd12::1", "::ffff:192.168.1.4"):
        assert local(address), address
    for address in ("8.8.8.8", "2001:4860:4860::8888", "::ffff:8.8.8.8", "not an address", ""):
        assert not local(address), address
    server = PhoneServer("127.0.0.1", 0)

    async def handler(request: object) -> str:
        return "served"

    for remote, served_ in (("8.8.8.8", False), (None, False), ("192.168.1.9", True)):
        answer = asyncio.run(server._only_local(SimpleNamespace(remote=remote), handler))  # type: ignore[arg-type]
        assert (answer == "served") is served_
        if not served_:
            assert answer.status == 403


def test_the_report_waits_for_the_end_of_the_game(served) -> None:
    server, phones, game = served
    report = path(game.phones[-1].text) + "/report"
    status, _, page = get(server, report)
    assert status == 404 and "ready when the game is over" in page
    game.play(len(game.rest))
    phones.follow(game)
    status, _, page = get(server, report)
    assert status == 200 and "The final tally" in page
    status, headers, file = get(server, path(game.phones[0].text) + "/report.html")
    assert status == 200 and "attachment" in headers["content-disposition"] and file == page
    status, headers, record = get(server, path(game.phones[0].text) + "/record.json")
    assert status == 200 and '"actions"' in record and "attachment" in headers["content-disposition"]


def test_a_port_in_use_is_said_and_the_table_goes_on() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = PhoneServer("127.0.0.1", taken.getsockname()[1])
        server.start()
        try:
            assert server.listening is None and "cannot listen on 127.0.0.1 port" in server.problem
            phones = Phones(server)
            game = table("two-standard", 3)
            phones.follow(game)
            assert [c.text for c in game.phones] == ["", "", ""]  # the screen says: not on a network yet
        finally:
            server.stop()
