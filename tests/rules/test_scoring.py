"""Final scoring: treasures fill the weakest colours, the weakest colour ranks, ties go down the colours."""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from companion.rules import Game, final_scores, rank_scores, spread_treasures

colours4 = st.tuples(*[st.integers(0, 12)] * 4)


def best_key(points: tuple[int, ...], treasures: int) -> tuple[int, ...]:
    """The best sorted result over every way of spreading the treasures (brute force)."""
    best: tuple[int, ...] = ()
    for split in itertools.product(range(treasures + 1), repeat=4):
        if sum(split) == treasures:
            key = tuple(sorted(p + s for p, s in zip(points, split, strict=True)))
            best = max(best, key)
    return best


@given(colours4, st.integers(0, 7))
def test_spreading_treasures_is_the_best_spread_and_never_lowers_the_weakest_colour(
        points: tuple[int, ...], treasures: int) -> None:
    spread = spread_treasures(points, treasures)
    assert sum(spread) == treasures and min(spread) >= 0
    final = tuple(p + s for p, s in zip(points, spread, strict=True))
    assert min(final) >= min(points)
    assert tuple(sorted(final)) == best_key(points, treasures)
    if treasures:  # one more treasure never makes the result worse
        fewer = spread_treasures(points, treasures - 1)
        assert min(p + s for p, s in zip(points, fewer, strict=True)) <= min(final)


@given(st.lists(st.tuples(colours4, st.integers(0, 6)), min_size=2, max_size=4))
def test_ranks_follow_the_keys_and_equal_keys_share_a_rank(players: list[tuple[tuple[int, ...], int]]) -> None:
    names = [f"P{i}" for i in range(len(players))]
    scores = rank_scores(names, [p for p, _ in players], [t for _, t in players])
    for score in scores:
        assert score.key == tuple(sorted(score.final)) and score.score == min(score.final)
        assert score.rank == 1 + sum(1 for other in scores if other.key > score.key)
    for a, b in itertools.combinations(scores, 2):
        assert (a.rank < b.rank) == (a.key > b.key)
        assert (a.rank == b.rank) == (a.key == b.key)
        if a.key == b.key:
            assert f"tied with {b.name} on all four colours: they share rank {a.rank}" in a.tie_break
    assert min(s.rank for s in scores) == 1


def test_treasures_go_one_at_a_time_to_the_lowest_colour() -> None:
    assert spread_treasures((0, 5, 5, 5), 3) == (3, 0, 0, 0)
    assert spread_treasures((1, 1, 3, 9), 3) == (1, 2, 0, 0) or spread_treasures((1, 1, 3, 9), 3) == (2, 1, 0, 0)
    assert spread_treasures((4, 4, 4, 4), 0) == (0, 0, 0, 0)
    scores = rank_scores(["Ann", "Bo"], [(1, 1, 3, 9), (2, 2, 2, 2)], [3, 0])
    assert scores[0].final in ((2, 3, 3, 9), (3, 2, 3, 9)) and scores[0].key == (2, 3, 3, 9)


def test_tie_breaks_go_down_to_the_strongest_colour_and_say_so() -> None:
    ann, bo, cy, di = rank_scores(
        ["Ann", "Bo", "Cy", "Di"], [(3, 4, 5, 6), (3, 4, 5, 7), (3, 4, 6, 6), (2, 9, 9, 9)], [0, 0, 0, 0])
    assert [s.rank for s in (ann, bo, cy, di)] == [3, 2, 1, 4]
    assert bo.tie_break == ("ahead of Ann on the strongest colour (7 to 6); "
                            "behind Cy on the third-weakest colour (5 to 6)")
    assert di.tie_break == ""  # nobody else has 2 as weakest colour
    assert "ahead of Bo on the third-weakest colour (6 to 5)" in cy.tie_break


def test_the_weakest_colour_decides_before_any_tie_break() -> None:
    rich, poor = rank_scores(["Rich", "Poor"], [(20, 20, 20, 3), (4, 4, 4, 4)], [0, 0])
    assert (rich.rank, poor.rank) == (2, 1)
    treasure = rank_scores(["Rich", "Poor"], [(20, 20, 20, 3), (4, 4, 4, 4)], [2, 0])
    assert [s.rank for s in treasure] == [1, 2] and treasure[0].key == (5, 20, 20, 20)


def test_final_scores_of_a_finished_game() -> None:
    game = Game.new(3, seed=21, names=["Ann", "Bo", "Cy"])
    rng = random.Random(21)
    while not game.state.over:
        game.apply(rng.choice(game.legal_actions()))
    scores = final_scores(game.state)
    assert [s.seat for s in scores] == [0, 1, 2] and [s.name for s in scores] == ["Ann", "Bo", "Cy"]
    for score, player in zip(scores, game.state.players, strict=True):
        assert score.points == player.points and score.treasures == player.treasures
        assert sum(score.spread) == player.treasures
    assert min(s.rank for s in scores) == 1
