"""Every screen as a pure function: what the controller knows → a `Screen` view-model.

`for_state(view)` picks the screen for the engine's pending decision; the others are called by the
controller for its own moments (set-up, results, mismatches, messages). No pygame here.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from companion.commands import UNDO, UiCommand
from companion.rules import (
    SQUARES,
    Action,
    BuildMonument,
    ChooseWar,
    Colour,
    Conflict,
    ConflictKind,
    Event,
    EventKind,
    GameConfig,
    GameState,
    PendingKind,
    PlayerScore,
    Support,
    TakeTreasure,
    block_cells,
    cell_name,
    final_scores,
    support_colour,
)

from .advice import Trouble
from .board import board_view, marks, snap_taps
from .log import Move, last_cells
from .model import (
    LEADER_WORDS,
    NO_UI,
    TILE_WORDS,
    BoardView,
    Button,
    Cell,
    Chip,
    Code,
    Help,
    Mark,
    MarkKind,
    Screen,
    Stepper,
    Table,
    Tone,
    UiState,
)
from .strength import detail
from .strip import strip

# Rulebook pages, as in RULES.md.
P_LEADER, P_CATASTROPHE, P_REVOLT, P_WAR, P_MONUMENT, P_END = 6, 7, 8, 9, 11, 14

DONE = UiCommand.nav("done")
TURN_PROMPT = "Play a tile, a leader or a catastrophe: the camera sees it."
CLOSE = UiCommand.nav("close")
POINTS = (EventKind.SCORED, EventKind.MONUMENT_SCORED)

TURN_TIPS = (
    Help("A leader stands on an empty land square next to a temple, and may not unite two kingdoms.", P_LEADER),
    Help("A catastrophe blocks its square for good; never on a treasure, a monument or a leader.", P_CATASTROPHE),
    Help("A leader entering a kingdom that has a leader of its colour starts a revolt.", P_REVOLT),
    Help("A tile that unites two kingdoms starts a war for each colour led twice.", P_WAR),
    Help("A 2×2 of one colour lets the active player build a monument.", P_MONUMENT),
    Help("The game ends when only 2 treasures remain or the bag cannot refill a hand.", P_END),
)


class Asking(enum.Enum):
    """A prompt the players opened from the turn screen or the menu (its value is the NAV word that opens it)."""

    SWAP = "swap"
    SCORES = "scores"
    MENU = "menu"
    NEW_GAME = "new"  # "New game" asks first: one tap must never drop the evening's game
    TAKE_BACK = "take-back"  # "Take back" says what it will undo first (messages.take_back)
    PHONES = "phones"  # each seat's QR code, when the phones are on (companion.phone)
# What the five push buttons do, for players who use them rather than the touchscreen (the menu button
# opens the menu, so a button user finds this where they need it).
BUTTON_WORDS = (
    "Buttons: up and down move the highlight or change a number.",
    "OK presses the highlighted button; hold it on a seat to peek at its scores.",
    "Back goes back; hold it to take back the last action. Menu opens this menu.",
)


@dataclass(frozen=True, slots=True)
class TableView:
    """What the controller shows: the game, the screen's own little state, and what just happened."""

    state: GameState
    config: GameConfig
    ui: UiState = NO_UI
    events: tuple[Event, ...] = ()  # from the last applied action(s): results to show
    asking: Asking | None = None  # a prompt the players opened
    differ: tuple[int, ...] = ()  # squares where the camera sees something else than the game
    actions: tuple[Action, ...] | None = None  # the actions played so far, when known
    camera: Trouble | None = None  # the camera reads nothing, and why
    moves: tuple[Move, ...] = ()  # the recent moves (companion.ui.log.recent), oldest first
    phones: tuple[Code, ...] = ()  # each seat's and the table's link, when the phones are on (companion.phone)


# --- what the players see after an action, before play goes on (a closed union) -----------------------


@dataclass(frozen=True, slots=True)
class Result:
    """A revolt or war decided (or a leader sent home by a catastrophe or a monument): who won, both
    sides' totals, the points, and exactly what leaves the board. `actor` is the player whose action
    it was; `conflict` is the conflict as the defender decided it, `defended` what the defender added."""

    actor: int
    events: tuple[Event, ...]
    conflict: Conflict | None = None
    defended: int = 0

    @property
    def removed(self) -> tuple[int, ...]:
        """The squares whose pieces must leave the board."""
        return tuple(sorted({cell for e in self.events if e.kind in _REMOVED for cell in e.cells}))


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """A turn ended with monument points or with the end of the game near."""

    actor: int
    events: tuple[Event, ...]


Notice = Result | TurnEnd
_REMOVED = frozenset({EventKind.PIECES_REMOVED, EventKind.LEADER_EXILED, EventKind.UNIFICATION_REMOVED})
# Events that end what a result screen shows: the next war, or the monument decision.
_RESULT_ENDS = frozenset({EventKind.WAR_STARTED, EventKind.MONUMENT_POSSIBLE})
# The first event of the end of a turn: monument points, or everybody drawing back to 6.
_TURN_ENDING = frozenset({EventKind.MONUMENT_SCORED, EventKind.HANDS_REFILLED})


def notices_of(events: Sequence[Event], before: GameState, action: Action) -> tuple[Notice, ...]:
    """What the players must see of the `events` of `action`, taken in `before`: one result per conflict
    decided (or per leader sent home outside a conflict), in order, then the end of the turn when it
    brought monument points or the end of the game near."""
    actor = before.current
    conflict = before.pending.conflict
    defended = action.count if isinstance(action, Support) else 0
    found: list[Notice] = []
    shown: list[Event] = []
    fought: Conflict | None = None

    def close() -> None:
        if shown:
            found.append(Result(actor, tuple(shown), fought, defended if fought is not None else 0))

    for i, event in enumerate(events):
        if event.kind in _TURN_ENDING:
            close()
            rest = tuple(events[i:])
            if any(e.kind in (EventKind.BAG_LOW, EventKind.MONUMENT_SCORED) for e in rest):
                found.append(TurnEnd(actor, rest))
            return tuple(found)
        if event.kind is EventKind.CONFLICT_WON:
            close()
            shown, fought = [event], conflict
        elif event.kind in _RESULT_ENDS:
            close()
            shown, fought = [], None
        elif shown or event.kind is EventKind.LEADER_EXILED:  # a catastrophe or a monument took its last temple
            shown.append(event)
    close()
    return tuple(found)


def picture(view: TableView, own: Iterable[Mark] = (), *, tappable: bool = False) -> BoardView:
    """The board picture of a game screen: its own marks, and any square the camera disagrees with."""
    return board_view(view.state, (*own, *marks(MarkKind.DIFFERS, view.differ)), tappable=tappable)


def for_state(view: TableView) -> Screen:
    """The screen for the pending decision (or the prompt the players opened). The turn screen says why
    the camera reads nothing instead of asking for a move; the others add it at the end."""
    screen = _for_state(view)
    if view.camera is None or screen.name == "turn":
        return screen
    return replace(screen, lines=(*screen.lines, *view.camera.lines))


def _for_state(view: TableView) -> Screen:
    if view.asking is Asking.SWAP:
        return swap(view)
    if view.asking is Asking.SCORES:
        return scores(view)
    if view.asking is Asking.MENU:
        return menu(view)
    if view.asking is Asking.PHONES and view.phones:
        return phones(view)
    if view.asking is Asking.NEW_GAME:
        return new_game(view)
    kind = view.state.pending.kind
    if kind is PendingKind.SUPPORT:
        return support(view)
    if kind is PendingKind.WAR_ORDER:
        return war_order(view)
    if kind is PendingKind.MONUMENT:
        return monument(view)
    if kind is PendingKind.TREASURE:
        return treasure(view)
    if kind is PendingKind.GAME_OVER:
        return tally(final_scores(view.state), reason=view.state.game_over or "")
    return turn(view)


# --- words ----------------------------------------------------------------------------------------


def name(state: GameState, seat: int) -> str:
    return state.players[seat].name


def leader(state: GameState, seat: int, colour: Colour) -> str:
    return f"{name(state, seat)}'s {colour.value} {LEADER_WORDS[colour.value]}"


def status(state: GameState, actor: int | None = None) -> str:
    """The header: whose turn (or, on a result, whose action it was), the actions left, the bag. An
    action whose revolt, war, monument or treasure is still being decided is already counted."""
    seat = state.current if actor is None else actor
    if state.over:
        where = "game over"
    elif seat != state.current:
        where = "turn over"
    else:
        left = state.actions_left - (state.pending.kind is not PendingKind.ACTION)
        where = f"{left} action{'s' if left != 1 else ''} left"
    return f"{seat_name(state, seat)} · {where} · bag {state.bag_count}"


def seat_name(state: GameState, seat: int) -> str:
    """"Anna (archer)"; a player named after their dynasty is just "Archer"."""
    player = state.players[seat]
    return player.name if player.name.lower() == player.dynasty else f"{player.name} ({player.dynasty})"


def beside_board(screen: Screen, state: GameState, moves: Sequence[Move] = ()) -> Screen:
    """A message with the board picture beside it, the last move ringed: after a power cut the players
    compare the picture with the table."""
    return replace(screen, status=status(state), board=board_view(state, marks(MarkKind.LAST, last_cells(moves))))


def _focus(ui: UiState, buttons: Sequence[Button]) -> int:
    """The highlighted button: the player's choice, else the primary one."""
    if ui.focus is not None and buttons:
        return ui.focus % len(buttons)
    return next((i for i, b in enumerate(buttons) if b.primary), 0)


def _screen(ui: UiState, **fields: object) -> Screen:
    buttons = fields.get("buttons", ())
    assert isinstance(buttons, tuple)
    return Screen(focus=_focus(ui, buttons), **fields)  # type: ignore[arg-type]


# --- the turn ------------------------------------------------------------------------------------


def turn(view: TableView) -> Screen:
    state = view.state
    seat = state.pending.player
    camera = view.camera
    # While the camera reads nothing, why and what to do instead of asking for a move.
    lines = list(camera.lines) if camera is not None else [TURN_PROMPT]
    # Points are in the move log, which hides them when scores are hidden; a leader sent home is news.
    lines += [event.text for event in view.events if event.kind is EventKind.LEADER_EXILED]
    picked = view.ui.pick
    # A tap on a leader or a kingdom shows its strength; a second tap on the same square hides it.
    taps = tuple((cell, UiCommand.pick(-1 if cell == picked else cell)) for cell in range(SQUARES))
    buttons = (
        Button("Swap tiles", UiCommand.nav("swap")),
        Button("Pass", UiCommand.action("pass")),
        Button("Scores", UiCommand.nav("scores")),
        Button("Take back", UNDO),
    )
    return _screen(
        view.ui, name="turn", title=f"{name(state, seat)}'s turn", status=status(state), lines=tuple(lines),
        buttons=buttons, taps=taps,
        board=picture(view, (*marks(MarkKind.LAST, last_cells(view.moves)),
                             *marks(MarkKind.DIFFERS, camera.cells if camera is not None else ())), tappable=True),
        help=TURN_TIPS[state.turn % len(TURN_TIPS)], tone=Tone.PROMPT if camera is None else Tone.WARNING,
        # While the camera reads nothing, why and what to do take the player strip's room.
        strip=strip(state, view.config.open_scores) if camera is None else None,
        log=tuple(m.line(view.config.open_scores) for m in view.moves),
        detail=detail(state, picked) if picked is not None else (),
    )


def swap(view: TableView) -> Screen:
    state = view.state
    player = state.players[state.pending.player]
    most = max(1, min(player.hand_size, state.bag_count))
    n = min(most, max(1, view.ui.entry or 1))
    buttons = (
        Button(f"Swap {n} tile{'s' if n != 1 else ''}", UiCommand.action(f"swap {n}"), primary=True),
        Button("Cancel", CLOSE),
    )
    return _screen(
        view.ui, name="swap", title=f"{player.name} swaps tiles", status=status(state),
        lines=("Put the tiles you discard out of the game, then draw as many from the bag.",
               "The camera cannot see this: say how many."),
        stepper=Stepper("Tiles to swap", n, 1, most), buttons=buttons, back=CLOSE,
        help=Help("A swap is one action: discard 1 to 6 tiles and draw as many. Catastrophes stay."),
        tone=Tone.PROMPT,
    )


# --- conflicts -----------------------------------------------------------------------------------


def conflict_panel(state: GameState, c: Conflict, attacker_hand: int | None, defender_hand: int | None) -> Table:
    """Attacker (left) and defender side by side, as Board Game Arena shows a conflict: each leader and
    its square, the strength on the board, the tiles from hand (None: not said yet), the total."""
    colour = support_colour(c)

    def hand(n: int | None) -> Cell:
        return "—" if n is None else Chip(colour.value, str(n))

    return Table(
        (f"{LEADER_WORDS[c.colour.value].capitalize()}s", f"{name(state, c.attacker)} {cell_name(c.attacker_leader)}",
         f"{name(state, c.defender)} {cell_name(c.defender_leader)}"),
        (
            ("Temples" if c.kind is ConflictKind.REVOLT else "Supporters",
             Chip(colour.value, str(c.attacker_strength)), Chip(colour.value, str(c.defender_strength))),
            ("From hand", hand(attacker_hand), hand(defender_hand)),
            ("Total", str(c.attacker_strength + (attacker_hand or 0)), str(c.defender_strength + (defender_hand or 0))),
        ),
    )


def standing(state: GameState, c: Conflict, attacker_hand: int, defender_hand: int, *, final: bool = False) -> str:
    """Who wins with the tiles said so far; ties go to the defender."""
    attack, defence = c.attacker_strength + attacker_hand, c.defender_strength + defender_hand
    now = "" if final else "As it stands, "
    if attack > defence:
        return f"{now}{name(state, c.attacker)} (attacker) wins, {attack} to {defence}."
    tie = ": ties go to the defender" if attack == defence else ""
    return f"{now}{name(state, c.defender)} (defender) holds, {defence} to {attack}{tie}."


def support(view: TableView) -> Screen:
    """Revolt or war: the attacker, then the defender, says how many tiles they commit from hand, with
    both sides' strengths side by side and who wins as it stands."""
    state = view.state
    pending = state.pending
    c = pending.conflict
    assert c is not None
    colour = support_colour(c)
    seat = pending.player
    attacking = c.attacker_committed is None
    role = "attacker" if attacking else "defender"
    n = min(pending.max_support, max(0, view.ui.entry or 0))
    title = f"{c.colour.value.capitalize()} {c.kind.value}: {name(state, seat)} ({role}) commits"
    # The two leaders carry their side's mark too, so the picture alone tells who fights whom.
    board = picture(view, (*marks(MarkKind.ATTACKER, (c.attacker_leader, *c.attacker_supporters)),
                               *marks(MarkKind.DEFENDER, (c.defender_leader, *c.defender_supporters))))
    help_ = (Help("Temples next to each leader count. Attacker, then defender, add temples from hand; "
                  "ties go to the defender.", P_REVOLT) if c.kind is ConflictKind.REVOLT else
             Help(f"{TILE_WORDS[colour.value].capitalize()}s in each leader's own kingdom count. Attacker, then "
                  "defender, add tiles of the war colour; ties go to the defender.", P_WAR))
    attacker_hand = n if attacking else c.attacker_committed
    defender_hand = None if attacking else n
    lines = [standing(state, c, attacker_hand or 0, defender_hand or 0)]
    buttons = (Button(f"Commit {n}", UiCommand.action(f"support {n}"), colour=colour.value, primary=True),)
    return _screen(
        view.ui, name="support", title=title, status=status(state), lines=tuple(lines),
        table=conflict_panel(state, c, attacker_hand, defender_hand),
        stepper=Stepper(f"{name(state, seat)}: {colour.value} {TILE_WORDS[colour.value]}s from hand", n, 0,
                        pending.max_support, colour.value),
        buttons=buttons, board=board, help=help_, tone=Tone.PROMPT,
    )


# The unification tile is not worded: its square is among those to take off, and the screen is small.
_RESULT_SHOWN = frozenset({EventKind.PIECES_REMOVED, EventKind.SCORED, EventKind.LEADER_EXILED,
                           EventKind.TREASURE_TAKEN, EventKind.WAR_DROPPED})


def result(view: TableView, found: Result) -> Screen:
    """After a conflict: who won and the totals, the points, and the pieces that must leave the board.
    The header names the player whose action it was; the button says what comes next."""
    state = view.state
    won = next((e for e in found.events if e.kind is EventKind.CONFLICT_WON), None)
    remove = found.removed
    lines = [e.text for e in found.events if e.kind in _RESULT_SHOWN]
    table = None
    c = found.conflict
    if won is not None and c is not None:
        table = conflict_panel(state, c, c.attacker_committed, found.defended)
        attack, defence = c.attacker_strength + (c.attacker_committed or 0), c.defender_strength + found.defended
        if attack == defence:  # else the title and the totals say it all
            lines.insert(0, standing(state, c, c.attacker_committed or 0, found.defended, final=True))
    if remove:
        lines.append("Take off the board: " + ", ".join(cell_name(cell) for cell in remove) + ".")
    return _screen(
        view.ui, name="result", title=won.text.split(",")[0] if won else "A leader goes home",
        status=status(state, found.actor), lines=tuple(lines), table=table,
        board=picture(view, marks(MarkKind.REMOVE, remove)),
        buttons=(Button(_next(state), DONE, primary=True),),
        help=Help("The loser's leader goes home; in a war the loser's supporters leave the board and score for "
                  "the winner.", P_WAR if won is None or won.page == P_WAR else P_REVOLT),
    )


def _next(state: GameState) -> str:
    """What the button after a result leads to."""
    pending = state.pending
    if pending.kind is PendingKind.SUPPORT and pending.conflict is not None:
        return f"Next: the {pending.conflict.colour.leader_name}s' war"
    if pending.kind is PendingKind.WAR_ORDER:
        return "Next: which war now"
    if pending.kind is PendingKind.GAME_OVER:
        return "Next: the final tally"
    return "Done: pieces removed"


def notice(view: TableView, shown: Notice) -> Screen:
    """The screen of a result or of the end of a turn."""
    if isinstance(shown, Result):
        return result(view, shown)
    return end_of_turn(view, shown)


def war_order(view: TableView) -> Screen:
    state = view.state
    pending = state.pending
    wars = [o for o in pending.options if isinstance(o, ChooseWar)]
    buttons = tuple(Button(f"{o.colour.value.capitalize()} {LEADER_WORDS[o.colour.value]}s", UiCommand.action(str(o)),
                           colour=o.colour.value) for o in wars)
    return _screen(
        view.ui, name="war_order", title=f"{name(state, pending.player)}: which war first?", status=status(state),
        lines=(f"The uniting tile starts {len(wars)} wars. {name(state, pending.player)} chooses the order, "
               "even when not fighting.",),
        buttons=buttons, board=picture(view), help=Help("The active player chooses the order of the wars; "
                                                             "after each war, the next is fought only if its leaders "
                                                             "are still joined.", P_WAR),
        tone=Tone.PROMPT,
    )


# --- monuments and treasures ----------------------------------------------------------------------


def monument(view: TableView) -> Screen:
    """Build or not; which 2×2 first when the tile completed several, then which monument."""
    state = view.state
    pending = state.pending
    builds = [o for o in pending.options if isinstance(o, BuildMonument)]
    blocks = sorted({o.cell for o in builds})
    block = view.ui.pick if view.ui.pick in blocks else (blocks[0] if len(blocks) == 1 else None)
    decline = Button("No monument", UiCommand.action("no-monument"))
    who = name(state, pending.player)
    if block is None:
        buttons = (*(Button(f"The 2×2 at {cell_name(b)}", UiCommand.pick(b)) for b in blocks), decline)
        lines = (f"{who} completed {len(blocks)} squares of four: which one gets the monument? "
                 "Tap it on the board or choose below.",)
        taps = tuple((cell, UiCommand.pick(b)) for b in blocks for cell in block_cells(b))
        board = picture(view, marks(MarkKind.OPTION, blocks), tappable=True)
    else:
        here = [o for o in builds if o.cell == block]
        colour = state.square(block).tile
        buttons = (*(Button(f"{o.monument.value} monument", UiCommand.action(str(o)),
                            colour=next(c.value for c in o.monument.colours if c is not colour))
                     for o in here), decline)
        tile_words = f"{colour.value} {TILE_WORDS[colour.value]}s" if colour else "tiles"
        lines = (f"{who} may build a monument on the four {tile_words} at {cell_name(block)}: "
                 "they turn face down. Which monument?",)
        taps = ()
        board = picture(view, marks(MarkKind.OPTION, block_cells(block)))
    return _screen(
        view.ui, name="monument", title="Build a monument?", status=status(state), lines=lines, buttons=buttons,
        board=board, taps=taps, back=UiCommand.pick(-1) if len(blocks) > 1 and block is not None else None,
        help=Help("One of the monument's colours must match the tiles. At the end of your turn each of your "
                  "leaders of its colours in its kingdom scores a point.", P_MONUMENT),
        tone=Tone.PROMPT,
    )


def treasure(view: TableView) -> Screen:
    state = view.state
    pending = state.pending
    options = [o for o in pending.options if isinstance(o, TakeTreasure)]
    who = name(state, pending.player)
    n = pending.treasures_to_take
    corners = all(state.square(o.cell).corner for o in options)
    lines = [f"{who}'s trader takes {n} treasure{'s' if n != 1 else ''} from the kingdom."]
    if corners:
        lines.append("Treasures on the framed corner squares must be taken first.")
    lines.append("Tap the treasure taken, or choose it below.")
    return _screen(
        view.ui, name="treasure", title=f"{who} takes a treasure", status=status(state), lines=tuple(lines),
        buttons=tuple(Button(f"Treasure on {cell_name(o.cell)}", UiCommand.action(str(o))) for o in options),
        board=picture(view, marks(MarkKind.OPTION, (o.cell for o in options)), tappable=True),
        taps=snap_taps((o.cell for o in options), lambda cell: UiCommand.action(f"treasure {cell_name(cell)}")),
        help=Help("A kingdom with two treasures and a green trader: the trader's owner takes all but one. "
                  "Each treasure is a wild point at the end."),
        tone=Tone.PROMPT,
    )


# --- end of turn, scores, the end ----------------------------------------------------------------


def end_of_turn(view: TableView, ended: TurnEnd) -> Screen:
    """Monument points, everybody drawing back to 6, and a warning when the end is near. The header
    names the player whose turn it was."""
    state = view.state
    shown = (*POINTS, EventKind.HANDS_REFILLED, EventKind.TURN_ENDED, EventKind.BAG_LOW)
    lines = [e.text for e in ended.events if e.kind in shown]
    low = any(e.kind is EventKind.BAG_LOW for e in ended.events)
    following = "the final tally" if state.over else name(state, state.current)
    return _screen(
        view.ui, name="end_of_turn", title="End of the turn", status=status(state, ended.actor), lines=tuple(lines),
        buttons=(Button(f"Next: {following}", DONE, primary=True),),
        help=Help("Monument points first, then everybody draws back to 6 tiles.", P_MONUMENT) if not low else
        Help("The game ends when only 2 treasures remain or the bag cannot refill a hand.", P_END),
        tone=Tone.WARNING if low else Tone.INFO,
    )


def _colour_header() -> tuple[Cell, ...]:
    return ("", *(Chip(c.value, TILE_WORDS[c.value]) for c in Colour))


def scores(view: TableView) -> Screen:
    """Points per player and colour; hidden unless open or a player holds their seat to peek."""
    state = view.state
    open_ = view.config.open_scores
    rows: list[tuple[Cell, ...]] = []
    for p in state.players:
        if open_ or view.ui.peek == p.seat:
            points = (Chip(c.value, str(n)) for c, n in zip(Colour, p.points, strict=True))
            rows.append((p.name, *points, str(p.treasures)))
        else:
            rows.append((p.name, "hidden", "", "", "", ""))  # treasures too: they sit behind the screen
    buttons = () if open_ else tuple(
        Button(f"{p.name}: hold to peek", UiCommand.nav("scores"), hold=UiCommand.peek(p.seat))
        for p in state.players
    )
    return _screen(
        view.ui, name="scores", title="Scores", status=status(state),
        lines=("Open scores." if open_ else "Hidden scores: hold your seat's button to see your own.",),
        table=Table((*_colour_header(), "treasures"), tuple(rows)),
        buttons=(*buttons, Button("Close", CLOSE, primary=True)), back=CLOSE,
        help=Help("At the end your weakest colour is your score; treasures fill your weakest colours.", P_END),
    )


def tally(scores_: Sequence[PlayerScore], *, reason: str = "") -> Screen:
    """The final tally: each player's four colours with the treasures added (in gold), the weakest colour
    framed, the score, the ranking, and in words how each tie was broken."""
    ranked = sorted(scores_, key=lambda s: (s.rank, s.seat))
    rows: list[tuple[Cell, ...]] = []
    for s in ranked:
        weakest = s.final.index(min(s.final))
        cells = (Chip(c.value, str(own), f"+{added}" if added else "", highlight=i == weakest)
                 for i, (c, own, added) in enumerate(zip(Colour, s.points, s.spread, strict=True)))
        rows.append((f"{s.rank}. {s.name}", *cells, str(s.score)))
    lines = [reason + "." if reason else "Final tally."]
    lines += [f"{s.name} is {s.tie_break}." for s in ranked if s.tie_break]
    return Screen(
        name="tally", title="The final tally", status="Game over", lines=tuple(lines),
        table=Table((*_colour_header(), "score"), tuple(rows)),
        buttons=(Button("New game", UiCommand.nav("new"), primary=True),),
        help=Help("Treasures (+ in gold) fill the weakest colours; the weakest, framed, is the score. Ties compare "
                  "the next-weakest.", P_END),
    )


def menu(view: TableView) -> Screen:
    """What the players can ask for at any time."""
    buttons = (
        Button("Scores", UiCommand.nav("scores")),
        Button("Take back the last action", UNDO),
        Button("Correct a square", UiCommand.nav("correct")),
        Button("Tally by hand", UiCommand.nav("manual")),
        Button("New game", UiCommand.nav("new")),
        *((Button("Phones", UiCommand.nav("phones")),) if view.phones else ()),
        Button("Close", CLOSE, primary=True),
    )
    return _screen(
        view.ui, name="menu", title="Menu", status=status(view.state),
        lines=BUTTON_WORDS,
        buttons=buttons, back=CLOSE,
        help=Help("Every prompt names the rulebook page that explains it."),
    )


def phones(view: TableView) -> Screen:
    """One QR code per seat and one for the table: each player's own page on their phone."""
    return _screen(
        view.ui, name="phones", title="Your scores on your phone",
        lines=("Scan your own seat's code with your phone, on the table's Wi-Fi.",),
        codes=view.phones, buttons=(Button("Close", CLOSE, primary=True),), back=CLOSE,
        help=Help("Your page shows your own points, live; the table's shows the board and the moves. Each code is "
                  "new for every game."),
    )


START_NEW = UiCommand.nav("start-new")


def new_game(view: TableView) -> Screen:
    """"New game" asks first, and offers the way back to the game (or its tally)."""
    state = view.state
    actions = len(view.actions) if view.actions is not None else None
    played = f" ({actions} action{'s' if actions != 1 else ''} so far)" if actions is not None else ""
    lines = (f"The game in progress{played} stops here; its record is kept." if not state.over else
             "The final tally stays on the screen until you choose.",
             "Until the new game starts, its set-up still leads back here.")
    return _screen(
        view.ui, name="new_game", title="Start a new game?", status=status(state), lines=lines,
        buttons=(Button("Back to the game", CLOSE, primary=True), Button("Yes — a new game", START_NEW)),
        back=CLOSE, tone=Tone.WARNING,
    )

