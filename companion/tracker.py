"""The tracker: what happened on the board, from the state the rules expect and what the camera read.

Pure logic, no I/O. The engine is the judge: every candidate explanation is tried on a copy of the
game, so the tracker knows no rule of its own. It also remembers what the physical board shows
(`Tracker.shown`): after a war, a catastrophe or a monument the rules have moved on, but the pieces
stay on the table until a player lifts them — those squares are *owed* and are waited for, never
read as a new move.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice

from vision.reading import CELLS, BoardReading, CellClass, CellReading

from .rules import (
    COLOURS,
    NO_CELL,
    Action,
    BuildMonument,
    Colour,
    EventKind,
    Game,
    GameConfig,
    GameState,
    IllegalAction,
    PendingKind,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    TakeTreasure,
    Withdraw,
    block_cells,
    cell_name,
    cells_of,
    legal_actions,
)

TILE_CLASS = dict(zip(COLOURS, (CellClass.TILE_RED, CellClass.TILE_BLUE, CellClass.TILE_GREEN,
                                CellClass.TILE_BLACK), strict=True))
LEADER_CLASS = dict(zip(COLOURS, (CellClass.LEADER_RED, CellClass.LEADER_BLUE, CellClass.LEADER_GREEN,
                                  CellClass.LEADER_BLACK), strict=True))
_MONUMENT_PARTS = (CellClass.MONUMENT, CellClass.FACE_DOWN)
# Events after which pieces may stay on the table until a player lifts or turns them.
_PHYSICAL_CHORES = frozenset({EventKind.PIECES_REMOVED, EventKind.LEADER_EXILED, EventKind.UNIFICATION_REMOVED,
                              EventKind.TREASURE_TAKEN, EventKind.MONUMENT_BUILT})
# Moves a camera sees on the board; every other action is a decision on the buttons.
_BOARD_MOVES = (PlaceTile, PlaceLeader, Withdraw, PlaceCatastrophe)
# Two actions change at most a dozen squares (two catastrophes each stranding leaders, a tile and its
# monument, a leader moved): more than that is a bumped board or a misread, not a move to search for.
MOST_CHANGED = 12
MOST_UNSEEN = 2  # squares one action may have changed unseen (a leader moved: the square it left)
# Pending decisions the camera cannot see: a search for a second action stops there.
_BUTTON_DECISIONS = frozenset({PendingKind.SUPPORT, PendingKind.WAR_ORDER, PendingKind.MONUMENT})


@dataclass(frozen=True, slots=True)
class Look:
    """What one square should show the camera. `also` is a second class just as good: the tile under
    the unification tile, or face-down tiles before the monument is set on them."""

    cls: CellClass
    dynasty: str | None = None
    monument: tuple[str, str] | None = None
    also: CellClass | None = None

    def fits(self, seen: CellReading) -> bool:
        if seen.cls is not self.cls and seen.cls is not self.also:
            return False
        if seen.dynasty is not None and self.dynasty is not None and seen.dynasty != self.dynasty:
            return False
        return seen.monument is None or self.monument is None or set(seen.monument) == set(self.monument)

    def seen(self) -> CellReading:
        """What a camera sure of this square reads there."""
        return CellReading(self.cls, 1.0, self.dynasty, self.monument)

    def describe(self) -> str:
        if self.cls.is_leader and self.dynasty:
            return f"the {self.cls.value} ({self.dynasty})"
        if self.cls is CellClass.MONUMENT and self.monument:
            return f"the {'/'.join(self.monument)} monument"
        return f"the {self.cls.value}" if not self.cls.is_empty else self.cls.value


EMPTY_LAND = Look(CellClass.EMPTY_LAND)
EMPTY_RIVER = Look(CellClass.EMPTY_RIVER)


def monument_squares(state: GameState) -> frozenset[int]:
    """The squares of the monuments built and of those the active player may build now: the only
    places a face-down tile can lie (`Observer.face_down`)."""
    squares = {cell for built in state.monuments for cell in cells_of(built.squares)}
    for option in state.pending.options:
        if isinstance(option, BuildMonument):
            squares.update(block_cells(option.cell))
    return frozenset(squares)


def tall_squares(state: GameState) -> frozenset[int]:
    """Where tall pieces stand or may stand now: the monuments built, those the active player may
    build, and the leaders (figures in the modern edition). Tall pieces lean outwards at the board's
    edge and the camera may not make them out there: the observer must not take them for an arm
    reaching in (`Observer.tall`)."""
    return monument_squares(state) | frozenset(cells_of(state.leader_mask))


def expected_cells(state: GameState) -> tuple[Look, ...]:
    """What each of the 176 squares shows when the board is exactly as the state says."""
    river = state.board.river
    looks = [EMPTY_RIVER if river >> cell & 1 else EMPTY_LAND for cell in range(CELLS)]
    for colour, mask in zip(COLOURS, state.tiles, strict=True):
        tile = Look(TILE_CLASS[colour])
        for cell in cells_of(mask):
            looks[cell] = tile
    for cell in cells_of(state.treasures):
        looks[cell] = Look(CellClass.TREASURE)
    for built in state.monuments:
        part = Look(CellClass.MONUMENT, monument=(built.monument.colours[0].value, built.monument.colours[1].value),
                    also=CellClass.FACE_DOWN)
        for cell in cells_of(built.squares):
            looks[cell] = part
    if state.unification != NO_CELL:
        looks[state.unification] = Look(CellClass.UNIFICATION, also=looks[state.unification].cls)
    for cell in cells_of(state.catastrophes):
        looks[cell] = Look(CellClass.CATASTROPHE)
    for player in state.players:
        for colour, where in zip(COLOURS, player.leaders, strict=True):
            if where != NO_CELL:
                looks[where] = Look(LEADER_CLASS[colour], dynasty=player.dynasty)
    return tuple(looks)


# --- what the tracker tells the controller ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Owed:
    """A square the players must still put right after the rules moved on."""

    cell: int
    shown: Look
    wanted: Look

    def __str__(self) -> str:
        where = cell_name(self.cell)
        wanted, shown = self.wanted.cls, self.shown.cls
        if wanted in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER):
            return f"remove {self.shown.describe()} from {where}"
        if wanted in _MONUMENT_PARTS:  # a treasure stays on a face-down tile (RULES.md 6)
            return f"turn the tile on {where} face down under {self.wanted.describe()}"
        if shown is CellClass.TREASURE:
            return f"take the treasure from {where}"
        if shown is CellClass.UNIFICATION:
            return f"take the unification tile off {where}"
        return f"put {self.wanted.describe()} on {where} instead of {self.shown.describe()}"


@dataclass(frozen=True, slots=True)
class Difference:
    cell: int
    expected: Look
    seen: CellReading

    def __str__(self) -> str:
        return f"{cell_name(self.cell)} shows {self.seen.cls.value}, expected {self.expected.describe()}"


class Outcome:
    """Base of what a reconciliation found."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Steady(Outcome):
    """The board matches the state; `owed` lists what the players must still remove or turn."""

    owed: tuple[Owed, ...] = ()


@dataclass(frozen=True, slots=True)
class Unclear(Outcome):
    """No usable reading, or squares read with low confidence: wait for a better look, or ask."""

    message: str
    cells: tuple[int, ...] = ()
    ask: bool = False  # the same squares stayed unclear too long: ask the players


@dataclass(frozen=True, slots=True)
class Explained(Outcome):
    """The legal action(s) that explain the change. `complete` is False when a decision the camera
    cannot see (support, war order, monument) stands between them and the rest of the change."""

    actions: tuple[Action, ...]
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Ambiguous(Outcome):
    """Several legal explanations lead to different games: the players choose."""

    options: tuple[tuple[Action, ...], ...]
    cells: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Mismatch(Outcome):
    """No legal continuation explains the board. `rule` is the rule a placement breaks, when one does."""

    differences: tuple[Difference, ...]
    rule: str | None = None
    page: int | None = None

    @property
    def cells(self) -> tuple[int, ...]:
        return tuple(d.cell for d in self.differences)


@dataclass(frozen=True, slots=True)
class Takeback(Outcome):
    """The board went back to how it was before the last `steps` actions: offer to undo them."""

    steps: int


# --- the tracker ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Tracker:
    """Reconciles readings with the game. `shown` is what the table shows, as last confirmed."""

    shown: tuple[Look, ...]
    patience: int = 3  # unclear readings in a row before the players are asked
    _unclear_streak: int = field(default=0, repr=False)

    @classmethod
    def start(cls, state: GameState, patience: int = 3) -> Tracker:
        return cls(expected_cells(state), patience)

    @classmethod
    def resume(cls, game: Game, patience: int = 3) -> Tracker:
        """The tracker of a game rebuilt from its record after a power cut. What the table showed is not
        recorded, but the pieces the rules sent off since the last move on the board are re-derived: that
        move and the decisions after it are taken back and applied again (the same events come out),
        and each square they cleared still shows its piece, unless a later action changed it. The
        first reading confirms which of them the players had already lifted."""
        actions = game.actions
        start = next((i for i in range(len(actions) - 1, -1, -1) if isinstance(actions[i], _BOARD_MOVES)), 0)
        for _ in actions[start:]:
            game.undo()
        steps = []
        for action in actions[start:]:
            before = expected_cells(game.state)
            chores = {cell for event in game.apply(action) if event.kind in _PHYSICAL_CHORES for cell in event.cells}
            steps.append((before, expected_cells(game.state), chores))
        final = expected_cells(game.state)
        shown = list(final)
        for before, after, chores in reversed(steps):  # the earliest removal says what still stands there
            for cell in chores:
                if after[cell] == final[cell]:
                    shown[cell] = before[cell]
        return cls(tuple(shown), patience)

    def owed(self, state: GameState) -> tuple[Owed, ...]:
        expected = expected_cells(state)
        return tuple(Owed(cell, self.shown[cell], expected[cell])
                     for cell in range(CELLS) if self.shown[cell] != expected[cell])

    def commit(self, state: GameState, reading: BoardReading | None = None) -> None:
        """The game is now `state`: remember which squares the reading confirms."""
        if reading is None or not reading.ok:
            return
        expected = expected_cells(state)
        low = set(reading.low_confidence)
        self.shown = tuple(
            wanted if cell not in low and wanted.fits(seen) else shown
            for cell, (wanted, shown, seen) in enumerate(zip(expected, self.shown, reading.cells, strict=True))
        )

    def reconcile(self, state: GameState, reading: BoardReading, *, earlier: Sequence[GameState] = ()) -> Outcome:
        """Explain `reading` from `state`. `earlier` are the states before each of the last actions (the
        latest last), so a board put back the way it was is offered as a takeback."""
        outcome = self._reconcile(state, reading, earlier)
        if not isinstance(outcome, Unclear):
            self._unclear_streak = 0
        return outcome

    def _unclear(self, cells: Sequence[int]) -> Unclear:
        """Squares to look at again; the players are asked when they stay unclear `patience` looks."""
        self._unclear_streak += 1
        names = ", ".join(cell_name(c) for c in cells)
        return Unclear(f"I cannot see {names} clearly", tuple(cells), self._unclear_streak >= self.patience)

    def _reconcile(self, state: GameState, reading: BoardReading, earlier: Sequence[GameState]) -> Outcome:
        if not reading.ok:
            return Unclear(reading.message or reading.status.value)
        if len(reading.cells) != CELLS:
            return Unclear(f"The reading has {len(reading.cells)} squares instead of {CELLS}.")
        expected = expected_cells(state)
        owed_now = frozenset(c for c in range(CELLS) if self.shown[c] != expected[c])
        low = frozenset(reading.low_confidence)
        unclear = tuple(sorted(low & _mutable(state, owed_now)))
        if unclear:
            return self._unclear(unclear)
        # An unreadable square that no legal action of these players can change shows what it showed.
        seen = tuple(CellReading(expected[c].cls, 0.0, expected[c].dynasty, expected[c].monument) if c in low
                     else _standing(reading.cells[c], expected[c], self.shown[c]) for c in range(CELLS))
        changed = [c for c in range(CELLS) if not expected[c].fits(seen[c]) and not self.shown[c].fits(seen[c])]
        if not changed:
            return Steady(tuple(o for o in self.owed(state) if not o.wanted.fits(seen[o.cell])))
        for steps, before in enumerate(reversed(earlier), start=1):
            if self._fits(expected_cells(before), seen, owed_now):
                return Takeback(steps)
        if len(changed) > MOST_CHANGED:
            return self._mismatch(state, expected, seen, changed)
        full, partial = self._explain(state, seen, changed, owed_now)
        if len(full) == 1:
            return Explained(full[0])
        if full:
            return Ambiguous(tuple(full), tuple(changed))
        if len(partial) == 1:
            return Explained(partial[0], complete=False)
        if partial:
            return Ambiguous(tuple(partial), tuple(changed))
        unseen = self._unseen(state, seen, changed, owed_now, reading.changed)
        if unseen:
            return self._unclear(unseen)
        return self._mismatch(state, expected, seen, changed)

    # --- the search ------------------------------------------------------------------------------

    def _fits(self, expected: Sequence[Look], seen: Sequence[CellReading], stale: frozenset[int]) -> bool:
        """Every square shows what `expected` wants, or still shows its old piece where that is allowed."""
        return next(self._misfits(expected, seen, stale), None) is None

    def _misfits(self, expected: Sequence[Look], seen: Sequence[CellReading], stale: frozenset[int]) -> Iterator[int]:
        """The squares that show neither what `expected` wants nor, where that is allowed, their old piece."""
        shown = self.shown
        return (cell for cell, (want, s) in enumerate(zip(expected, seen, strict=True))
                if not (want.fits(s) or (cell in stale and shown[cell].fits(s))))

    def _explain(self, state: GameState, seen: Sequence[CellReading], changed: Sequence[int],
                 owed: frozenset[int]) -> tuple[list[tuple[Action, ...]], list[tuple[Action, ...]]]:
        """Sequences of one or two legal actions that explain the reading fully, and single actions that
        explain part of it before a decision only the buttons can give."""
        full: dict[GameState, tuple[Action, ...]] = {}
        partial: dict[GameState, tuple[Action, ...]] = {}
        for first, after, stale in _steps(state, seen, changed, owed):
            expected = expected_cells(after)
            if self._fits(expected, seen, stale):
                full.setdefault(after, (first,))
                continue
            if any(len(found) == 1 for found in full.values()):
                continue
            rest = [c for c in changed if not expected[c].fits(seen[c])]
            if after.pending.kind in _BUTTON_DECISIONS:
                partial.setdefault(after, (first,))
            for second in _candidates(after, seen, rest):
                step2 = _try(after, [second])
                if step2 is None:
                    continue
                final, chores2 = step2
                if self._fits(expected_cells(final), seen, stale | chores2):
                    full.setdefault(final, (first, second))
        # One action explains it: two that look the same on the table (withdraw and place again
        # instead of moving) would spend an action the players did not mean to spend.
        shortest = min((len(found) for found in full.values()), default=0)
        return [found for found in full.values() if len(found) == shortest], ([] if full else list(partial.values()))

    def _unseen(self, state: GameState, seen: Sequence[CellReading], changed: Sequence[int], owed: frozenset[int],
                looked: Sequence[int] | None) -> tuple[int, ...]:
        """The squares where one legal action that explains every change seen leaves another piece,
        or none, than the camera names, when it did not see them change (`looked`: the squares it
        did; None when it read the whole board): a piece lifted where the light changed little from
        the agreed picture to tell (never-tuned-on game 1302: a black leader moved out of a shadow
        that fell as it was lifted, read still standing, and the move was no legal one)."""
        if looked is None:
            return ()
        seen_change, found = set(looked), set()
        for _, after, stale in _steps(state, seen, changed, owed):
            off = set(islice(self._misfits(expected_cells(after), seen, stale), MOST_UNSEEN + 1))
            if len(off) <= MOST_UNSEEN and not off & seen_change:
                found |= off
        return tuple(sorted(found))

    def _mismatch(self, state: GameState, expected: Sequence[Look], seen: Sequence[CellReading],
                  changed: Sequence[int]) -> Mismatch:
        differences = tuple(Difference(c, expected[c], seen[c]) for c in changed)
        for cell in changed:
            placement = _placement(cell, seen[cell])
            # Only a piece on a square that should be empty is a placement; anything else is a misread
            # or a knocked piece (catastrophes alone may cover a tile).
            if placement is None or not (expected[cell].cls.is_empty
                                         or isinstance(placement, PlaceCatastrophe)):
                continue
            owner = state.players[state.pending.player]
            dynasty = seen[cell].dynasty
            if isinstance(placement, PlaceLeader) and dynasty is not None and dynasty != owner.dynasty:
                return Mismatch(differences, f"The leader on {cell_name(cell)} shows the {dynasty}, but it is "
                                f"{owner.name}'s turn ({owner.dynasty}).")
            try:
                _game(state).apply(placement)
            except IllegalAction as error:
                return Mismatch(differences, error.message, error.page)
        return Mismatch(differences)


def _mutable(state: GameState, owed: frozenset[int]) -> frozenset[int]:
    """Squares whose content the players may change now: empty squares, the leaders of the player
    to move (and of the next one when a quick second action could be theirs), tiles while a
    catastrophe can still fall on them, the squares of a pending choice, and pieces owed."""
    cells = set(cells_of(state.empty)) | owed
    seats = [state.current]
    if state.actions_left < 2:
        seats.append((state.current + 1) % len(state.players))
    for seat in seats:
        cells.update(c for c in state.players[seat].leaders if c != NO_CELL)
    if any(state.players[seat].catastrophes for seat in seats):
        for mask in state.tiles:
            cells.update(cells_of(mask & ~state.treasures))
    for option in state.pending.options:
        if isinstance(option, TakeTreasure):
            cells.add(option.cell)
        elif isinstance(option, BuildMonument):
            cells.update(block_cells(option.cell))
    return frozenset(cells)


def _game(state: GameState) -> Game:
    config = GameConfig(players=len(state.players), hidden_hands=state.hidden_hands,
                        english_support=state.english_support)
    return Game.from_state(config, state)


def _try(state: GameState, actions: Iterable[Action]) -> tuple[GameState, frozenset[int]] | None:
    """The state after `actions` and the squares whose pieces the rules sent off the board."""
    game = _game(state)
    chores: set[int] = set()
    try:
        for action in actions:
            for event in game.apply(action):
                if event.kind in _PHYSICAL_CHORES:
                    chores.update(event.cells)
    except IllegalAction:
        return None
    return game.state, frozenset(chores)


def _steps(state: GameState, seen: Sequence[CellReading], changed: Sequence[int],
           owed: frozenset[int]) -> Iterator[tuple[Action, GameState, frozenset[int]]]:
    """Each legal action the camera could have seen (`_candidates`), the state after it, and the
    squares that may still show their old piece: those owed, and those whose pieces it sent off."""
    for action in _candidates(state, seen, changed):
        step = _try(state, [action])
        if step is not None:
            yield action, step[0], owed | step[1]


def _standing(seen: CellReading, expected: Look, shown: Look) -> CellReading:
    """A leader read where the game has the leader of that colour standing, as the table shows it,
    with another dynasty's symbol: no action puts another player's leader of the colour on the square
    one stands on, so the symbol, a few pixels across, was misread, and the leader is the one standing
    (never-tuned-on game 1394: the archer's blue leader read as the lion's, the pot's red one as the
    bull's, and the players were shown a mismatch they could only answer by pointing at it)."""
    if (seen.cls.is_leader and seen.cls is expected.cls and shown == expected
            and seen.dynasty is not None and seen.dynasty != expected.dynasty):
        return replace(seen, dynasty=expected.dynasty)
    return seen


def _placement(cell: int, seen: CellReading) -> Action | None:
    """The action that would put what `seen` shows onto `cell`."""
    colour = seen.cls.colour
    if colour is not None:
        kind = PlaceLeader if seen.cls.is_leader else PlaceTile
        return kind(Colour(colour), cell)
    if seen.cls is CellClass.CATASTROPHE:
        return PlaceCatastrophe(cell)
    return None


def _candidates(state: GameState, seen: Sequence[CellReading], changed: Sequence[int]) -> list[Action]:
    """Legal actions the camera could have seen that touch a changed square the way it now looks."""
    at = set(changed)
    found: list[Action] = []
    for action in legal_actions(state):
        if isinstance(action, PlaceTile):
            ok = action.cell in at and seen[action.cell].cls in (TILE_CLASS[action.colour], CellClass.UNIFICATION,
                                                                 *_MONUMENT_PARTS)
        elif isinstance(action, PlaceLeader):
            ok = action.cell in at and seen[action.cell].cls is LEADER_CLASS[action.colour]
        elif isinstance(action, Withdraw):
            ok = state.players[state.current].leader_cell(action.colour) in at
        elif isinstance(action, PlaceCatastrophe):
            ok = action.cell in at and seen[action.cell].cls is CellClass.CATASTROPHE
        elif isinstance(action, BuildMonument):
            ok = any(c in at and seen[c].cls in _MONUMENT_PARTS and _monument_fits(action, seen[c])
                     for c in block_cells(action.cell))
        elif isinstance(action, TakeTreasure):
            ok = action.cell in at and seen[action.cell].cls is CellClass.TILE_RED
        else:
            ok = False  # swaps, passes, support, war order and declining a monument come from the buttons
        if ok:
            found.append(action)
    return found


def _monument_fits(action: BuildMonument, seen: CellReading) -> bool:
    colours = {c.value for c in action.monument.colours}
    return seen.monument is None or set(seen.monument) == colours
