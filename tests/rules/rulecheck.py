"""Helpers shared by the rules tests: squares by name, events by kind, illegal actions that change nothing."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from companion.rules import Event, EventKind, Game, GameState, IllegalAction, parse_cell
from companion.rules.pieces import BLUE, COLOURS, Colour

# The standard board with nothing on it, to copy into positions: `~` river, `.` land.
BLANK = """
     ABCDEFGHIJKLMNOP
  1  ....~~~~~...~...
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..............~~
  6  ..............~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ................
"""


def sq(name: str) -> int:
    return parse_cell(name)


def squares(*names: str) -> tuple[int, ...]:
    return tuple(sq(n) for n in names)


def names(cells: Iterable[int]) -> list[str]:
    from companion.rules import cell_name

    return sorted(cell_name(c) for c in cells)


def kinds(events: list[Event]) -> list[EventKind]:
    return [e.kind for e in events]


def only(events: list[Event], kind: EventKind) -> Event:
    """The one event of `kind`."""
    found = [e for e in events if e.kind is kind]
    assert len(found) == 1, f"expected one {kind.value} event, got {[str(e) for e in events]}"
    return found[0]


def of_kind(events: list[Event], kind: EventKind) -> list[Event]:
    return [e for e in events if e.kind is kind]


def illegal(game: Game, action: str, reason: str, page: int | None = None, words: str = "") -> IllegalAction:
    """Apply `action`, expect IllegalAction with `reason` and `page`, and check that nothing changed."""
    before, actions = game.state, game.actions
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    error = info.value
    assert error.reason == reason, str(error)
    assert error.page == page, str(error)
    assert words.lower() in str(error).lower(), str(error)
    if page is not None:
        assert str(error).endswith(f"(p. {page})")
    assert game.state is before
    assert game.actions == actions
    return error


def points(game: Game, seat: int) -> dict[str, int]:
    return {c.value: p for c, p in zip(COLOURS, game.state.players[seat].points, strict=True)}


def hand(game: Game, seat: int) -> dict[str, int]:
    held = game.state.players[seat].hand
    assert held is not None
    return {c.value: n for c, n in zip(COLOURS, held, strict=True)}


def leader(game: Game, seat: int, colour: Colour) -> str | None:
    from companion.rules import NO_CELL, cell_name

    where = game.state.players[seat].leader_cell(colour)
    return None if where == NO_CELL else cell_name(where)


def tile_at(game: Game, name: str) -> Colour | None:
    return game.state.square(sq(name)).tile


# --- invariants of every state (random playouts, golden games) -----------------------------------


def check_invariants(state: GameState, previous: GameState | None = None) -> None:
    """What must hold after every action of a full-information game."""
    from companion.rules import NO_CELL, PendingKind
    from companion.rules.board import NEIGHBOURS
    from companion.rules.pieces import CATASTROPHES_PER_PLAYER, HAND_SIZE, TILES_IN_GAME

    players = state.players
    # All 153 tiles are somewhere: face up, face down, in a hand, in the bag or out of the game.
    for colour in COLOURS:
        i = colour.index
        face_down = 4 * sum(1 for m in state.monuments if m.colour is colour)
        in_hands = sum(p.hand[i] for p in players if p.hand is not None)
        in_bag = state.bag.count(colour)
        total = state.tiles[i].bit_count() + face_down + in_hands + in_bag + state.out[i]
        assert total == TILES_IN_GAME[i], f"{colour.value}: {total} tiles accounted for"
    assert state.unknown_out == 0 and state.bag_count == len(state.bag)
    # Squares hold one thing each; blue on the river, the rest on land.
    masks = [*state.tiles, state.facedown, state.catastrophes, state.leader_mask]
    for a in range(len(masks)):
        for b in range(a + 1, len(masks)):
            assert not masks[a] & masks[b], "two things on one square"
    river = state.board.river
    assert state.tiles[1] & ~river == 0 and (state.tiles[0] | state.tiles[2] | state.tiles[3]) & river == 0
    assert state.leader_mask & river == 0
    assert state.facedown == _union(m.squares for m in state.monuments)
    for built in state.monuments:  # face-down farms lie on the river, the rest on land
        assert built.squares & river == (built.squares if built.colour is BLUE else 0)
    assert len({m.monument for m in state.monuments}) == len(state.monuments)
    assert state.treasures & ~(state.tiles[0] | state.facedown) == 0, "a treasure off its temple"
    assert state.treasures.bit_count() + sum(p.treasures for p in players) == state.board.temples.bit_count()
    used = CATASTROPHES_PER_PLAYER * len(players) - sum(p.catastrophes for p in players)
    assert state.catastrophes.bit_count() == used
    # Leaders: where the mask says, each beside a face-up temple.
    cells = [cell for p in players for cell in p.leaders if cell != NO_CELL]
    assert len(set(cells)) == len(cells) and _union(1 << c for c in cells) == state.leader_mask
    for cell in cells:
        assert NEIGHBOURS[cell] & state.tiles[0], "a leader without a temple"
    # Once conflicts are resolved, a kingdom holds at most one leader of each colour.
    if state.pending.kind not in (PendingKind.SUPPORT, PendingKind.WAR_ORDER) and not state.wars:
        for kingdom in state.kingdoms():
            colours = [colour for _, colour, _ in kingdom.leaders]
            assert len(colours) == len(set(colours)), f"two leaders of a colour in one kingdom: {kingdom.leaders}"
        assert state.unification == NO_CELL, "the unification tile outlived the wars"
    # Hands.
    for p in players:
        assert p.hand is not None and sum(p.hand) == p.hand_size and 0 <= p.hand_size <= HAND_SIZE
        assert min(p.hand) >= 0
    if state.pending.kind is PendingKind.ACTION and not state.over:
        assert state.pending.player == state.current and state.pending.actions_left == state.actions_left
    # Scores only grow.
    if previous is not None:
        for before, after in zip(previous.players, players, strict=True):
            assert all(b <= a for b, a in zip(before.points, after.points, strict=True))
            assert before.treasures <= after.treasures


def _union(masks: Iterable[int]) -> int:
    total = 0
    for mask in masks:
        total |= mask
    return total


# One kingdom: a leader "B" on I6 beside three temples (H6, J6, I5), joined through the settlements
# F6 G6; a leader entering on G5 stands beside two (F5, H5). Three treasures far off (A1, P1, P11).
ONE_KINGDOM = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  .....r.rr.....~~
  6  .....kkrBr....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""
