"""Helpers shared by the rules tests: squares by name, events by kind, illegal actions that change nothing."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from companion.rules import Event, EventKind, Game, IllegalAction, parse_cell
from companion.rules.pieces import COLOURS, Colour

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
