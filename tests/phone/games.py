"""Games for the phone tests: a golden game played to a given action, and a stand-in for the controller."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from companion.rules import Game, GameConfig
from companion.ui.model import Code
from companion.ui.screens import Asking

GOLDEN = Path(__file__).parents[1] / "rules" / "golden"


def golden_actions(name: str) -> tuple[GameConfig, list[str]]:
    data = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return GameConfig.from_dict(data["config"]), [step["action"] for step in data["steps"]]


def played(name: str, count: int, **changes: object) -> Game:
    """The golden game `name` after its first `count` actions (`changes` to its configuration)."""
    config, actions = golden_actions(name)
    game = Game(GameConfig.from_dict({**config.to_dict(), **changes}))
    for action in actions[:count]:
        game.apply(action)
    return game


@dataclass
class Table:
    """What the phones need of the controller (companion.phone.follow.Table)."""

    game: Game
    phones: tuple[Code, ...] = ()
    asking: Asking | None = None
    rest: list[str] = field(default_factory=list)

    def play(self, count: int) -> None:
        for action in self.rest[:count]:
            self.game.apply(action)
        del self.rest[:count]


def table(name: str, count: int, **changes: object) -> Table:
    actions = golden_actions(name)[1]
    return Table(played(name, count, **changes), rest=actions[count:])
