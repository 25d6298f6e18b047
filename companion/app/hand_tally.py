"""The tally by hand: for a game the companion did not follow from the start."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.commands import UiCommand, Verb
from companion.rules import PlayerScore
from companion.ui import screens, wizard
from companion.ui.model import Screen, UiState


@dataclass
class HandTally:
    draft: wizard.ManualTally
    ui: UiState = field(default_factory=UiState)
    result: list[PlayerScore] | None = None
    new_game: bool = False  # the players asked for a new game from the result

    @classmethod
    def of(cls, names: Sequence[str]) -> HandTally:
        return cls(wizard.ManualTally.new(names))

    def screen(self) -> Screen:
        if self.result is not None:
            return screens.tally(self.result, reason="Tallied by hand")
        return wizard.manual_tally(self.draft, self.ui)

    def handle(self, command: UiCommand) -> None:
        resolved = self.screen().resolve(command)
        if resolved is None:
            return
        new_ui = self.ui.apply(resolved)
        draft = self.draft.apply(resolved)
        if new_ui is not None:
            self.ui = new_ui
        elif draft is not None:
            self.draft, self.ui = draft, UiState()
        elif resolved.verb is Verb.NAV and resolved.value == "tally":
            self.result = self.draft.scores()
        elif resolved.verb is Verb.NAV and resolved.value == "new":
            self.new_game = True
