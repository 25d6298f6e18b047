"""Positions drawn as text, for tests, fixtures and manual set-ups.

    game = position('''
         ABCDEFGHIJKLMNOP
      1  ....~~~~~...~...
      ...
    ''', leaders={"A": (0, RED), "B": (1, RED)}, hands=["rrrbbg", "rrgkkk"])

Squares: `.` or `~` empty (river or land as the board map says), `r b g k` face-up tiles
(temple, farm, market, settlement), `t` a temple carrying a treasure, `x` a catastrophe, and
upper-case letters for leaders, named in `leaders`. The treasure temples of the board map are
not added: the drawing is the whole board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from .board import COLUMNS, ROWS, bit, board_named, cell_name, square
from .config import GameConfig
from .engine import Game, initial_state
from .pieces import BLACK, BLUE, COLOURS, GREEN, RED, TILES_IN_GAME, Colour
from .state import NO_CELL, Pending, PendingKind

_TILE_LETTERS = {"r": RED, "b": BLUE, "g": GREEN, "k": BLACK, "t": RED}


def _rows(text: str) -> list[str]:
    rows = []
    for raw in text.splitlines():
        parts = raw.split()
        if not parts or not (len(parts) == 1 or parts[0].isdigit()):
            continue
        line = parts[-1]
        if len(line) == COLUMNS and line != "ABCDEFGHIJKLMNOP":
            rows.append(line)
    if len(rows) != ROWS:
        raise ValueError(f"a position needs {ROWS} rows of {COLUMNS} squares, found {len(rows)}")
    return rows


def _hand(letters: str) -> tuple[int, ...]:
    counts = [0, 0, 0, 0]
    for letter in letters:
        counts[_colour_of(letter).index] += 1
    return tuple(counts)


def _colour_of(letter: str) -> Colour:
    if letter not in "rbgk":
        raise ValueError(f"{letter!r} is not a tile letter (r, b, g, k)")
    return _TILE_LETTERS[letter]


def position(
    text: str,
    *,
    players: int = 2,
    leaders: Mapping[str, tuple[int, Colour]] | None = None,
    hands: Sequence[str] | None = None,
    bag: str = "rbgk" * 20,
    board: str = "standard",
    current: int = 0,
    actions_left: int = 2,
    catastrophes: Sequence[int] | None = None,  # catastrophe tiles left per player (default 2 each)
    english_support: bool = False,
) -> Game:
    """A game in the drawn position, `current` to play with `actions_left` actions."""
    config = GameConfig(players=players, board=board, english_support=english_support, seed=0).completed()
    the_board = board_named(board)
    tiles = [0, 0, 0, 0]
    treasures = catastrophe_mask = 0
    placed: dict[tuple[int, Colour], int] = {}
    legend = dict(leaders or {})
    for r, line in enumerate(_rows(text)):
        for c, char in enumerate(line):
            cell = square(c, r)
            b = bit(cell)
            river = bool(the_board.river & b)
            if char in ".~":
                if char == "~" and not river:
                    raise ValueError(f"{cell_name(cell)} is land on the {board} board, not river")
            elif char in _TILE_LETTERS:
                colour = _TILE_LETTERS[char]
                if (colour is BLUE) != river:
                    raise ValueError(f"a {colour.value} tile cannot lie on {cell_name(cell)}")
                tiles[colour.index] |= b
                if char == "t":
                    treasures |= b
            elif char == "x":
                catastrophe_mask |= b
            elif char.isupper() and char in legend:
                if river:
                    raise ValueError(f"a leader cannot stand on the river at {cell_name(cell)}")
                placed[legend[char]] = cell
            else:
                raise ValueError(f"unknown square {char!r} at {cell_name(cell)}")
    hand_letters = list(hands) if hands is not None else ["rrbbgk"] * players
    if len(hand_letters) != players:
        raise ValueError("give one hand per player")
    start = initial_state(config)
    seats = []
    for player in start.players:
        where = tuple(placed.get((player.seat, colour), NO_CELL) for colour in COLOURS)
        hand = _hand(hand_letters[player.seat])
        left = catastrophes[player.seat] if catastrophes is not None else player.catastrophes
        seats.append(replace(player, hand=hand, hand_size=sum(hand), leaders=where, catastrophes=left))
    bag_tiles = tuple(_colour_of(c) for c in bag)
    out = []
    for colour in COLOURS:
        i = colour.index
        held = sum(p.hand[i] for p in seats if p.hand is not None)
        left = TILES_IN_GAME[i] - tiles[i].bit_count() - held - bag_tiles.count(colour)
        if left < 0:
            raise ValueError(f"the position uses more {colour.value} tiles than the game has")
        out.append(left)
    leader_mask = 0
    for cell in placed.values():
        leader_mask |= bit(cell)
    state = replace(
        start, tiles=tuple(tiles), treasures=treasures, catastrophes=catastrophe_mask, leader_mask=leader_mask,
        players=tuple(seats), bag=bag_tiles, bag_count=len(bag_tiles), out=tuple(out), current=current,
        actions_left=actions_left, pending=Pending(PendingKind.ACTION, current, actions_left=actions_left),
    )
    return Game.from_state(config, state)
