"""The touchscreen: pure view-models the tests read, and a pygame renderer that draws them.

How the controller uses it (one main loop, no threads)::

    from companion.ui import screens, Renderer, UiState
    from companion.ui.inputs import Inputs
    from companion.hardware.buttons import open_gpio_buttons
    from companion.hardware.display import Display

    display = Display((800, 480), rotation=0)   # KMSDRM: full screen at the panel's size
    renderer = Renderer()
    inputs = Inputs(renderer, touches=display.pointer)  # keys, GPIO, touches; long presses, repeats
    gpio = open_gpio_buttons()             # None without GPIO: keyboard and touch still work
    ui = UiState()                         # reset to UiState() whenever the screen changes

    while True:                            # every frame (~30 per second)
        screen = screens.for_state(screens.TableView(game.state, game.config, ui, events))
        renderer.draw(display.surface, screen); display.show()  # redraw only when `screen` changed
        for command in inputs.commands(pygame.event.get()):
            command = screen.resolve(command)  # a raw key → what it means on this screen
            if command is None: continue
            if (new := ui.apply(command)) is not None: ui = new    # entry, focus, pick, peek
            else: handle(command)          # ACTION → game.apply(command.value); UNDO; NAV; CHOOSE; TAP; MENU

Commands (`UiCommand`, in `companion.commands`, which the buttons of `companion.hardware` speak too):
KEY (up/+, down/−, OK, back, menu; `long` for a long press),
RELEASE (a long-pressed button let go: ends a peek at hidden scores),
ACTION (an engine action text: "support 3", "swap 2", "pass", "war red", "monument red/blue E7",
"no-monument", "treasure B2"), TAP (a board square), PICK (a square as the first step of a choice),
ENTRY / FOCUS / PEEK (the screen's own state, kept in `UiState`), CHOOSE ("players=3",
"correct=F7 red tile", "points=5"), UNDO (take back the last action; also a long press of back),
MENU, NAV ("done", "close", "swap", "scores", "recheck", "start", "retry", "new" (asks first),
"start-new", "undo" (a takeback confirmed), "back-to-game", …).

Screens (each a pure function returning a `Screen`):
- `screens`: `for_state` (turn, swap, support for revolts and wars with the `conflict_panel`,
  war_order, monument, treasure, scores, the final tally), `notice` for what `notices_of(events, ...)`
  finds after an action: a `Result` per conflict decided (who won, totals, points, pieces to remove)
  and a `TurnEnd`; `tally(scores)` (also for a hand-entered tally).
- `wizard`: `SetupDraft` + `setup` (players, dynasty per seat, board side, scores, camera check),
  `ManualTally` + `manual_tally` (drafts the controller keeps; `draft.apply(command)`).
- `messages`: `mismatch` (squares that differ, the rule broken, put it right / correct a misread /
  take back), `correct`, `owed` (pieces still to lift), `edge`, `unreadable`, `ambiguous`, `takeback`,
  `camera_note`, `message`, `resuming`, `disk_full`, `camera_lost`, `error`, `take_back` (what a takeback
  undoes, or why it cannot), `way_back`. `deeds` words an action ("Bull's red temple on F7"); `advice`
  says what to do when the camera reads nothing (the README quotes it). Every word the players read is
  written in `ui`, never in the controller.

`python -m companion.ui.gallery OUTDIR` saves every screen at 800×480 and 720×1280;
`python -m companion.ui.gallery --show [--size 720x1280] [--rotation 90]` browses them on the display
with touch, keys and GPIO buttons, printing every command (a check of the panel and the wiring).
The renderer modules import pygame; `model`, `board`, `screens`, `wizard`, `messages`, `deeds`, `advice`
do not.
"""

from companion.commands import Key, UiCommand, Verb

from .model import Screen, UiState

__all__ = ["Key", "Renderer", "Screen", "UiCommand", "UiState", "Verb"]


def __getattr__(name: str) -> object:
    # The renderer needs pygame; import it only when asked, so view-models work without pygame.
    if name == "Renderer":
        from .render import Renderer

        return Renderer
    raise AttributeError(name)
