"""Random playouts: uniformly random legal actions to the end of the game."""

from __future__ import annotations

import random

from .engine import Game


def random_playout(players: int, seed: int, *, board: str = "standard", max_actions: int = 5000) -> Game:
    """Play a whole game of uniformly random legal actions (full information)."""
    game = Game.new(players, board=board, seed=seed)
    rng = random.Random(seed)
    for _ in range(max_actions):
        if game.state.over:
            return game
        game.apply(rng.choice(game.legal_actions()))
    raise AssertionError(f"a random game (seed {seed}) did not end within {max_actions} actions")
