"""The main loop's side of the phones: new links for every game, a snapshot after every change.

Called once per pass of the main loop; costs a comparison unless the game changed. The snapshot is
built here, on the main loop, from the game as it stands, and handed to the server whole.
"""

from __future__ import annotations

from typing import Protocol

from companion.rules import Game
from companion.ui.model import Code
from companion.ui.screens import Asking, seat_name

from .server import PhoneServer
from .view import Links, snapshot


class Table(Protocol):
    """What the phones need of the controller: its game, where its screens find the links, and what
    it is asking (the codes are shown once when a game is set up)."""

    game: Game
    phones: tuple[Code, ...]
    asking: Asking | None


class Phones:
    def __init__(self, server: PhoneServer) -> None:
        self.server = server
        self.version = 0
        self.links: Links | None = None
        self._game: Game | None = None
        self._published: object = None  # the game state last published (states are immutable)
        self._codes: tuple[object, tuple[Code, ...]] | None = None

    def follow(self, table: Table) -> None:
        game = table.game
        if game is not self._game or self.links is None:  # a new game, or one resumed after a restart
            self._game, self.links = game, Links.new(len(game.state.players))
            if not game.actions:  # just set up: show everyone their code once
                table.asking = Asking.PHONES
        if game.state is not self._published:
            self.version += 1
            self.server.publish(snapshot(game, self.links, self.version))
            self._published = game.state
        table.phones = self.codes(game)

    def codes(self, game: Game) -> tuple[Code, ...]:
        """One code per seat, named as on the screen, and the table's; remade only when a link changes."""
        links = self.links
        assert links is not None
        key = (links, self.server.listening)
        if self._codes is None or self._codes[0] != key:
            state = game.state
            url = self.server.url
            seats = tuple(Code(seat_name(state, seat), url(token)) for seat, token in enumerate(links.seats))
            self._codes = key, (*seats, Code("The table", self.server.url(links.table)))
        return self._codes[1]
