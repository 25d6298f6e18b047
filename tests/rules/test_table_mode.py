"""Table mode: hands are hidden, players only say how many tiles they commit or swap.

The engine still enforces what it can know: at most the tiles in a hand (6), never more of a colour than
could still be unseen, and the bag count for the end of the game.
"""

from __future__ import annotations

import random
from dataclasses import replace

from rulecheck import ONE_KINGDOM, illegal, only

from companion.rules import EventKind, Game, PendingKind, Swap, position
from companion.rules.pieces import TILES_IN_GAME, Colour

RED, BLUE, GREEN, BLACK = Colour

# One kingdom: Player 2's priest on I6 beside three temples; Player 1 enters with a priest on G5 (two).
REVOLT = ONE_KINGDOM


def at_the_table(game: Game, *, bag_count: int, unseen: dict[Colour, int] | None = None) -> Game:
    """The same position with hidden hands: six tiles each, colours unknown."""
    state = game.state
    out = list(state.out)
    for colour, left in (unseen or {}).items():
        out[colour.index] = TILES_IN_GAME[colour.index] - state.on_board(colour) - left
    state = replace(
        state, players=tuple(replace(p, hand=None, hand_size=6) for p in state.players), bag=(),
        bag_count=bag_count, out=tuple(out), hidden_hands=True,
    )
    return Game.from_state(replace(game.config, hidden_hands=True), state)


def test_a_new_table_game_knows_only_counts() -> None:
    game = Game.new(3, hidden_hands=True)
    state = game.state
    assert all(p.hand is None and p.hand_size == 6 for p in state.players)
    assert state.bag == () and state.bag_count == 153 - 10 - 18
    assert state.unseen(RED) == 47 and state.unseen(BLUE) == 36
    offered = {str(a) for a in game.legal_actions()}
    assert {"swap 1", "swap 6", "tile red F7", "tile blue A4", "pass"} <= offered
    assert not any(str(a).startswith("swap r") for a in game.legal_actions())  # no colours to choose from


def test_tiles_and_swaps_change_counts_and_the_bag() -> None:
    game = Game.new(2, hidden_hands=True)
    game.apply("tile black G6")
    assert game.state.players[0].hand_size == 5 and game.state.out == (0, 0, 0, 0)
    event = only(game.apply("swap 4"), EventKind.SWAPPED)
    assert event.amount == 4 and game.state.unknown_out == 4
    assert game.state.players[0].hand_size == 6  # after the refill at the end of the turn
    assert game.state.bag_count == 153 - 10 - 12 - 4 - 1
    illegal(game, "swap 7", "swap-too-many", None, "holds only 6 tiles")
    illegal(game, "swap 0", "swap-none", None, "at least one")


def test_at_most_the_tiles_in_hand_are_committed() -> None:
    game = at_the_table(position(REVOLT, leaders={"B": (1, RED)}), bag_count=50)
    game.apply("leader red G5")
    assert (game.pending.kind, game.pending.max_support) == (PendingKind.SUPPORT, 6)
    assert [str(a) for a in game.legal_actions()] == [f"support {n}" for n in range(7)]
    illegal(game, "support 7", "support-count", 8, "from 0 to 6 red tiles")
    out = game.state.out[RED.index]
    game.apply("support 6")
    assert game.state.players[0].hand_size == 0 and game.state.out[RED.index] == out + 6


def test_never_more_of_a_colour_than_could_still_be_unseen() -> None:
    game = at_the_table(position(REVOLT, leaders={"B": (1, RED)}), bag_count=50, unseen={RED: 3})
    assert game.state.unseen(RED) == 3
    game.apply("leader red G5")
    assert game.pending.max_support == 3
    illegal(game, "support 4", "support-count", 8, "from 0 to 3 red tiles")
    game.apply("support 2")
    assert (game.pending.player, game.pending.max_support) == (1, 1)  # only one red tile left unseen
    game.apply("support 1")
    assert game.state.unseen(RED) == 0
    illegal(game, "tile red L10", "not-in-hand", None, "has no red tile")
    assert not any(str(a).startswith("tile red") for a in game.legal_actions())
    game.apply("tile black L10")


def test_the_bag_count_ends_the_game() -> None:
    game = at_the_table(position(REVOLT, leaders={"B": (1, RED)}), bag_count=3)
    game.apply("tile black L10")
    illegal(game, "swap 4", "bag-short", None, "bag holds only 3 tiles")
    assert "swap 3" in {str(a) for a in game.legal_actions()} and Swap(4) not in game.legal_actions()
    events = game.apply("swap 3")  # the bag is empty: the refill of one tile fails
    assert only(events, EventKind.GAME_OVER).text.endswith("The bag could not refill every hand")
    assert game.state.bag_count == 0


def test_a_whole_table_game_plays_out_on_counts() -> None:
    game = Game.new(4, hidden_hands=True, seed=None)
    rng = random.Random(4)
    while not game.state.over:
        game.apply(rng.choice(game.legal_actions()))
        for player in game.state.players:
            assert player.hand is None and 0 <= player.hand_size <= 6
        state = game.state
        for colour in Colour:
            assert state.unseen(colour) >= 0
        held = sum(p.hand_size for p in state.players)
        placed = sum(state.on_board(colour) + state.out[colour.index] for colour in Colour)
        assert placed + state.unknown_out + held + state.bag_count == 153  # every tile somewhere
    assert Game.from_json(game.to_json()).state == game.state
