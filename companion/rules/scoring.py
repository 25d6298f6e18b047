"""Final scoring: treasures fill the weakest colours, the weakest colour ranks, ties go down the colours."""

from __future__ import annotations

from dataclasses import dataclass

from .state import GameState

_ORDINALS = ("weakest", "second-weakest", "third-weakest", "strongest")


@dataclass(frozen=True, slots=True)
class PlayerScore:
    seat: int
    name: str
    points: tuple[int, ...]  # before treasures, in COLOURS order
    treasures: int
    spread: tuple[int, ...]  # treasures added to each colour
    final: tuple[int, ...]  # points + spread
    key: tuple[int, ...]  # final, weakest first: compared to rank
    rank: int  # 1 is the winner; equal keys share a rank
    tie_break: str  # in words, how ties with players of the same weakest colour were settled

    @property
    def score(self) -> int:
        return self.key[0]


def spread_treasures(points: tuple[int, ...], treasures: int) -> tuple[int, ...]:
    """Add each treasure to the currently weakest colour: the best possible result for the player."""
    spread = [0] * len(points)
    for _ in range(treasures):
        totals = [p + s for p, s in zip(points, spread, strict=True)]
        spread[totals.index(min(totals))] += 1
    return tuple(spread)


def rank_scores(names: list[str], points: list[tuple[int, ...]], treasures: list[int]) -> list[PlayerScore]:
    """Score players from their points per colour and treasures (also used for a hand-entered tally)."""
    partial = []
    for seat, (name, own, held) in enumerate(zip(names, points, treasures, strict=True)):
        spread = spread_treasures(own, held)
        final = tuple(p + s for p, s in zip(own, spread, strict=True))
        partial.append((seat, name, own, held, spread, final, tuple(sorted(final))))
    scores = []
    for seat, name, own, held, spread, final, key in partial:
        rank = 1 + sum(1 for other in partial if other[6] > key)
        words = []
        for other in partial:
            other_key = other[6]
            if other[0] == seat or other_key[0] != key[0]:
                continue
            diff = next((i for i in range(len(key)) if key[i] != other_key[i]), None)
            if diff is None:
                words.append(f"tied with {other[1]} on all four colours: they share rank {rank}")
            else:
                side = "ahead of" if key[diff] > other_key[diff] else "behind"
                words.append(f"{side} {other[1]} on the {_ORDINALS[diff]} colour "
                             f"({key[diff]} to {other_key[diff]})")
        scores.append(PlayerScore(seat, name, own, held, spread, final, key, rank, "; ".join(words)))
    return scores


def final_scores(state: GameState) -> list[PlayerScore]:
    """Each player's tally, in seat order; sort by `rank` for the standings."""
    players = state.players
    return rank_scores([p.name for p in players], [p.points for p in players], [p.treasures for p in players])


__all__ = ["PlayerScore", "final_scores", "rank_scores", "spread_treasures"]
