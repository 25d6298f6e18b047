"""The pages in a real headless Chromium (Debian's), driven by Selenium, as the game moves.

Skipped, saying what to install, where Chromium is missing on a developer's machine; under CI
(CI=true), which installs it, a missing one fails instead."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import chromium, needs_chromium
from games import Table, table

from companion.phone.follow import Phones
from companion.phone.server import PhoneServer

pytestmark = needs_chromium()
WAIT = 30  # seconds the browser may take to show a change (it asks every 2 s; the machine is shared)


@pytest.fixture
def served() -> Iterator[tuple[Phones, Table]]:
    server = PhoneServer("127.0.0.1", 0)
    server.start()
    assert server.listening is not None, server.problem
    phones = Phones(server)
    game = table("three-standard", 95)  # a red war ends, then a black war is fought
    phones.follow(game)
    try:
        yield phones, game
    finally:
        server.stop()


# The page redraws itself every poll, so an element found one call earlier may be gone by the
# next: each read is one script, which runs between the page's own redraws.
def text(browser: object) -> str:
    script = "return document.getElementById('live').innerText"
    return str(browser.execute_script(script))  # type: ignore[attr-defined]


def points_row(browser: object) -> list[str]:
    script = "return [...document.querySelectorAll('td.big')].map(c => c.innerText.trim())"
    return [str(c) for c in browser.execute_script(script)]  # type: ignore[attr-defined]


def board_width(browser: object) -> float:
    script = "return document.querySelector('.board svg').getBoundingClientRect().width"
    return float(browser.execute_script(script))  # type: ignore[attr-defined]


def test_a_seats_page_and_the_tables_page_follow_the_game(served) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    phones, game = served
    state = game.game.state
    with chromium() as seat, chromium() as everyone:
        seat.get(game.phones[0].text)
        everyone.get(game.phones[-1].text)
        you = state.players[0]
        assert points_row(seat) == [str(n) for n in (*you.points, you.treasures)]
        assert "Scores are hidden." in text(seat)
        assert "Player 2 (bull) · 1 action left" in text(everyone)
        assert board_width(everyone) > 300
        # The game moves on at the table: a black war starts, the attacker commits.
        game.play(2)
        phones.follow(game)
        WebDriverWait(everyone, WAIT).until(lambda b: "black war" in text(b))
        page = text(everyone)
        assert "Player 2 (bull) attacks Player 3 (pot). On the board: 6 against 6 settlements." in page
        assert "Player 2: commits 0 tiles to the war" in page
        WebDriverWait(seat, WAIT).until(lambda b: "black war" in text(b))
        # The war is fought and play goes on: seat 0's own points change on its page.
        before = points_row(seat)
        while game.game.state.players[0].points == state.players[0].points:
            game.play(1)
        phones.follow(game)
        now = game.game.state.players[0]
        WebDriverWait(seat, WAIT).until(lambda b: points_row(b) != before)
        assert points_row(seat) == [str(n) for n in (*now.points, now.treasures)]
        assert "black war" not in text(seat)


def test_one_seats_link_never_shows_another_seats_hidden_points(served) -> None:
    _, game = served
    players = game.game.state.players
    with chromium() as browser:
        for seat, code in enumerate(game.phones[:-1]):
            browser.get(code.text)
            assert points_row(browser) == [str(n) for n in (*players[seat].points, players[seat].treasures)]
            shown = text(browser)
            assert shown.startswith(players[seat].name) and "Scores are hidden." in shown
            assert len(points_row(browser)) == 5  # one row: this seat's own


def test_an_old_link_says_to_scan_again(served) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    phones, game = served
    with chromium() as browser:
        browser.get(game.phones[0].text)
        game.game = table("two-standard", 3).game  # a new game at the table: new links
        phones.follow(game)
        note = browser.find_element(By.ID, "note")
        WebDriverWait(browser, WAIT).until(lambda b: note.is_displayed())
        assert "scan your seat's code again" in note.text
