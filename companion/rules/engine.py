"""The rules of Tigris & Euphrates: from a state and an action to the next state and its events.

`Game` keeps the list of applied actions and a snapshot after each, so undo is just going back
to an earlier snapshot. Each `apply` works on a private mutable copy (`_Work`) and freezes it
at the end: a rejected action leaves nothing behind.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import fields, replace
from functools import lru_cache
from typing import Any

from .actions import (
    Action,
    BuildMonument,
    ChooseWar,
    DeclineMonument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Support,
    Swap,
    TakeTreasure,
    Withdraw,
)
from .board import (
    COLUMNS,
    FULL,
    NEIGHBOURS,
    ROWS,
    SQUARES,
    bit,
    block_mask,
    board_named,
    cell_name,
    cells_of,
    expand,
    region_of,
    regions,
)
from .config import GameConfig
from .errors import CompanionError, IllegalAction
from .events import Event, EventKind
from .pieces import (
    BLACK,
    BLUE,
    CATASTROPHES_PER_PLAYER,
    COLOURS,
    GREEN,
    HAND_SIZE,
    RED,
    TILES_IN_GAME,
    Colour,
    Monument,
)
from .state import (
    NO_CELL,
    BuiltMonument,
    Conflict,
    ConflictKind,
    GameState,
    Pending,
    PendingKind,
    PlayerState,
    leaders_in,
    tiles_unseen,
)

FORMAT = "te-companion/1"

# Rulebook pages (RULES.md): leader p. 6, catastrophe p. 7, revolt p. 8, war p. 9, monument p. 11, end p. 14.
P_LEADER, P_CATASTROPHE, P_REVOLT, P_WAR, P_MONUMENT, P_END = 6, 7, 8, 9, 11, 14

# Every action that can be offered is made once, so legal_actions() only picks from tables.
_TILE = tuple(tuple(PlaceTile(colour, cell) for cell in range(SQUARES)) for colour in COLOURS)
_LEADER = tuple(tuple(PlaceLeader(colour, cell) for cell in range(SQUARES)) for colour in COLOURS)
_CATASTROPHE = tuple(PlaceCatastrophe(cell) for cell in range(SQUARES))
_WITHDRAW = tuple(Withdraw(colour) for colour in COLOURS)
_SUPPORT = tuple(Support(n) for n in range(HAND_SIZE + 1))
_TABLE_SWAPS = tuple(Swap(n) for n in range(HAND_SIZE + 1))
_PASS = Pass()
_NO_MONUMENT = DeclineMonument()
_STATE_FIELDS = tuple(f.name for f in fields(GameState))


class NothingToUndo(CompanionError, IndexError):
    """Undo at the start of the game."""


class _Work:
    """A mutable copy of a GameState while one action is applied."""

    board: Any
    tiles: list[int]
    facedown: int
    treasures: int
    catastrophes: int
    leader_mask: int
    monuments: tuple[BuiltMonument, ...]
    unification: int
    players: list[PlayerState]
    bag: tuple[Colour, ...]
    bag_count: int
    out: list[int]
    unknown_out: int
    current: int
    actions_left: int
    turn: int
    pending: Pending
    wars: tuple[Colour, ...]
    monument_tile: int
    treasure_check: bool
    game_over: str | None
    hidden_hands: bool
    english_support: bool

    def __init__(self, state: GameState) -> None:
        for name in _STATE_FIELDS:
            setattr(self, name, getattr(state, name))
        self.tiles = list(state.tiles)
        self.players = list(state.players)
        self.out = list(state.out)
        self.events: list[Event] = []

    def freeze(self) -> GameState:
        values = {name: getattr(self, name) for name in _STATE_FIELDS}
        values["tiles"] = tuple(self.tiles)
        values["players"] = tuple(self.players)
        values["out"] = tuple(self.out)
        return GameState(**values)

    # --- small mutations ---------------------------------------------------------------------

    def emit(self, kind: EventKind, text: str, page: int | None = None, **details: Any) -> None:
        self.events.append(Event(kind, text, page, **details))

    @property
    def pieces(self) -> int:
        t = self.tiles
        return t[0] | t[1] | t[2] | t[3] | self.facedown | self.leader_mask

    @property
    def empty(self) -> int:
        return FULL & ~(self.pieces | self.catastrophes)

    def name(self, seat: int) -> str:
        return self.players[seat].name

    def score(self, seat: int, colour: Colour, amount: int, why: str, page: int | None = None,
              kind: EventKind = EventKind.SCORED) -> None:
        player = self.players[seat]
        points = list(player.points)
        points[colour.index] += amount
        self.players[seat] = replace(player, points=tuple(points))
        noun = "point" if amount == 1 else "points"
        self.emit(kind, f"{player.name} scores {amount} {colour.value} {noun} {why}", page,
                  player=seat, colour=colour, amount=amount)

    def set_leader(self, seat: int, colour: Colour, cell: int) -> None:
        player = self.players[seat]
        old = player.leaders[colour.index]
        if old != NO_CELL:
            self.leader_mask &= ~bit(old)
        if cell != NO_CELL:
            self.leader_mask |= bit(cell)
        leaders = list(player.leaders)
        leaders[colour.index] = cell
        self.players[seat] = replace(player, leaders=tuple(leaders))

    def leaders_in(self, mask: int) -> list[tuple[int, Colour, int]]:
        return leaders_in(self.players, mask)

    def kingdoms(self, pieces: int | None = None) -> list[int]:
        leaders = self.leader_mask
        return [region for region in regions(self.pieces if pieces is None else pieces) if region & leaders]

    def unseen(self, colour: Colour) -> int:
        return tiles_unseen(self.tiles, self.monuments, self.out, colour)

    def available(self, seat: int, colour: Colour) -> int:
        """Tiles of `colour` the player can have in hand (exact with full information)."""
        player = self.players[seat]
        if player.hand is not None:
            return player.hand[colour.index]
        return min(player.hand_size, self.unseen(colour))

    def spend(self, seat: int, colour: Colour, n: int) -> None:
        """Take `n` tiles of `colour` from the player's hand (callers have checked `available`)."""
        player = self.players[seat]
        hand = player.hand
        if hand is not None:
            new_hand = list(hand)
            new_hand[colour.index] -= n
            hand = tuple(new_hand)
        self.players[seat] = replace(player, hand=hand, hand_size=player.hand_size - n)

    def draw(self, seat: int, n: int) -> int:
        """Draw up to `n` tiles from the bag into the player's hand; returns how many were drawn."""
        n = min(n, self.bag_count)
        player = self.players[seat]
        hand = player.hand
        if hand is not None:
            new_hand = list(hand)
            for colour in self.bag[:n]:
                new_hand[colour.index] += 1
            hand = tuple(new_hand)
            self.bag = self.bag[n:]
        self.bag_count -= n
        self.players[seat] = replace(player, hand=hand, hand_size=player.hand_size + n)
        return n


# --- set-up -------------------------------------------------------------------------------------


def initial_state(config: GameConfig) -> GameState:
    board = board_named(config.board)
    temples = board.temples
    on_board = [temples.bit_count(), 0, 0, 0]
    players = config.players
    if config.bag is not None:
        bag = tuple(config.bag)
    elif config.hidden_hands:
        bag = ()
    else:
        pool = [colour for colour in COLOURS for _ in range(TILES_IN_GAME[colour.index] - on_board[colour.index])]
        random.Random(config.seed).shuffle(pool)
        bag = tuple(pool)
    in_bag = [sum(1 for tile in bag if tile is colour) for colour in COLOURS]
    for colour in COLOURS:
        if in_bag[colour.index] + on_board[colour.index] > TILES_IN_GAME[colour.index]:
            raise ValueError(f"the bag holds more {colour.value} tiles than the game has")
    if config.hidden_hands:
        bag_count = sum(TILES_IN_GAME) - sum(on_board) - HAND_SIZE * players
        out = [0, 0, 0, 0]
    else:
        if len(bag) < HAND_SIZE * players:
            raise ValueError(f"the bag must hold at least {HAND_SIZE * players} tiles to deal the hands")
        bag_count = len(bag)
        out = [TILES_IN_GAME[i] - on_board[i] - in_bag[i] for i in range(4)]
    seats = []
    for seat in range(players):
        hand: tuple[int, ...] | None = None
        if not config.hidden_hands:
            dealt, bag = bag[:HAND_SIZE], bag[HAND_SIZE:]
            bag_count -= HAND_SIZE
            hand = tuple(sum(1 for tile in dealt if tile is colour) for colour in COLOURS)
        seats.append(PlayerState(
            seat=seat, name=config.names[seat], dynasty=config.dynasties[seat], points=(0, 0, 0, 0),
            treasures=0, hand=hand, hand_size=HAND_SIZE, catastrophes=CATASTROPHES_PER_PLAYER,
            leaders=(NO_CELL,) * 4,
        ))
    return GameState(
        board=board, tiles=(temples, 0, 0, 0), facedown=0, treasures=temples, catastrophes=0, leader_mask=0,
        monuments=(), unification=NO_CELL, players=tuple(seats), bag=bag, bag_count=bag_count, out=tuple(out),
        unknown_out=0, current=0, actions_left=2, turn=1, pending=Pending(PendingKind.ACTION, 0, actions_left=2),
        wars=(), monument_tile=NO_CELL, treasure_check=False, game_over=None,
        hidden_hands=config.hidden_hands, english_support=config.english_support,
    )


# --- the game -----------------------------------------------------------------------------------


class Game:
    """One game: its configuration, the applied actions and a snapshot after each."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config.completed()
        self._states: list[GameState] = [initial_state(self.config)]
        self._actions: list[Action] = []

    @classmethod
    def new(
        cls,
        players: int,
        *,
        board: str = "standard",
        seed: int | None = None,
        bag: Sequence[Colour] | None = None,
        hidden_hands: bool = False,
        english_support: bool = False,
        open_scores: bool = False,
        names: Sequence[str] = (),
        dynasties: Sequence[str] = (),
    ) -> Game:
        return cls(GameConfig(
            players=players, board=board, seed=seed, bag=None if bag is None else tuple(bag),
            hidden_hands=hidden_hands, english_support=english_support, open_scores=open_scores,
            names=tuple(names), dynasties=tuple(dynasties),
        ))

    @classmethod
    def from_state(cls, config: GameConfig, state: GameState) -> Game:
        """A game that starts from a given position (test fixtures, manual set-ups); it cannot be replayed."""
        game = cls(config)
        game._states = [state]
        return game

    @property
    def state(self) -> GameState:
        return self._states[-1]

    @property
    def pending(self) -> Pending:
        return self._states[-1].pending

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._actions)

    @property
    def states(self) -> tuple[GameState, ...]:
        """The snapshot before the first action, then the one after each: `states[i + 1]` follows `actions[i]`."""
        return tuple(self._states)

    def apply(self, action: Action | str) -> list[Event]:
        """Apply a legal action and return what happened; raise IllegalAction and change nothing otherwise."""
        if isinstance(action, str):
            try:
                action = Action.parse(action)
            except ValueError as error:
                raise IllegalAction("unreadable", str(error)) from None
        work = _Work(self.state)
        _apply(work, action)
        self._states.append(work.freeze())
        self._actions.append(action)
        return work.events

    def undo(self) -> Action:
        """Go back one applied action; returns the action taken back."""
        if not self._actions:
            raise NothingToUndo("There is nothing to take back: the game has just started.")
        self._states.pop()
        return self._actions.pop()

    def before(self, steps: int) -> GameState:
        """The state `steps` applied actions ago (0: now): where `steps` undos would lead."""
        if not 0 <= steps <= len(self._actions):
            raise NothingToUndo(f"Only {len(self._actions)} actions have been played.")
        return self._states[-1 - steps]

    def legal_actions(self) -> list[Action]:
        return legal_actions(self.state)

    def to_json(self) -> str:
        return json.dumps({
            "format": FORMAT,
            "config": self.config.to_dict(),
            "actions": [str(action) for action in self._actions],
            "state": state_summary(self.state),
        }, indent=1)

    @classmethod
    def from_json(cls, text: str) -> Game:
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise ValueError(f"not a game record of format {FORMAT}")
            config = GameConfig.from_dict(data["config"])
            actions = [Action.parse(a) for a in data["actions"]]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise CompanionError(f"The game record cannot be read: {error}") from None
        game = replay(config, actions)
        if "state" in data and data["state"] != state_summary(game.state):
            raise CompanionError("The game record's actions do not lead to the state it recorded.")
        return game


def replay(config: GameConfig, actions: Iterable[Action | str]) -> Game:
    """Rebuild a game by applying `actions` from the start."""
    game = Game(config)
    for action in actions:
        game.apply(action)
    return game


# --- applying actions ---------------------------------------------------------------------------


def _apply(w: _Work, action: Action) -> None:
    kind = w.pending.kind
    if kind is PendingKind.GAME_OVER:
        raise IllegalAction("game-over", "The game is over: no more actions.", P_END)
    if kind is PendingKind.ACTION:
        if isinstance(action, PlaceTile):
            _place_tile(w, action.colour, action.cell)
        elif isinstance(action, PlaceLeader):
            _place_leader(w, action.colour, action.cell)
        elif isinstance(action, Withdraw):
            _withdraw(w, action.colour)
        elif isinstance(action, PlaceCatastrophe):
            _catastrophe(w, action.cell)
        elif isinstance(action, Swap):
            _swap(w, action)
        elif isinstance(action, Pass):
            w.emit(EventKind.PASSED, f"{w.name(w.current)} passes", player=w.current)
            _settle(w)
        else:
            raise IllegalAction("not-now", f"Now {w.name(w.current)} plays an action, not {action}.")
    elif kind is PendingKind.SUPPORT:
        if not isinstance(action, Support):
            raise IllegalAction("not-now", f"Now {w.name(w.pending.player)} says how many tiles to commit.")
        _support(w, action.count)
    elif kind is PendingKind.WAR_ORDER:
        if not isinstance(action, ChooseWar) or action not in w.pending.options:
            choices = ", ".join(str(o) for o in w.pending.options)
            raise IllegalAction("war-order", f"{w.name(w.current)} chooses the next war: {choices}.", P_WAR)
        _start_war(w, action.colour)
    elif kind is PendingKind.MONUMENT:
        if isinstance(action, DeclineMonument):
            w.emit(EventKind.MONUMENT_DECLINED, f"{w.name(w.current)} builds no monument", P_MONUMENT)
            _settle(w)
        elif isinstance(action, BuildMonument) and action in w.pending.options:
            _build_monument(w, action.monument, action.cell)
        else:
            raise IllegalAction("monument", "That monument cannot be built there: choose one offered, or none.",
                                P_MONUMENT)
    elif kind is PendingKind.TREASURE:
        if not isinstance(action, TakeTreasure) or action not in w.pending.options:
            where = ", ".join(cell_name(o.cell) for o in w.pending.options if isinstance(o, TakeTreasure))
            raise IllegalAction("treasure", f"{w.name(w.pending.player)} takes a treasure from {where} "
                                "(treasures on the framed corner squares first).")
        _take_treasure(w, w.pending.player, action.cell)
        _settle(w)


def _check_square(cell: int) -> None:
    if not 0 <= cell < SQUARES:
        raise IllegalAction("no-square", f"There is no square number {cell}.")


def _place_tile(w: _Work, colour: Colour, cell: int) -> None:
    _check_square(cell)
    seat, b = w.current, bit(cell)
    if not w.empty & b:
        raise IllegalAction("occupied", f"A tile must go on an empty square; {cell_name(cell)} is taken.")
    river = w.board.river & b
    if colour is BLUE and not river:
        raise IllegalAction("farm-on-land", "Farms (blue tiles) go only on river squares.")
    if colour is not BLUE and river:
        raise IllegalAction("tile-on-river", f"Only farms (blue tiles) may go on a river square; "
                                             f"a {colour.tile_name} may not.")
    if w.available(seat, colour) < 1:
        raise IllegalAction("not-in-hand", f"{w.name(seat)} has no {colour.value} tile in hand.")
    touching = [k for k in w.kingdoms() if k & NEIGHBOURS[cell]]
    if len(touching) > 2:
        raise IllegalAction("three-kingdoms", "A tile may not touch more than two kingdoms.")
    w.spend(seat, colour, 1)
    w.tiles[colour.index] |= b
    w.emit(EventKind.TILE_PLACED, f"{w.name(seat)} places a {colour.value} {colour.tile_name} on "
           f"{cell_name(cell)}", player=seat, colour=colour, cells=(cell,))
    w.monument_tile = cell
    if len(touching) == 2:
        united = region_of(b, w.pieces)
        counts = [0, 0, 0, 0]
        for _, leader_colour, _ in w.leaders_in(united):
            counts[leader_colour.index] += 1
        wars = tuple(c for c in COLOURS if counts[c.index] == 2)
        w.emit(EventKind.KINGDOMS_UNITED, f"The tile on {cell_name(cell)} unites two kingdoms: it scores nothing",
               P_WAR, player=seat, cells=(cell,))
        if wars:
            w.unification = cell
            w.wars = wars
        else:
            w.treasure_check = True
    else:
        if touching:
            _score_tile(w, seat, colour, region_of(b, w.pieces))
        w.treasure_check = True
    _settle(w)


def _score_tile(w: _Work, seat: int, colour: Colour, kingdom: int) -> None:
    leaders = {leader_colour: owner for owner, leader_colour, _ in w.leaders_in(kingdom)}
    if colour in leaders:
        w.score(leaders[colour], colour, 1, f"(their {colour.leader_name} rules the kingdom)")
    elif BLACK in leaders:
        w.score(leaders[BLACK], colour, 1, f"(no {colour.leader_name} there: the king takes it)")


def _place_leader(w: _Work, colour: Colour, cell: int) -> None:
    _check_square(cell)
    seat, b = w.current, bit(cell)
    old = w.players[seat].leader_cell(colour)
    if old == cell:
        raise IllegalAction("same-square", f"Your {colour.leader_name} already stands on {cell_name(cell)}.",
                            P_LEADER)
    if w.board.river & b:
        raise IllegalAction("leader-on-river", "A leader may not stand on a river square.", P_LEADER)
    pieces = w.pieces & ~(bit(old) if old != NO_CELL else 0)
    if (pieces | w.catastrophes) & b:
        raise IllegalAction("occupied", f"A leader must stand on an empty square; {cell_name(cell)} is taken.",
                            P_LEADER)
    if not NEIGHBOURS[cell] & w.tiles[RED.index]:
        raise IllegalAction("no-temple", "A leader must stand next to a temple.", P_LEADER)
    leaders_without = w.leader_mask & ~(bit(old) if old != NO_CELL else 0)
    touching = [r for r in regions(pieces) if r & leaders_without and r & NEIGHBOURS[cell]]
    if len(touching) > 1:
        raise IllegalAction("leader-unites", "A leader may not be placed so that it unites two kingdoms.",
                            P_LEADER)
    w.set_leader(seat, colour, cell)
    if old == NO_CELL:
        w.emit(EventKind.LEADER_PLACED, f"{w.name(seat)} places their {colour.value} {colour.leader_name} on "
               f"{cell_name(cell)}", P_LEADER, player=seat, colour=colour, cells=(cell,))
    else:
        w.emit(EventKind.LEADER_MOVED, f"{w.name(seat)} moves their {colour.value} {colour.leader_name} from "
               f"{cell_name(old)} to {cell_name(cell)}", P_LEADER, player=seat, colour=colour, cells=(old, cell))
    kingdom = region_of(b, w.pieces)
    rivals = [(owner, where) for owner, c, where in w.leaders_in(kingdom) if c is colour and owner != seat]
    if rivals:
        defender, defender_cell = rivals[0]
        temples = w.tiles[RED.index]
        conflict = Conflict(
            kind=ConflictKind.REVOLT, colour=colour, attacker=seat, defender=defender, attacker_leader=cell,
            defender_leader=defender_cell, attacker_supporters=tuple(cells_of(NEIGHBOURS[cell] & temples)),
            defender_supporters=tuple(cells_of(NEIGHBOURS[defender_cell] & temples)),
        )
        w.emit(EventKind.REVOLT_STARTED, f"Revolt! {w.name(seat)}'s {colour.leader_name} challenges "
               f"{w.name(defender)}'s {colour.leader_name}", P_REVOLT, player=seat, colour=colour,
               cells=(cell, defender_cell))
        _ask_support(w, conflict)
    else:
        w.treasure_check = True
        _settle(w)


def _withdraw(w: _Work, colour: Colour) -> None:
    seat = w.current
    cell = w.players[seat].leader_cell(colour)
    if cell == NO_CELL:
        raise IllegalAction("not-on-board", f"Your {colour.leader_name} is not on the board.", P_LEADER)
    w.set_leader(seat, colour, NO_CELL)
    w.emit(EventKind.LEADER_WITHDRAWN, f"{w.name(seat)} withdraws their {colour.value} {colour.leader_name} "
           f"from {cell_name(cell)}", P_LEADER, player=seat, colour=colour, cells=(cell,))
    _settle(w)


def _catastrophe(w: _Work, cell: int) -> None:
    _check_square(cell)
    seat, b = w.current, bit(cell)
    if w.players[seat].catastrophes < 1:
        raise IllegalAction("no-catastrophes", f"{w.name(seat)} has no catastrophe tiles left.", P_CATASTROPHE)
    for mask, what in ((w.catastrophes, "another catastrophe"), (w.leader_mask, "a leader"),
                       (w.facedown, "a monument"), (w.treasures, "a treasure")):
        if mask & b:
            raise IllegalAction("catastrophe-blocked", f"A catastrophe may not go on {what}.", P_CATASTROPHE)
    covered = next((c for c in COLOURS if w.tiles[c.index] & b), None)
    if covered is not None:
        w.tiles[covered.index] &= ~b
        w.out[covered.index] += 1
    w.catastrophes |= b
    w.players[seat] = replace(w.players[seat], catastrophes=w.players[seat].catastrophes - 1)
    what = f"destroying the {covered.value} {covered.tile_name} there" if covered else "on an empty square"
    w.emit(EventKind.CATASTROPHE, f"{w.name(seat)} places a catastrophe on {cell_name(cell)}, {what}",
           P_CATASTROPHE, player=seat, colour=covered, cells=(cell,))
    _exile_leaders_without_temple(w, P_CATASTROPHE)
    _settle(w)


def _swap(w: _Work, swap: Swap) -> None:
    seat = w.current
    player = w.players[seat]
    if swap.count < 1:
        raise IllegalAction("swap-none", "A swap discards at least one tile.")
    if swap.count > player.hand_size:
        raise IllegalAction("swap-too-many", f"{player.name} holds only {player.hand_size} tiles.")
    if swap.count > w.bag_count:
        raise IllegalAction("bag-short", f"The bag holds only {w.bag_count} tiles: swap at most that many.")
    if player.hand is not None and not swap.tiles:
        raise IllegalAction("swap-which", "Say which tiles to swap.")
    for colour in COLOURS:
        n = swap.tiles.count(colour)
        if n > w.available(seat, colour):
            raise IllegalAction("not-in-hand", f"{player.name} does not hold {n} {colour.value} tiles.")
    for colour in COLOURS:
        n = swap.tiles.count(colour)
        if n:
            w.spend(seat, colour, n)
            w.out[colour.index] += n
    if not swap.tiles:
        w.players[seat] = replace(w.players[seat], hand_size=player.hand_size - swap.count)
        w.unknown_out += swap.count
    w.draw(seat, swap.count)
    w.emit(EventKind.SWAPPED, f"{player.name} swaps {swap.count} tile{'s' if swap.count > 1 else ''}",
           player=seat, amount=swap.count)
    _settle(w)


# --- conflicts ----------------------------------------------------------------------------------


def support_colour(conflict: Conflict) -> Colour:
    """Revolts are fought with temples; wars with tiles of the war's colour."""
    return RED if conflict.kind is ConflictKind.REVOLT else conflict.colour


def _page(conflict: Conflict) -> int:
    return P_REVOLT if conflict.kind is ConflictKind.REVOLT else P_WAR


def _max_support(w: _Work, conflict: Conflict) -> int:
    attacking = conflict.attacker_committed is None
    seat = conflict.attacker if attacking else conflict.defender
    most = w.available(seat, support_colour(conflict))
    if w.english_support:
        if attacking:
            enough = conflict.defender_strength - conflict.attacker_strength + 1
        else:
            enough = conflict.attacker_strength + (conflict.attacker_committed or 0) - conflict.defender_strength
        most = min(most, max(0, enough))
    return most


def _ask_support(w: _Work, conflict: Conflict) -> None:
    attacking = conflict.attacker_committed is None
    seat = conflict.attacker if attacking else conflict.defender
    w.pending = Pending(PendingKind.SUPPORT, seat, conflict=conflict, max_support=_max_support(w, conflict))


def _support(w: _Work, n: int) -> None:
    conflict = w.pending.conflict
    assert conflict is not None
    seat = w.pending.player
    colour = support_colour(conflict)
    if n < 0 or n > w.pending.max_support:
        limit = w.pending.max_support
        raise IllegalAction("support-count", f"{w.name(seat)} can commit from 0 to {limit} "
                            f"{colour.value} tile{'s' if limit != 1 else ''}.",
                            _page(conflict))
    w.spend(seat, colour, n)
    w.out[colour.index] += n
    w.emit(EventKind.SUPPORT_COMMITTED, f"{w.name(seat)} commits {n} {colour.value} tile{'s' if n != 1 else ''}",
           player=seat, colour=colour, amount=n)
    if conflict.attacker_committed is None:
        _ask_support(w, replace(conflict, attacker_committed=n))
    else:
        _resolve(w, conflict, n)


def _resolve(w: _Work, conflict: Conflict, defender_committed: int) -> None:
    attack = conflict.attacker_strength + (conflict.attacker_committed or 0)
    defence = conflict.defender_strength + defender_committed
    won = attack > defence
    winner, loser = (conflict.attacker, conflict.defender) if won else (conflict.defender, conflict.attacker)
    loser_cell = conflict.defender_leader if won else conflict.attacker_leader
    colour = conflict.colour
    tie = " (ties go to the defender)" if attack == defence else ""
    page = _page(conflict)
    w.emit(EventKind.CONFLICT_WON, f"{w.name(winner)} wins the {colour.value} {conflict.kind.value}, "
           f"{max(attack, defence)} to {min(attack, defence)}{tie}", page, player=winner, colour=colour,
           amount=attack if won else defence)
    if conflict.kind is ConflictKind.REVOLT:
        w.set_leader(loser, colour, NO_CELL)
        w.emit(EventKind.PIECES_REMOVED, f"{w.name(loser)}'s {colour.leader_name} on {cell_name(loser_cell)} "
               "returns to its owner", page, player=loser, colour=colour, cells=(loser_cell,))
        w.score(winner, RED, 1, "for winning the revolt", page)
    else:
        supporters = conflict.defender_supporters if won else conflict.attacker_supporters
        removed = sum(bit(c) for c in supporters) & ~w.treasures
        if colour is RED:
            others = 0
            for player in w.players:
                for leader_colour, where in zip(COLOURS, player.leaders, strict=True):
                    if leader_colour is not RED and where != NO_CELL:
                        others |= bit(where)
            removed &= ~expand(others)
        w.set_leader(loser, colour, NO_CELL)
        w.tiles[colour.index] &= ~removed
        w.out[colour.index] += removed.bit_count()
        cells = (loser_cell, *cells_of(removed))
        w.emit(EventKind.PIECES_REMOVED, f"Remove {w.name(loser)}'s {colour.leader_name} and "
               f"{removed.bit_count()} {colour.value} tile{'s' if removed.bit_count() != 1 else ''} from the board",
               page, player=loser, colour=colour, cells=cells)
        w.score(winner, colour, len(cells), "for the pieces removed in the war", page)
        _exile_leaders_without_temple(w, P_WAR)
    w.treasure_check = True
    _settle(w)


def _war_leaders(w: _Work, colour: Colour) -> list[tuple[int, Colour, int]] | None:
    """The two leaders of a war still to be fought, if they are still connected through the uniting tile."""
    united = region_of(bit(w.unification), w.pieces)
    leaders = [leader for leader in w.leaders_in(united) if leader[1] is colour]
    return leaders if len(leaders) == 2 else None


def _start_war(w: _Work, colour: Colour) -> None:
    leaders = _war_leaders(w, colour)
    assert leaders is not None
    w.wars = tuple(c for c in w.wars if c is not colour)
    seats = {seat for seat, _, _ in leaders}
    active, n = w.current, len(w.players)
    attacker = next(s for s in ((active + k) % n for k in range(n)) if s in seats)
    (a_seat, _, a_cell), (d_seat, _, d_cell) = sorted(leaders, key=lambda leader: leader[0] != attacker)
    apart = w.pieces & ~bit(w.unification)
    own = w.tiles[colour.index]
    conflict = Conflict(
        kind=ConflictKind.WAR, colour=colour, attacker=a_seat, defender=d_seat, attacker_leader=a_cell,
        defender_leader=d_cell, attacker_supporters=tuple(cells_of(region_of(bit(a_cell), apart) & own)),
        defender_supporters=tuple(cells_of(region_of(bit(d_cell), apart) & own)), uniting_tile=w.unification,
    )
    w.emit(EventKind.WAR_STARTED, f"War of the {colour.leader_name}s! {w.name(a_seat)} attacks "
           f"{w.name(d_seat)}", P_WAR, player=a_seat, colour=colour, cells=(a_cell, d_cell))
    _ask_support(w, conflict)


# --- after every step: remaining wars, the unification tile, monuments, treasures, end of action --


def _settle(w: _Work) -> None:
    """Decide what comes next once the last step is done. The treasure check waits until the action
    is wholly resolved (RULES.md 6): after every war of a tile, the unification tile and the monument
    decision, so a temple keeps its treasure (and its protection) through all the wars."""
    if w.wars:
        live = tuple(c for c in w.wars if _war_leaders(w, c) is not None)
        for dropped in (c for c in w.wars if c not in live):
            w.emit(EventKind.WAR_DROPPED, f"The {dropped.leader_name}s are no longer in one kingdom: no war",
                   P_WAR, colour=dropped)
        w.wars = live
        if len(live) > 1:
            w.pending = Pending(PendingKind.WAR_ORDER, w.current, options=tuple(ChooseWar(c) for c in live))
            return
        if live:
            _start_war(w, live[0])
            return
    if w.unification != NO_CELL:
        w.emit(EventKind.UNIFICATION_REMOVED, "The wars are over: take the unification tile off the board",
               P_WAR, cells=(w.unification,))
        w.unification = NO_CELL
    if w.monument_tile != NO_CELL:
        options = _monument_options(w, w.monument_tile)
        w.monument_tile = NO_CELL
        if options:
            w.pending = Pending(PendingKind.MONUMENT, w.current, options=options)
            where = sorted({cell_name(o.cell) for o in options if isinstance(o, BuildMonument)})
            w.emit(EventKind.MONUMENT_POSSIBLE, f"{w.name(w.current)} may build a monument on the 2×2 at "
                   f"{' or '.join(where)}", P_MONUMENT, player=w.current)
            return
    while w.treasure_check:
        due = _treasure_due(w)
        if due is None:
            w.treasure_check = False
            break
        seat, choices, need = due
        if choices.bit_count() <= need:
            for cell in cells_of(choices):
                _take_treasure(w, seat, cell)
            continue
        w.pending = Pending(PendingKind.TREASURE, seat, options=tuple(TakeTreasure(c) for c in cells_of(choices)),
                            treasures_to_take=need)
        return
    _finish_action(w)


def _treasure_due(w: _Work) -> tuple[int, int, int] | None:
    """(trader's owner, squares to take from, how many to take) for the first kingdom that owes treasures."""
    for kingdom in w.kingdoms():
        traders = [seat for seat, colour, _ in w.leaders_in(kingdom) if colour is GREEN]
        if len(traders) != 1:
            continue
        treasures = kingdom & w.treasures
        need = treasures.bit_count() - 1
        if need < 1:
            continue
        corners = treasures & w.board.corners
        return traders[0], corners or treasures, need
    return None


def _take_treasure(w: _Work, seat: int, cell: int) -> None:
    w.treasures &= ~bit(cell)
    player = w.players[seat]
    w.players[seat] = replace(player, treasures=player.treasures + 1)
    w.emit(EventKind.TREASURE_TAKEN, f"{player.name}'s trader takes the treasure on {cell_name(cell)}",
           player=seat, amount=1, cells=(cell,))


def _monument_options(w: _Work, cell: int) -> tuple[Action, ...]:
    colour = next((c for c in COLOURS if w.tiles[c.index] >> cell & 1), None)
    if colour is None:
        return ()
    built = {m.monument for m in w.monuments}
    monuments = [m for m in Monument if m not in built and colour in m.colours]
    col, row = cell % COLUMNS, cell // COLUMNS
    own = w.tiles[colour.index]
    blocks = [
        top_left
        for top_left in (cell - dr * COLUMNS - dc for dr in (1, 0) for dc in (1, 0)
                         if 0 <= row - dr <= ROWS - 2 and 0 <= col - dc <= COLUMNS - 2)
        if own & block_mask(top_left) == block_mask(top_left)
    ]
    if not blocks or not monuments:
        return ()
    return (*(BuildMonument(m, b) for b in blocks for m in monuments), _NO_MONUMENT)


def _build_monument(w: _Work, monument: Monument, top_left: int) -> None:
    block = block_mask(top_left)
    colour = next(c for c in COLOURS if w.tiles[c.index] & block == block)
    w.tiles[colour.index] &= ~block
    w.facedown |= block
    w.monuments = (*w.monuments, BuiltMonument(monument, top_left, colour))
    w.emit(EventKind.MONUMENT_BUILT, f"{w.name(w.current)} builds the {monument.value} monument on "
           f"{cell_name(top_left)}: turn the four tiles face down", P_MONUMENT, player=w.current, colour=colour,
           cells=tuple(cells_of(block)))
    _exile_leaders_without_temple(w, P_MONUMENT)
    _settle(w)


def _exile_leaders_without_temple(w: _Work, page: int) -> None:
    """Send home every leader left with no face-up temple beside it (`page`: the rule that took the temple)."""
    temples = w.tiles[RED.index]
    for player in list(w.players):
        for colour, cell in zip(COLOURS, player.leaders, strict=True):
            if cell != NO_CELL and not NEIGHBOURS[cell] & temples:
                w.set_leader(player.seat, colour, NO_CELL)
                w.emit(EventKind.LEADER_EXILED, f"{player.name}'s {colour.leader_name} on {cell_name(cell)} has no "
                       "temple beside it any more and returns to its owner", page, player=player.seat,
                       colour=colour, cells=(cell,))


def _finish_action(w: _Work) -> None:
    w.actions_left -= 1
    if w.actions_left > 0:
        w.pending = Pending(PendingKind.ACTION, w.current, actions_left=w.actions_left)
        return
    _end_turn(w)


def _end_turn(w: _Work) -> None:
    active, n = w.current, len(w.players)
    pieces = w.pieces
    for built in w.monuments:
        kingdom = region_of(built.squares, pieces)
        for seat, colour, _ in w.leaders_in(kingdom):
            if seat == active and colour in built.monument.colours:
                w.score(seat, colour, 1, f"from the {built.monument.value} monument", P_MONUMENT,
                        EventKind.MONUMENT_SCORED)
    short = False
    for seat in ((active + k) % n for k in range(n)):
        need = HAND_SIZE - w.players[seat].hand_size
        if need and w.draw(seat, need) < need:
            short = True
    w.emit(EventKind.HANDS_REFILLED, "Everybody draws back to 6 tiles", amount=w.bag_count)
    treasures = w.treasures.bit_count()
    # RULES.md 0.6: the game ends when the bag is empty; checked at the end of the turn (section 8).
    if treasures <= 2:
        w.game_over = f"Only {treasures} treasure{'s' if treasures != 1 else ''} remain on the board"
    elif short:
        w.game_over = "The bag could not refill every hand"
    elif w.bag_count == 0:
        w.game_over = "The bag is empty"
    if w.game_over is not None:
        w.pending = Pending(PendingKind.GAME_OVER, active)
        w.emit(EventKind.GAME_OVER, f"The game is over: {w.game_over}", P_END)
        return
    w.current = (active + 1) % n
    w.actions_left = 2
    w.turn += 1
    w.pending = Pending(PendingKind.ACTION, w.current, actions_left=2)
    w.emit(EventKind.TURN_ENDED, f"{w.name(w.current)}'s turn", player=w.current)
    if w.bag_count < HAND_SIZE * n:
        w.emit(EventKind.BAG_LOW, f"Only {w.bag_count} tile{'s' if w.bag_count != 1 else ''} left in the bag: "
               "the game ends when a hand cannot be refilled", P_END, amount=w.bag_count)


# --- legal actions ------------------------------------------------------------------------------


def _touch_counts(kingdoms: Iterable[int]) -> tuple[int, int]:
    """Squares next to at least two kingdoms, and next to at least three."""
    one = two = three = 0
    for kingdom in kingdoms:
        near = expand(kingdom)
        three |= two & near
        two |= one & near
        one |= near
    return two, three


@lru_cache(maxsize=4096)
def _swaps(hand: tuple[int, ...], most: int) -> tuple[Swap, ...]:
    found: list[Swap] = []

    def pick(index: int, chosen: tuple[Colour, ...]) -> None:
        if index == len(COLOURS):
            if 1 <= len(chosen) <= most:
                found.append(Swap.of(chosen))
            return
        for k in range(hand[index] + 1):
            pick(index + 1, chosen + (COLOURS[index],) * k)

    pick(0, ())
    return tuple(found)


def legal_actions(state: GameState) -> list[Action]:
    """Every legal action for the pending decision."""
    pending = state.pending
    kind = pending.kind
    if kind is PendingKind.SUPPORT:
        return list(_SUPPORT[: pending.max_support + 1])
    if kind is PendingKind.MONUMENT or kind is PendingKind.WAR_ORDER or kind is PendingKind.TREASURE:
        return list(pending.options)
    if kind is PendingKind.GAME_OVER:
        return []
    seat = state.current
    player = state.players[seat]
    found: list[Action] = []
    pieces, leaders, river, temples = state.pieces, state.leader_mask, state.board.river, state.tiles[0]
    empty = FULL & ~(pieces | state.catastrophes)
    two, three = _touch_counts(r for r in regions(pieces) if r & leaders)
    tile_squares = empty & ~three
    for colour in COLOURS:
        if player.hand is not None:
            has = player.hand[colour.index] > 0
        else:
            has = player.hand_size > 0 and state.unseen(colour) > 0
        if has:
            tiles = _TILE[colour.index]
            found.extend(tiles[c] for c in cells_of(tile_squares & (river if colour is BLUE else ~river)))
    beside_temples = expand(temples) & ~river & FULL
    for colour in COLOURS:
        where = player.leaders[colour.index]
        leader_moves = _LEADER[colour.index]
        if where == NO_CELL:
            targets = beside_temples & empty & ~two
        else:
            lifted = bit(where)
            still = pieces & ~lifted
            lifted_two, _ = _touch_counts(r for r in regions(still) if r & leaders & ~lifted)
            targets = beside_temples & empty & ~lifted_two
            found.append(_WITHDRAW[colour.index])
        found.extend(leader_moves[c] for c in cells_of(targets))
    if player.catastrophes:
        found.extend(_CATASTROPHE[c] for c in
                     cells_of(FULL & ~(state.catastrophes | leaders | state.facedown | state.treasures)))
    most = min(player.hand_size, state.bag_count)
    if player.hand is not None:
        found.extend(_swaps(player.hand, most))
    else:
        found.extend(_TABLE_SWAPS[1: most + 1])
    found.append(_PASS)
    return found


# --- a readable summary of a state (golden files, game records) ---------------------------------


def state_summary(state: GameState) -> dict[str, Any]:
    """The state as plain JSON data, squares by name; equal states give equal summaries."""

    def names(mask: int) -> list[str]:
        return [cell_name(c) for c in cells_of(mask)]

    return {
        "board": state.board.name,
        "tiles": {colour.value: names(state.tiles[colour.index]) for colour in COLOURS},
        "face_down": names(state.facedown),
        "treasures": names(state.treasures),
        "catastrophes": names(state.catastrophes),
        "monuments": [{"monument": m.monument.value, "at": cell_name(m.cell), "colour": m.colour.value}
                      for m in state.monuments],
        "unification": None if state.unification == NO_CELL else cell_name(state.unification),
        "players": [{
            "name": p.name,
            "dynasty": p.dynasty,
            "points": dict(zip([c.value for c in COLOURS], p.points, strict=True)),
            "treasures": p.treasures,
            "hand": None if p.hand is None else dict(zip([c.value for c in COLOURS], p.hand, strict=True)),
            "hand_size": p.hand_size,
            "catastrophes": p.catastrophes,
            "leaders": {c.value: cell_name(w) for c, w in zip(COLOURS, p.leaders, strict=True) if w != NO_CELL},
        } for p in state.players],
        "bag": state.bag_count,
        "out": dict(zip([c.value for c in COLOURS], state.out, strict=True)),
        "unknown_out": state.unknown_out,
        "turn": state.turn,
        "current": state.current,
        "actions_left": state.actions_left,
        "pending": {"kind": state.pending.kind.name.lower(), "player": state.pending.player},
        "game_over": state.game_over,
    }
