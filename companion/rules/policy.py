"""A simple player for demos and self-play: it plays like a casual human, not like a random walk.

It samples some legal actions, tries each on the game and keeps the one that gains its owner the
most points, preferring tiles and leaders over catastrophes, swaps and passes.
"""

from __future__ import annotations

import random

from .actions import Action, BuildMonument, PlaceCatastrophe, PlaceLeader, PlaceTile, Support, Withdraw
from .engine import Game
from .state import NO_CELL, PendingKind

_SAMPLE = 40


def _gain(game: Game, action: Action, seat: int) -> float:
    before = sum(game.state.players[seat].points) + game.state.players[seat].treasures
    game.apply(action)
    after = sum(game.state.players[seat].points) + game.state.players[seat].treasures
    game.undo()
    return after - before


def _bias(game: Game, action: Action, seat: int) -> float:
    player = game.state.players[seat]
    if isinstance(action, PlaceLeader):
        return 1.5 if player.leaders[action.colour.index] == NO_CELL else -0.5
    if isinstance(action, PlaceTile):
        return 0.3
    if isinstance(action, PlaceCatastrophe | Withdraw):
        return -1.5
    return -1.0  # swaps and passes: only when nothing better


def policy_action(game: Game, rng: random.Random) -> Action:
    """The simple policy's legal action for whoever must decide now."""
    pending = game.pending
    actions = game.legal_actions()
    if not actions:
        raise ValueError("the game is over: there is nothing to choose")
    if pending.kind is PendingKind.SUPPORT:
        conflict = pending.conflict
        assert conflict is not None
        if conflict.attacker_committed is None:
            needed = conflict.defender_strength - conflict.attacker_strength + 1
        else:
            needed = conflict.attacker_strength + conflict.attacker_committed - conflict.defender_strength
        commit = needed if 0 <= needed <= pending.max_support and rng.random() < 0.7 else 0
        return Support(commit)
    if pending.kind is PendingKind.MONUMENT:
        builds = [a for a in actions if isinstance(a, BuildMonument)]
        return rng.choice(builds) if builds and rng.random() < 0.8 else actions[-1]
    if pending.kind is not PendingKind.ACTION:
        return rng.choice(actions)
    seat = pending.player
    sample = actions if len(actions) <= _SAMPLE else rng.sample(actions, _SAMPLE)
    scored = [(_gain(game, a, seat) + _bias(game, a, seat) + rng.random() * 0.5, i) for i, a in enumerate(sample)]
    return sample[max(scored)[1]]
