"""`companion demo`: a whole game at the table with no hardware; `companion replay FILE` replays a record.

Simulated players (companion.sim.table) play a seeded game and change the board by hand; the
synthetic camera renders it with hands and lamp changes; the real observer reads it; the
controller and its tracker follow, and the players answer its prompts with the same commands a
touch or a button sends. The game must end with the companion's tally equal to the engine's own.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from companion.app.controller import Controller, Edge, Problem, Resuming, Sight
from companion.app.records import open_record
from companion.commands import Key, UiCommand
from companion.rules import (
    Action,
    BuildMonument,
    CompanionError,
    Game,
    Pass,
    PlayerScore,
    cell_name,
    final_scores,
    replay,
)
from companion.sim.table import Table
from companion.tracker import Ambiguous, Look, Mismatch, Takeback, Unclear
from companion.ui import screens
from companion.ui.messages import TAKE_IT_BACK
from companion.ui.model import Screen
from vision.reading import BoardReading

ORDER = "order"  # what was asked: only which of two moves made at once came first, of a board read right
SPENT = "both actions"  # what the players told: the turn the companion still shows open, they had ended
SHOW_SECONDS = 0.4  # how long each screen stays up in a window, so the game can be followed


class Eyes(Protocol):
    read_ms: float

    @property
    def observer(self) -> Sight: ...

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading: ...

    def again(self) -> BoardReading: ...


class DemoError(CompanionError):
    """The companion lost track of the game: the demo cannot go on."""


class NeverSettled(DemoError):
    """The companion kept looking (or asking) and was never satisfied with the board."""


@dataclass
class Stats:
    """What happened at the table, for the demo's summary and the game benchmark."""

    seen: int = 0  # actions the players made on the board
    unaided: int = 0  # ... that the companion recognised without help
    corrected: int = 0  # ... that needed the players to correct a misread or choose
    helped_by: Counter[str] = field(default_factory=Counter)  # ... of those, by what the companion asked
    # ... of those, moves whose one question was which of two actions seen in one look came first,
    # asked of a board read right: the game's own question (the orders score differently), which
    # no camera answers when a player makes both before it gets a look.
    order_only: int = 0
    stalled: int = 0  # games stopped because the camera never got a reading of the board
    silent: int = 0  # times the companion's game differed from the truth without telling the players
    prompts: Counter[str] = field(default_factory=Counter)
    to_screen_ms: list[float] = field(default_factory=list)  # still board read → screen drawn
    after_read_ms: list[float] = field(default_factory=list)  # ... of which tracker, view-model and drawing
    unreadable: Counter[str] = field(default_factory=Counter)  # squares read with low confidence, by truth
    misread: Counter[str] = field(default_factory=Counter)  # squares read wrong with confidence, truth → read
    refused: BoardReading | None = None  # the last look, when the camera refused to read it
    read_right: bool = False  # the last look was read, every square as the board shows it

    def note(self, table: Table, reading: BoardReading) -> None:
        """What the camera got wrong in this reading, against the real board."""
        self.refused = None if reading.ok else reading
        self.read_right = reading.ok
        if not reading.ok:
            return
        low = set(reading.low_confidence)
        for cell, (real, seen) in enumerate(zip(table.board, reading.cells, strict=True)):
            if cell in low:
                self.unreadable[real.cls.value] += 1
            elif not real.fits(seen):
                self.misread[f"{real.cls.value} → {seen.cls.value}"] += 1
            # A monument left unnamed fits any, but which one it is was the camera's to say.
            named = real.monument is None or seen.monument is not None
            self.read_right &= cell not in low and real.fits(seen) and named


class Screens:
    """Where the screens go: a window, screenshot files, or nowhere (tests and the benchmark)."""

    def __init__(self, *, window: bool = False, shots: Path | None = None, size: tuple[int, int] = (800, 480),
                 pause: float = 0.0, draw: bool = False) -> None:
        self.surface: Any = None
        self.renderer: Any = None
        self.shots, self.pause, self.window, self.draw = shots, pause, window, draw
        self.saved: dict[str, Path] = {}
        self._last: Screen | None = None
        if window or shots is not None or draw:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            if not window:
                os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
            from companion.hardware.display import open_display
            from companion.ui.render import Renderer

            self.surface = open_display(size, caption="Tigris & Euphrates companion — demo")
            self.renderer = Renderer()
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)

    def show(self, screen: Screen) -> None:
        if self.surface is None:
            return
        if not (self.window or self.draw) and screen.name in self.saved:
            return  # headless: only a screen not yet saved is worth drawing
        import pygame

        self.renderer.draw(self.surface, screen)
        if self.window:
            pygame.display.flip()
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    raise KeyboardInterrupt
            if screen != self._last:  # linger on what changed, so people can follow the game
                time.sleep(self.pause)
            self._last = screen
        if self.shots is not None and screen.name not in self.saved:
            path = self.shots / f"{len(self.saved) + 1:02d}-{screen.name}.png"
            pygame.image.save(self.surface, str(path))
            self.saved[screen.name] = path


def draw_time(screens_: Screens, screen: Screen) -> float:
    """Milliseconds to draw `screen` (0 without a surface)."""
    start = time.perf_counter()
    screens_.show(screen)
    return (time.perf_counter() - start) * 1000


# --- the players answering the companion ----------------------------------------------------------


def read_on(controller: Controller) -> None:
    """The players read the results and the end of the turn shown, and press "Next"."""
    while controller.screen().name in ("result", "end_of_turn"):
        controller.handle(UiCommand.key(Key.OK))


def press(controller: Controller, command: str) -> None:
    """Tell the companion `command` the way a player does: through the buttons on the screen."""
    read_on(controller)
    if command.startswith("swap "):
        controller.handle(UiCommand.nav("swap"))
    screen = controller.screen()
    words = command.split()
    if screen.stepper is not None and len(words) == 2 and words[1].isdigit():
        controller.handle(UiCommand.entry(int(words[1])))
        screen = controller.screen()
    wanted = UiCommand.action(command)
    monument = Action.parse(command)
    if not any(b.command == wanted for b in screen.buttons) and isinstance(monument, BuildMonument):
        controller.handle(UiCommand.pick(monument.cell))  # several 2×2s: tap the one first
        screen = controller.screen()
    if not any(b.command == wanted for b in screen.buttons):
        raise DemoError(f"the {screen.name!r} screen offers no button for {command!r}")
    controller.handle(wanted)


def answer(table: Table, controller: Controller) -> bool:
    """The players deal with what the companion asks; False when they cannot help it."""
    moment = controller.moment
    if moment is None:
        return True
    if isinstance(moment, Ambiguous):
        for index, option in enumerate(moment.options):  # the players know what they did
            game = Game.from_state(controller.game.config, controller.state)
            for action in option:
                game.apply(action)
            if table.agrees(game.state):
                controller.handle(UiCommand.choose("explain", index))
                return True
        return _tap_the_misread(table, controller, moment.cells)
    if isinstance(moment, Mismatch | Unclear) and controller.reading is not None:
        cells = moment.cells
        wrong = [c for c in cells if not table.board[c].fits(controller.reading.cells[c])]
        if not wrong and isinstance(moment, Mismatch):
            return False  # the board is right and the companion cannot explain it
        # A square the camera asks about is named, read right or not: the game may need it to
        # have changed, unseen, to explain a piece misread elsewhere (a leader's colour).
        for cell in cells:  # tap each marked square and say what stands there, misread or not
            controller.handle(UiCommand.pick(cell))
            controller.handle(UiCommand.choose("correct", f"{cell_name(cell)} {table.board[cell].cls.value}"))
        return True
    if isinstance(moment, Takeback):  # the companion thinks the board went back: did it?
        went_back = table.agrees(controller.game.before(min(moment.steps, len(controller.game.actions))))
        controller.handle(TAKE_IT_BACK if went_back else UiCommand.nav("forward"))
        return True
    if isinstance(moment, Edge):  # the simulated players never leave a hand on the board
        controller.handle(UiCommand.nav("nothing"))
        return True
    controller.handle(UiCommand.nav("close"))
    return isinstance(moment, Problem | Resuming)


def _tap_the_misread(table: Table, controller: Controller, cells: Sequence[int]) -> bool:
    """None of the ways offered happened: the players tap a square the camera misread and, on the
    screen that opens, say what stands there. False when none was misread, or the screen has no way."""
    reading = controller.reading
    if reading is None:
        return False
    wrong = [c for c in cells if not table.board[c].fits(reading.cells[c])]
    if not wrong:
        return False
    cell = wrong[0]  # the board is looked at again at once: any other misread is asked about anew
    controller.handle(UiCommand.tap(cell))
    said = UiCommand.choose("correct", f"{cell_name(cell)} {table.board[cell].cls.value}")
    if not any(b.command == said for b in controller.screen().buttons):
        return False
    controller.handle(said)
    return True


# --- one game -------------------------------------------------------------------------------------


def play(table: Table, controller: Controller, eyes: Eyes, screens_: Screens, stats: Stats,
         limit: int = 4000) -> None:
    """Play the table's game to its end through the camera and the companion."""
    screens_.show(controller.screen())
    for _ in range(limit):
        if table.over:
            return
        move = table.step()
        if move.by_hand:
            controller.on_motion()
            controller.brief(eyes.observer)
            reading = eyes.look(table.board, hand=True)
            start = time.perf_counter()
            stats.note(table, reading)
            controller.on_reading(reading)
            screen = controller.screen()
            after_read = (time.perf_counter() - start) * 1000 + draw_time(screens_, screen)
            stats.to_screen_ms.append(eyes.read_ms + after_read)
            stats.after_read_ms.append(after_read)
        else:
            press(controller, move.command)
            screens_.show(controller.screen())
        try:
            asked = _settle(table, controller, eyes, screens_, stats)
        except NeverSettled:
            # The move was made on the board and never recognised: the game stalls, as when
            # every look is refused (a stall is never counted as recognised, nor left uncounted).
            if move.by_hand and move.actions:
                stats.seen += len(move.actions)
            stats.stalled += 1
            raise DemoError(f"the game stalled: the companion never settled after "
                            f"{', '.join(map(str, move.actions)) or 'the players put it right'}") from None
        if move.by_hand and len(move.actions) > 1 and _one_action_short(table, controller):
            # A leader put down and moved on before the camera got a look shows only where it
            # ended: the companion takes it for one action. The players see their turn still
            # open on the screen and pass the action they had spent.
            press(controller, str(Pass()))
            asked = asked | {SPENT}
            screens_.show(controller.screen())
        # Every look at the board refused (an edge, a marker, a hand that never left): the companion
        # never saw the move. Not recognised, and not a silent disagreement: the game stalls.
        stalled = move.by_hand and stats.refused is not None and not table.agrees(controller.state)
        if move.by_hand and move.actions:
            stats.seen += len(move.actions)
            if stalled:
                pass
            elif asked:
                stats.corrected += len(move.actions)
                stats.helped_by.update({kind: len(move.actions) for kind in asked})
                stats.order_only += len(move.actions) * (asked == {ORDER})
            else:
                stats.unaided += len(move.actions)
        if stalled:
            stats.stalled += 1
            assert stats.refused is not None
            raise DemoError(f"the game stalled: the camera never read the board after "
                            f"{', '.join(map(str, move.actions)) or 'the players put it right'} "
                            f"({stats.refused.message or stats.refused.status.value})")
        if not table.agrees(controller.state):
            stats.silent += 1
            raise DemoError(f"the companion's game differs from the table after {', '.join(map(str, move.actions))}")
    raise DemoError(f"the game did not end within {limit} moves")


def _settle(table: Table, controller: Controller, eyes: Eyes, screens_: Screens, stats: Stats) -> frozenset[str]:
    """Until the companion is satisfied: another look when it could not see clearly, an answer when it
    asks. What it asked the players (prompt kinds; none when it needed no help)."""
    asked: set[str] = set()
    for _ in range(30):
        if controller.moment is not None:
            kind = type(controller.moment).__name__.lower()
            stats.prompts[kind] += 1
            asked.add(ORDER if _order_only(controller.moment, stats) else kind)
            if not answer(table, controller):
                raise DemoError(f"the players cannot answer the {controller.screen().name!r} screen "
                                f"({controller.moment})")
        elif controller.looking:
            controller.brief(eyes.observer)
            reading = eyes.again()
            stats.note(table, reading)
            controller.on_reading(reading)
        else:
            return frozenset(asked)
        screens_.show(controller.screen())
    raise NeverSettled("the companion never settled")


def _one_action_short(table: Table, controller: Controller) -> bool:
    """Whether the companion's game, with one more action passed, is the table's: two actions
    whose end alone the camera saw, which one action explains."""
    if table.agrees(controller.state):
        return False
    game = Game.from_state(controller.game.config, controller.state)
    try:
        game.apply(Pass())
    except CompanionError:
        return False
    return table.agrees(game.state)


def _order_only(moment: object, stats: Stats) -> bool:
    """Whether the players are asked only which of two or more moves seen in one look came first,
    of a board read right: the game's own question (a quick pair of actions is one player's, so
    their leaders' dynasties decide nothing)."""
    return isinstance(moment, Ambiguous) and stats.read_right and all(len(option) > 1 for option in moment.options)


def same_tally(a: Sequence[PlayerScore], b: Sequence[PlayerScore]) -> bool:
    def key(scores: Sequence[PlayerScore]) -> list[tuple[Any, ...]]:
        return sorted((s.seat, s.points, s.treasures, s.final, s.rank) for s in scores)

    return key(a) == key(b)


def tally_lines(scores: Sequence[PlayerScore]) -> list[str]:
    lines = []
    for s in sorted(scores, key=lambda s: s.rank):
        colours = " ".join(f"{p:>3}" for p in s.points)
        lines.append(f"  {s.rank}. {s.name:<10} red/blue/green/black {colours}  treasures {s.treasures}  "
                     f"weakest {min(s.final)}" + (f"  ({s.tie_break})" if s.tie_break else ""))
    return lines


# --- the commands ---------------------------------------------------------------------------------


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 1640x1232") from None
    return width, height


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion demo", description="Play a whole simulated game at the table: "
                                     "no camera, no screen, no buttons needed.")
    parser.add_argument("--headless", action="store_true", help="no window (screenshots with --shots)")
    parser.add_argument("--shots", type=Path, help="write a screenshot of every distinct screen here")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--board", default="standard", choices=("standard", "alternate"))
    parser.add_argument("--style", default="classic", choices=("classic", "modern"), help="the pieces' edition")
    parser.add_argument("--fast", action="store_true", help="no hands over the board, no pauses")
    parser.add_argument("--size", type=_size, default=(1640, 1232),
                        help="camera frame size WxH (default 1640x1232, a full-field Pi camera mode)")
    parser.add_argument("--save", type=Path, help="write the companion's game record here (for replay)")
    args = parser.parse_args(list(argv))
    headless = args.headless or not _has_display()
    shots = args.shots
    if headless and shots is None and not args.headless:
        shots = Path("demo-shots")
        print(f"No display found: running headless; screenshots go to {shots.resolve()}")
    from companion.sim.eyes import CameraEyes

    print(f"Calibrating the simulated camera (seed {args.seed})…", flush=True)
    eyes = CameraEyes(args.seed, board=args.board, style=args.style, hands=not args.fast, size=args.size)
    table = Table.new(args.players, args.seed, args.board)
    controller = Controller(Game.new(args.players, board=args.board, hidden_hands=True))
    screens_ = Screens(window=not headless, shots=shots, pause=0 if args.fast else SHOW_SECONDS)
    stats = Stats()
    start = time.perf_counter()
    try:
        play(table, controller, eyes, screens_, stats)
    except DemoError as error:
        print(f"companion demo: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("companion demo: stopped by the user")
        return 130
    finally:
        if args.save is not None:
            args.save.write_text(controller.game.to_json())
    truth, seen = final_scores(table.truth.state), final_scores(controller.state)
    screens_.show(controller.screen())
    read_on(controller)  # then the tally
    screens_.show(controller.screen())
    print(f"{table.truth.state.game_over}. The companion's tally:")
    print("\n".join(tally_lines(seen)))
    order = f" ({stats.order_only} of them only which came first of two made at once)" if stats.order_only else ""
    print(f"{stats.seen} moves on the board, {stats.unaided} recognised without help, {stats.corrected} with help"
          f"{order}; {eyes.frames} camera frames in {time.perf_counter() - start:.0f} s")
    if shots is not None:
        print(f"Screenshots of {len(screens_.saved)} screens in {shots.resolve()}")
    if not same_tally(truth, seen):
        print("companion demo: the companion's tally differs from the engine's:", file=sys.stderr)
        print("\n".join(tally_lines(truth)), file=sys.stderr)
        return 1
    print("The tally equals the engine's own result.")
    return 0


def replay_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion replay", description="Replay a saved game record on the screens.")
    parser.add_argument("record", type=Path)
    parser.add_argument("--headless", action="store_true")
    parser.add_argument("--shots", type=Path)
    parser.add_argument("--pause", type=float, default=SHOW_SECONDS)
    args = parser.parse_args(list(argv))
    game = open_record(args.record, "companion replay")
    if game is None:
        return 1
    headless = args.headless or not _has_display()
    screens_ = Screens(window=not headless, shots=args.shots, pause=0 if headless else args.pause)
    actions = game.actions
    step = replay(game.config, ())
    screens_.show(screens.for_state(screens.TableView(step.state, step.config)))
    for action in actions:
        events = step.apply(action)
        screens_.show(screens.for_state(screens.TableView(step.state, step.config, events=tuple(events))))
    print(f"Replayed {len(actions)} actions: {step.state.game_over or 'the game is not over yet'}.")
    if step.state.over:
        print("\n".join(tally_lines(final_scores(step.state))))
    return 0
