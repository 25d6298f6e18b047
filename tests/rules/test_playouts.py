"""Random playouts: uniformly random legal actions to the end, every state checked against the invariants.

legal_actions() and apply() must agree exactly: every offered action applies, and random actions that are
not offered are refused with IllegalAction and leave the game untouched.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
import referee
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulecheck import check_invariants

from companion.rules import (
    SQUARES,
    Action,
    BuildMonument,
    ChooseWar,
    DeclineMonument,
    Game,
    IllegalAction,
    Monument,
    Pass,
    PendingKind,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Support,
    Swap,
    TakeTreasure,
    Withdraw,
    replay,
)
from companion.rules.pieces import COLOURS

GAMES_PER_SETTING = 6
PROBES_PER_ACTION = 4  # random actions tried against legal_actions() after each step
CHECKS_PER_GAME = 3  # random points of a game where replay and JSON are compared


def random_action(rng: random.Random, kind: PendingKind) -> Action:
    """Any action at all, mostly of the kind the pending decision asks for."""
    cell = rng.randrange(SQUARES)
    colour = rng.choice(COLOURS)
    if kind is not PendingKind.ACTION and rng.random() < 0.7:
        if kind is PendingKind.SUPPORT:
            return Support(rng.randrange(8))
        if kind is PendingKind.WAR_ORDER:
            return ChooseWar(colour)
        if kind is PendingKind.MONUMENT:
            return rng.choice([BuildMonument(rng.choice(list(Monument)), cell), DeclineMonument()])
        return TakeTreasure(cell)
    pick = rng.randrange(10)
    if pick < 4:
        return PlaceTile(colour, cell)
    if pick < 7:
        return PlaceLeader(colour, cell)
    if pick == 7:
        return PlaceCatastrophe(cell)
    if pick == 8:
        return Withdraw(colour)
    if rng.random() < 0.2:
        return Pass()
    return Swap.of(tuple(rng.choice(COLOURS) for _ in range(rng.randint(1, 6))))


def probe(game: Game, legal: set[Action], rng: random.Random) -> None:
    """Random actions: applied if offered (then taken back), refused with nothing changed otherwise."""
    for _ in range(PROBES_PER_ACTION):
        action = random_action(rng, game.pending.kind)
        before, actions = game.state, game.actions
        if action in legal:
            game.apply(action)
            check_invariants(game.state, before)
            game.undo()
            assert game.state is before
        else:
            with pytest.raises(IllegalAction) as info:
                game.apply(action)
            assert info.value.reason and str(info.value)
            assert game.state is before and game.actions == actions


def every_legal_action_applies(game: Game, legal: list[Action]) -> None:
    before = game.state
    for action in legal:
        game.apply(action)
        game.undo()
    assert game.state is before


def same_game(game: Game) -> None:
    again = replay(game.config, game.actions)
    assert again.state == game.state
    assert Game.from_json(game.to_json()).state == game.state


def play(players: int, board: str, seed: int) -> Game:
    game = Game.new(players, board=board, seed=seed)
    rng = random.Random(seed * 7919 + players)
    checkpoints = {rng.randrange(40, 160) for _ in range(CHECKS_PER_GAME)}
    check_invariants(game.state)
    while not game.state.over:
        legal = game.legal_actions()
        assert legal, "a live game must offer a decision"
        legal_set = set(legal)
        assert len(legal_set) == len(legal), "an action offered twice"
        probe(game, legal_set, rng)
        before = game.state
        game.apply(rng.choice(legal))
        check_invariants(game.state, before)
        if len(game.actions) in checkpoints:
            same_game(game)
            every_legal_action_applies(game, game.legal_actions())
        assert len(game.actions) < 3000
    assert game.legal_actions() == []
    same_game(game)
    return game


@pytest.mark.parametrize("board", ["standard", "alternate"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_keep_every_invariant(players: int, board: str) -> None:
    endings = set()
    for seed in range(GAMES_PER_SETTING):
        game = play(players, board, 1000 * players + seed)
        assert game.state.game_over is not None
        endings.add(game.state.game_over.split()[0])
    assert endings  # every game reached an end


@pytest.mark.parametrize("board", ["standard", "alternate"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_agree_with_the_referee(players: int, board: str) -> None:
    counted: Counter[str] = Counter()
    for seed in range(2):
        game = Game.new(players, board=board, seed=seed)
        rng = random.Random(seed)
        while not game.state.over:
            game.apply(rng.choice(game.legal_actions()))
        counted.update(referee.check_game(game.config, game.actions))
    assert counted["tiles"] and counted["conflicts"] and counted["ends of turn"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), players=st.integers(2, 4),
       board=st.sampled_from(["standard", "alternate"]))
def test_random_playouts_from_any_seed(seed: int, players: int, board: str) -> None:
    play(players, board, seed)
