"""The README's pictures of the phones' pages, taken by headless Chromium, and of the codes on the screen.

    PYTHONPATH=. python tests/phone/shots.py docs/screenshots/

A golden game (three players, hidden scores) is played to a war in progress for the seat's and the
table's pages, and to its end for the report.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).parent))

from browser import chromium
from games import table

from companion.app.controller import Controller
from companion.phone.follow import Phones
from companion.phone.server import PhoneServer
from companion.rules import Game

WAR = 121  # three-standard: a black war, the attacker has committed


def main(out: Path) -> None:
    import pygame

    from companion.ui.render import Renderer

    server = PhoneServer("127.0.0.1", 0)
    server.start()
    try:
        phones = Phones(server)
        controller = Controller(Game.new(3, hidden_hands=True, names=("Anna", "Bo", "Cy")))
        phones.follow(controller)
        surface = pygame.Surface((800, 480))
        Renderer().draw(surface, controller.screen())
        pygame.image.save(surface, str(out / "phones-800x480.png"))
        game = table("three-standard", WAR)
        phones.follow(game)
        with chromium(412, 915) as phone:
            phone.get(game.phones[0].text)
            phone.save_screenshot(str(out / "phone-seat.png"))
            phone.set_window_size(412, 1100)
            phone.get(game.phones[-1].text)
            phone.save_screenshot(str(out / "phone-table.png"))
        game.play(len(game.rest))
        phones.follow(game)
        with chromium(1000, 1500) as desk:
            desk.get(game.phones[-1].text + "/report")
            desk.save_screenshot(str(out / "phone-report.png"))
    finally:
        server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
