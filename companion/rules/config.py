"""How a game is set up: everything needed to replay it from its actions."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from .board import board_named
from .pieces import DYNASTIES, Colour

MIN_PLAYERS, MAX_PLAYERS = 2, 4


@dataclass(frozen=True, slots=True)
class GameConfig:
    players: int
    board: str = "standard"
    seed: int | None = None
    bag: tuple[Colour, ...] | None = None  # the exact draw order, first drawn first
    hidden_hands: bool = False  # table mode: hands and bag are not known to the companion
    english_support: bool = False  # variant: commit only enough to win (attacker) or to draw (defender)
    open_scores: bool = False
    names: tuple[str, ...] = ()
    dynasties: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"Tigris & Euphrates is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {self.players}")
        board_named(self.board)
        for label, values in (("names", self.names), ("dynasties", self.dynasties)):
            if values and len(values) != self.players:
                raise ValueError(f"give {self.players} {label}, one per seat, not {len(values)}")
        if self.dynasties and len(set(self.dynasties)) != len(self.dynasties):
            raise ValueError("each seat needs its own dynasty")

    def completed(self) -> GameConfig:
        """Fill in names, dynasties and a seed, so that the game replays identically."""
        seed = self.seed
        if seed is None and self.bag is None and not self.hidden_hands:
            seed = random.randrange(2**32)
        return replace(
            self,
            seed=seed,
            names=self.names or tuple(f"Player {seat + 1}" for seat in range(self.players)),
            dynasties=self.dynasties or DYNASTIES[: self.players],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "board": self.board,
            "seed": self.seed,
            "bag": None if self.bag is None else [colour.value for colour in self.bag],
            "hidden_hands": self.hidden_hands,
            "english_support": self.english_support,
            "open_scores": self.open_scores,
            "names": list(self.names),
            "dynasties": list(self.dynasties),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        try:
            bag = data.get("bag")
            return cls(
                players=int(data["players"]),
                board=str(data.get("board", "standard")),
                seed=None if data.get("seed") is None else int(data["seed"]),
                bag=None if bag is None else tuple(Colour.parse(str(c)) for c in bag),
                hidden_hands=bool(data.get("hidden_hands", False)),
                english_support=bool(data.get("english_support", False)),
                open_scores=bool(data.get("open_scores", False)),
                names=tuple(str(n) for n in data.get("names", ())),
                dynasties=tuple(str(d) for d in data.get("dynasties", ())),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"the game configuration is incomplete or malformed: {error}") from None
