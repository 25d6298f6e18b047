"""What each phone page shows, as frozen values built on the main loop after every change (pure).

A seat's page gets that seat's own hidden points and treasures and the table's public view; the
table's page gets the public view only. Another seat's hidden points are never put into a seat's
view at all, so no page can leak them. With open scores the public view carries everyone's.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from companion.rules import (
    COLOURS,
    NO_CELL,
    Action,
    ConflictKind,
    Game,
    GameConfig,
    GameState,
    PendingKind,
    cell_name,
)
from companion.ui.board import board_view, marks
from companion.ui.log import recent
from companion.ui.model import BoardView, MarkKind
from companion.ui.screens import seat_name, status

LOG_MOVES = 30  # moves on the table's page: a round or two of a 4-player game
TOKEN_BYTES = 16  # 128 random bits per link: not guessable over a network


@dataclass(frozen=True, slots=True)
class Links:
    """The secret part of each page's address, new for every game: one per seat, one for the table."""

    seats: tuple[str, ...]
    table: str

    @classmethod
    def new(cls, players: int) -> Links:
        return cls(tuple(secrets.token_urlsafe(TOKEN_BYTES) for _ in range(players)),
                   secrets.token_urlsafe(TOKEN_BYTES))

    def seat_of(self, token: str) -> int | None:
        """The seat whose link `token` is; None for the table's link or a link of no page.

        Every token is compared in constant time, so the answer's timing says nothing of the secrets."""
        found = None
        for seat, secret in enumerate(self.seats):
            if hmac.compare_digest(secret.encode(), token.encode()):
                found = seat
        return found

    def is_table(self, token: str) -> bool:
        return hmac.compare_digest(self.table.encode(), token.encode())


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One player as a page shows them; `points` and `treasures` are None where they are hidden."""

    seat: int
    name: str
    leaders: tuple[tuple[str, str], ...]  # (colour, square) for each; "" while the leader is in hand
    catastrophes: int
    hand: int
    points: tuple[int, ...] | None
    treasures: int | None
    current: bool


@dataclass(frozen=True, slots=True)
class ConflictView:
    """A revolt or war in progress: who fights whom and each side's strength so far."""

    kind: ConflictKind
    colour: str
    attacker: str
    defender: str
    attacker_strength: int  # on the board
    defender_strength: int
    attacker_committed: int | None  # from hand, once the attacker has said


@dataclass(frozen=True, slots=True)
class TablePage:
    """What every player may see."""

    status: str  # whose turn, actions left, the bag
    deciding: str  # who must decide what now
    conflict: ConflictView | None
    log: tuple[str, ...]  # the recent moves, oldest first; points only with open scores
    board: BoardView
    players: tuple[PlayerView, ...]
    bag: int
    treasures_left: int
    scores_open: bool
    over: str  # why the game ended; "" while it goes on


@dataclass(frozen=True, slots=True)
class SeatPage:
    """One seat's own page: that player, hidden points included, and the table's public view."""

    you: PlayerView
    table: TablePage


@dataclass(frozen=True, slots=True)
class Finished:
    """A game that is over, as its record: enough to make the report away from the main loop."""

    config: GameConfig
    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every page of one moment of one game. `version` grows with every change (the pages' ETag)."""

    version: int
    links: Links
    table: TablePage
    seats: tuple[SeatPage, ...]
    finished: Finished | None

    def page(self, token: str) -> SeatPage | TablePage | None:
        """The page a link opens, or None for a link that is not of this game."""
        seat = self.links.seat_of(token)
        if seat is not None:
            return self.seats[seat]
        return self.table if self.links.is_table(token) else None


def snapshot(game: Game, links: Links, version: int) -> Snapshot:
    """The pages of `game` as it stands now."""
    state = game.state
    scores_open = game.config.open_scores
    moves = recent(game, LOG_MOVES)
    conflict = state.pending.conflict
    shown = marks(MarkKind.LAST, moves[-1].cells) if moves else ()
    if conflict is not None:  # each side's leader and supporters, marked as on the conflict screen
        shown = (*marks(MarkKind.ATTACKER, (conflict.attacker_leader, *conflict.attacker_supporters)),
                 *marks(MarkKind.DEFENDER, (conflict.defender_leader, *conflict.defender_supporters)))
    table = TablePage(
        status="Game over" if state.over else status(state),
        deciding=_deciding(state),
        conflict=None if conflict is None else ConflictView(
            conflict.kind, conflict.colour.value, seat_name(state, conflict.attacker),
            seat_name(state, conflict.defender), conflict.attacker_strength, conflict.defender_strength,
            conflict.attacker_committed),
        log=tuple(m.line(scores_open) for m in moves),
        board=board_view(state, shown),
        players=tuple(_player(state, seat, scores_open or state.over) for seat in range(len(state.players))),
        bag=state.bag_count,
        treasures_left=state.treasures.bit_count(),
        scores_open=scores_open,
        over=state.game_over or "",
    )
    seats = tuple(SeatPage(_player(state, seat, True), table) for seat in range(len(state.players)))
    finished = Finished(game.config, game.actions) if state.over else None
    return Snapshot(version, links, table, seats, finished)


def _player(state: GameState, seat: int, points_shown: bool) -> PlayerView:
    p = state.players[seat]
    return PlayerView(
        seat=seat,
        name=seat_name(state, seat),
        leaders=tuple((c.value, "" if p.leader_cell(c) == NO_CELL else cell_name(p.leader_cell(c))) for c in COLOURS),
        catastrophes=p.catastrophes,
        hand=p.hand_size,
        points=p.points if points_shown else None,
        treasures=p.treasures if points_shown else None,
        current=seat == state.current and not state.over,
    )


def _deciding(state: GameState) -> str:
    pending = state.pending
    if pending.kind is PendingKind.GAME_OVER:
        return "The game is over."
    return f"{seat_name(state, pending.player)}: {pending.kind.value}."
