"""Moves of the unseen split's games (`companion bench game --split unseen`) that once went wrong,
played through the camera, the observer and the controller as the benchmark plays them."""

from __future__ import annotations

import os

import pytest

from companion.app.controller import Controller
from companion.bench.game import eyes_for
from companion.rules import Game
from companion.sim.demo import DemoError, Screens, Stats, play
from companion.sim.table import Table

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

SIZE = (2028, 1520)  # the benchmark's: a smaller still shows the table otherwise


def test_a_green_leader_taken_for_one_in_a_long_shadow_is_not_read_blue() -> None:
    # Game 272, coloured discs whose green and blue the leader ring does not tell apart at this
    # table. The sixth move, a green leader at L1 on the top edge: the bare land agreed there fits
    # it only far darker than the light followed from around says, and beside the red leader
    # agreed at K2 the square is taken for one in a long shadow, where the rings say nothing. The
    # pixels alone read a blue leader there, with much to spare, against the green the rings
    # named: a legal move nobody made.
    _played_right(272, 6, seen=6)


def test_a_black_tile_put_down_where_a_glare_burnt_out_the_agreed_picture_is_seen() -> None:
    # Game 351, stained wooden tiles on a linen board, a lamp's reflection on the board.
    # The 38th move, a black tile at E11 beside the red leader agreed at F11: the agreed picture of
    # the bare land there was burnt out, and the dark tile under the reflection was not. Darkened
    # as the figure's shadow may darken it, that flat white picture fitted the tile best: nothing
    # changed, surely, and the companion's game lost the tile.
    _played_right(351, 38, seen=30)


def test_a_blue_tile_on_a_drawn_river_is_seen_while_a_shadow_lies_over_half_the_board() -> None:
    # Game 371, stained wooden tiles on a cardboard board whose river is drawn across land-coloured
    # squares. The tenth move, a blue tile at E2, is looked at while a shadow's edge lies across the
    # right half of the board: undone only roughly, that edge raised the noise expected on every
    # square, and the tile, little unlike the drawn river it covers, stood out of it by too little
    # to count as changed. Unread, the square stayed the bare river, surely.
    _played_right(371, 10, seen=11)


def _played_right(seed: int, moves: int, seen: int) -> None:
    """The game's first `moves` moves played through the camera (`seen`: the actions made on the
    board among them), none read wrong silently."""
    eyes, _ = eyes_for("unseen", "unseen", seed, SIZE, "standard")
    table = Table.new(3, seed, "standard")
    controller = Controller(Game.new(3, board="standard", hidden_hands=True))
    stats = Stats()
    # `play` compares the companion's game with the table's after every move and stops at the
    # first difference; given these moves, it stops after the last, the game not over.
    with pytest.raises(DemoError, match=f"did not end within {moves} moves"):
        play(table, controller, eyes, Screens(), stats, limit=moves)
    assert stats.silent == 0
    assert stats.seen == seen
    assert table.agrees(controller.state)
