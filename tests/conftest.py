"""Positions that both the rules tests and the table tests play: the engine's view and the
companion's view of the same moment (issue 14, treasures once the action is wholly resolved); and
how the property tests draw their examples."""

from __future__ import annotations

import pytest
from hypothesis import settings

from companion.rules import BLACK, GREEN, RED, Game, position

# The same commit tests the same examples on every run, so CI's verdict is the code's, not the
# draw's. `pytest --hypothesis-profile=explore` draws new ones, to go looking for trouble.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile("repeatable")


@pytest.fixture
def two_wars_over_treasures() -> Game:
    """A green tile on E10 unites two kingdoms and starts a black war and a red one. West, Player 1's:
    priest A8 and king C8 beside the corner treasure temple B8, a settlement C9, markets B9 B10 C10
    D10. East, Player 2's: king G10, priest H11 and trader I10 round the treasure temple H10 and the
    temple I11, settlements F10 E11 F11 G11. Player 1 to play, a green tile in hand."""
    return position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..............~~
  6  ..............~.
  7  ~~~~........~~~.
  8  PtK~~~~.....~...
  9  .gk...~~~~~~~...
 10  .ggg.kLtG.......
 11  ....kkkQr......t
""", leaders={"P": (0, RED), "K": (0, BLACK), "L": (1, BLACK), "Q": (1, RED), "G": (1, GREEN)},
        hands=["gkkrrb", "kkrrbb"])


@pytest.fixture
def trader_in_the_square() -> Game:
    """Player 1's trader on D5 has one temple, E5, which carries a treasure; a red tile on F6 finishes
    the red 2×2 E5 F5 E6 F6 and joins the lone treasure temple G6 to his kingdom."""
    return position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ...Gtr........~~
  6  ....r.t.......~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"G": (0, GREEN)}, hands=["rrbbgk", "rrbbgk"])
