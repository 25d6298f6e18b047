"""Every screen, with real game content, at both panel sizes: `python -m companion.ui.gallery OUTDIR`.

The game situations come from seeded random self-play of the rules engine (and one constructed
position), so the pictures show what the engine really produces. Tests use `gallery()` too.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from companion.commands import UiCommand
from companion.hardware.display import LANDSCAPE, PORTRAIT
from companion.rules import (
    Conflict,
    ConflictKind,
    Event,
    EventKind,
    Game,
    IllegalAction,
    PendingKind,
    PlaceTile,
    parse_cell,
)

from . import messages, screens, wizard
from .advice import CameraTrouble, Trouble
from .log import recent
from .model import Screen, UiState
from .screens import Asking, TableView

SIZES = (LANDSCAPE, PORTRAIT)

Found = tuple[Game, tuple[Event, ...]]


def play_until(wanted: Callable[[Game, Sequence[Event]], bool], *, players: int = 3, seeds: int = 200) -> Found:
    """The first situation of seeded random self-play where `wanted(game, last events)` holds."""
    for seed in range(seeds):
        game = Game.new(players, seed=seed, names=("Anna", "Bo", "Cem", "Dana")[:players])
        rng = random.Random(seed)
        events: list[Event] = []
        while True:
            if wanted(game, events):
                return game, tuple(events)
            if game.state.over:
                break
            events = game.apply(rng.choice(game.legal_actions()))
    raise LookupError("no such situation in the seeded games")  # the engine changed: widen `seeds`


def pending(kind: PendingKind, test: Callable[[Game], bool] = lambda game: True) -> Callable[..., bool]:
    return lambda game, events: game.pending.kind is kind and test(game)


def conflict(test: Callable[[Conflict], bool]) -> Callable[..., bool]:
    """A support decision in a conflict that passes `test`."""
    return lambda game, events: game.pending.conflict is not None and test(game.pending.conflict)


def happened(kind: EventKind) -> Callable[..., bool]:
    return lambda game, events: any(e.kind is kind for e in events)


def two_tall_squares() -> Game:
    """A black tile that completes two 2×2 squares at once (table mode: hands unknown)."""
    game = Game.new(2, hidden_hands=True, names=("Anna", "Bo"), dynasties=("lion", "pot"))
    for action in ("tile black A10", "tile black A11", "tile black B11", "tile black C11", "tile black C10",
                   "tile black B10"):
        game.apply(action)
    return game


def notice(found: Found) -> screens.Notice:
    """The first result or end of turn the players see after the situation's last action."""
    game, events = found
    return screens.notices_of(events, game.before(1), game.actions[-1])[0]


def view(found: Found, **fields: object) -> TableView:
    game, events = found
    return TableView(game.state, game.config, events=events, moves=recent(game), **fields)  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def gallery() -> tuple[Screen, ...]:
    """One of every screen, filled from real game situations (computed once: screens are frozen)."""
    mid = play_until(lambda game, events: game.pending.kind is PendingKind.ACTION and game.state.turn >= 12
                     and isinstance(game.actions[-1], PlaceTile))  # a last move to ring on the board
    revolt = play_until(conflict(lambda c: c.kind is ConflictKind.REVOLT))
    war = play_until(conflict(lambda c: c.kind is ConflictKind.WAR and c.attacker_committed is not None))
    war_won = play_until(lambda game, events: any(e.kind is EventKind.CONFLICT_WON and e.page == 9 for e in events))
    bag_low = play_until(happened(EventKind.BAG_LOW))
    found = [
        screens.turn(view(mid, differ=(parse_cell("H6"),))),
        screens.swap(view(mid, asking=Asking.SWAP, ui=UiState(entry=3))),
        screens.support(view(revolt, ui=UiState(entry=2))),
        screens.support(view(war, ui=UiState(entry=1))),
        screens.notice(view(war_won), notice(war_won)),
        screens.war_order(view(play_until(pending(PendingKind.WAR_ORDER)))),
        screens.monument(view(play_until(pending(PendingKind.MONUMENT)))),
        screens.monument(TableView(two_tall_squares().state, two_tall_squares().config)),
        screens.treasure(view(play_until(pending(PendingKind.TREASURE)))),
        screens.notice(view(bag_low), notice(bag_low)),
        screens.scores(view(mid, asking=Asking.SCORES, ui=UiState(peek=1))),
        screens.for_state(view(mid, asking=Asking.MENU)),
        screens.for_state(view(play_until(pending(PendingKind.GAME_OVER)))),
    ]
    draft = wizard.SetupDraft()
    for command in (UiCommand.choose("players", 3), UiCommand.choose("dynasty", "lion"),
                    UiCommand.choose("dynasty", "bull"), UiCommand.choose("dynasty", "archer"),
                    UiCommand.choose("board", "standard"), UiCommand.choose("scores", "hidden")):
        found.append(wizard.setup(draft))
        draft = draft.apply(command) or draft
    found.append(wizard.setup(draft, differ=(10, 37, 70)))
    manual = wizard.ManualTally(("Anna", "Bo", "Cem"), ((5, 7, 6, 9, 2), (7, 5, 9, 6, 2), (4, 8, 8, 8, 3)), 7)
    found += [wizard.manual_tally(manual), screens.tally(manual.scores(), reason="Tally entered by hand")]
    game, _ = mid
    try:
        game.apply("leader red A1")
        raise AssertionError("A1 has no temple beside it: the engine should refuse a leader there")
    except IllegalAction as error:
        illegal = error
    last = messages.TakeBack(((game.before(1), game.actions[-1]),))
    committed, _ = play_until(conflict(lambda c: bool(c.attacker_committed)))  # shown tiles: never taken back
    shown = messages.TakeBack(((committed.before(1), committed.actions[-1]),), messages.Final.SUPPORT)
    found += [
        messages.mismatch(game.state, (0, 1, 16), illegal),
        messages.mismatch(game.state, (0, 1, 16), illegal, UiState(pick=1)),
        screens.beside_board(messages.resuming(datetime(2026, 11, 28, 20, 14), len(game.actions)), game.state,
                             recent(game)),
        messages.disk_full(),
        messages.camera_lost(),
        messages.error(illegal),
        screens.new_game(view(mid, actions=game.actions)),
        messages.take_back(game.state, last),
        messages.take_back(committed.state, shown),
        messages.way_back(wizard.setup(draft, differ=(10, 37, 70))),
        messages.ambiguous(game.state, two_ways(game), (0, 1)),
        messages.ambiguous(game.state, two_orders(game), (0, 1)),
        screens.turn(view(mid, camera=Trouble(CameraTrouble.COVERED, "Something lies over the board's left edge: "
                                              "a hand, a cup, a deep shadow?"))),
    ]
    return tuple(found)


def two_ways(game: Game) -> tuple[messages.Foreseen, ...]:
    """Two tiles of different colours the position allows, as two ways to read one change."""
    return tuple(messages.Foreseen.trying(game.config, game.state, (action,)) for action in _two_tiles(game))


def two_orders(game: Game) -> tuple[messages.Foreseen, ...]:
    """Two tiles put down before the camera got a look, as the two orders they may have come in."""
    first, second = _two_tiles(game)
    return tuple(messages.Foreseen.trying(game.config, game.state, pair) for pair in ((first, second), (second, first)))


def _two_tiles(game: Game) -> tuple[PlaceTile, PlaceTile]:
    """Two tiles of different colours, on different squares, that the position allows."""
    tiles = [a for a in game.legal_actions() if isinstance(a, PlaceTile)]
    return tiles[0], next(a for a in tiles if a.colour is not tiles[0].colour and a.cell != tiles[0].cell)


def file_name(screen: Screen, index: int, size: tuple[int, int]) -> str:
    return f"{index:02d}-{screen.name}-{size[0]}x{size[1]}.png"


def save(outdir: Path, sizes: Sequence[tuple[int, int]] = SIZES) -> list[Path]:
    import pygame

    from .render import Renderer

    outdir.mkdir(parents=True, exist_ok=True)
    renderer = Renderer()
    saved = []
    for index, screen in enumerate(gallery()):
        for size in sizes:
            surface = pygame.Surface(size)
            renderer.draw(surface, screen)
            path = outdir / file_name(screen, index, size)
            pygame.image.save(surface, str(path))
            saved.append(path)
    return saved


def show(size: tuple[int, int], rotation: int = 0, *, frames: int | None = None,
         say: Callable[[str], None] = print) -> None:
    """Browse the screens on the real display with the real inputs: a check of the panel, the touch
    and the button wiring. Every command is printed; the menu button (or M) goes to the next screen."""
    import dataclasses

    import pygame

    from companion.commands import Verb
    from companion.hardware.buttons import open_gpio_buttons
    from companion.hardware.display import Display

    from .inputs import Inputs
    from .render import Renderer

    display = Display(size, rotation=rotation)
    renderer = Renderer()
    inputs = Inputs(renderer, touches=display.pointer)
    gpio = open_gpio_buttons()
    shots, index, ui = gallery(), 0, UiState()
    clock = pygame.time.Clock()
    say(f"{len(shots)} screens at {display.size[0]}x{display.size[1]}: menu (or M) for the next one, "
        "close the window or press Ctrl+C to stop")
    try:
        while frames is None or frames > 0:
            screen = shots[index]
            if ui.focus is not None and screen.buttons:
                screen = dataclasses.replace(screen, focus=ui.focus % len(screen.buttons))
            if ui.entry is not None and screen.stepper is not None:
                screen = dataclasses.replace(screen, stepper=dataclasses.replace(screen.stepper, value=ui.entry))
            renderer.draw(display.surface, screen)
            display.show()
            events = pygame.event.get()
            if any(event.type == pygame.QUIT for event in events):
                break
            for raw in inputs.commands(events):
                command = screen.resolve(raw)
                say(f"{screen.name}: {raw} → {command}")
                if command is not None and command.verb is Verb.MENU:
                    index, ui = (index + 1) % len(shots), UiState()
                elif command is not None:
                    ui = ui.apply(command) or ui
            clock.tick(30)
            if frames is not None:
                frames -= 1
    finally:
        if gpio is not None:
            gpio.close()
        pygame.display.quit()


def size_argument(text: str) -> tuple[int, int]:
    import argparse

    from companion.hardware.display import parse_size

    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m companion.ui.gallery",
        description="Save every screen as PNG at 800x480 and 720x1280, or browse them on this display.")
    parser.add_argument("outdir", nargs="?", type=Path, help="folder for the screenshots")
    parser.add_argument("--show", action="store_true", help="browse the screens with touch, keys and buttons")
    parser.add_argument("--size", type=size_argument, default=LANDSCAPE, help="window size for --show (800x480)")
    parser.add_argument("--rotation", type=int, default=0, choices=(0, 90, 180, 270),
                        help="degrees the panel is turned, for --show")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.show:
        show(args.size, args.rotation)
        return 0
    if args.outdir is None:
        parser.error("give a folder for the screenshots, or --show")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    paths = save(args.outdir)
    print(f"{len(paths)} screenshots in {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
