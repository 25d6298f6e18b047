"""A second, deliberately naive reading of the rules, square by square, to cross-check the engine.

It knows nothing of bitboards: it walks the board through `state.square(cell)` with a flood fill, and
says who must score a tile, who supports whom in a conflict, which pieces a war removes and what the
monuments pay at the end of a turn. The golden games are checked against it event by event.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from companion.rules import (
    NO_CELL,
    Action,
    ConflictKind,
    Event,
    EventKind,
    Game,
    GameConfig,
    GameState,
    PendingKind,
    PlaceTile,
    TakeTreasure,
)
from companion.rules.pieces import BLACK, GREEN, RED, Colour

COLUMNS, ROWS = 16, 11


def neighbours(cell: int) -> list[int]:
    col, row = cell % COLUMNS, cell // COLUMNS
    found = []
    for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        c, r = col + dc, row + dr
        if 0 <= c < COLUMNS and 0 <= r < ROWS:
            found.append(r * COLUMNS + c)
    return found


def connects(state: GameState, cell: int) -> bool:
    square = state.square(cell)
    return square.tile is not None or square.leader is not None


def region(state: GameState, start: Iterable[int], without: frozenset[int] = frozenset()) -> set[int]:
    todo = [c for c in start if c not in without and connects(state, c)]
    seen = set(todo)
    while todo:
        cell = todo.pop()
        for other in neighbours(cell):
            if other not in seen and other not in without and connects(state, other):
                seen.add(other)
                todo.append(other)
    return seen


def leaders(state: GameState, cells: set[int]) -> list[tuple[int, Colour, int]]:
    found = []
    for cell in sorted(cells):
        leader = state.square(cell).leader
        if leader is not None:
            found.append((leader[0], leader[1], cell))
    return found


def face_up(state: GameState, cells: set[int], colour: Colour) -> set[int]:
    return {c for c in cells if state.square(c).tile is colour and not state.square(c).face_down}


def tile_scorer(state: GameState, colour: Colour, cell: int) -> int | None:
    """Who scores a tile of `colour` placed on `cell` of `state` (the state before the tile)."""
    kingdoms = []
    for other in neighbours(cell):
        if connects(state, other):
            found = region(state, [other])
            if leaders(state, found) and found not in kingdoms:
                kingdoms.append(found)
    if len(kingdoms) != 1:
        return None  # outside every kingdom, or uniting two: nobody
    by_colour = {leader_colour: seat for seat, leader_colour, _ in leaders(state, kingdoms[0])}
    if colour in by_colour:
        return by_colour[colour]
    return by_colour.get(BLACK)


def war_supporters(state: GameState, leader_cell: int, colour: Colour, uniting: int) -> set[int]:
    return face_up(state, region(state, [leader_cell], frozenset({uniting})), colour)


def revolt_supporters(state: GameState, leader_cell: int) -> set[int]:
    return {c for c in neighbours(leader_cell) if state.square(c).tile is RED and not state.square(c).face_down}


def war_removals(state: GameState, supporters: Iterable[int], colour: Colour) -> set[int]:
    removed = set()
    for cell in supporters:
        if state.square(cell).treasure:
            continue
        if colour is RED and any((s.leader is not None and s.leader[1] is not RED)
                                 for s in (state.square(n) for n in neighbours(cell))):
            continue
        removed.add(cell)
    return removed


def monument_points(state: GameState, seat: int) -> list[tuple[int, Colour]]:
    """(seat, colour) of each point the monuments pay the active player at the end of his turn."""
    paid = []
    for built in state.monuments:
        cells = region(state, [c for c in range(COLUMNS * ROWS) if state.square(c).monument is built.monument])
        for owner, colour, _ in leaders(state, cells):
            if owner == seat and colour in built.monument.colours:
                paid.append((owner, colour))
    return paid


def treasures_owed(state: GameState) -> bool:
    """Whether some kingdom holds a single trader and two or more treasures."""
    done: set[int] = set()
    for player in state.players:
        cell = player.leaders[GREEN.index]
        if cell == NO_CELL or cell in done:
            continue
        cells = region(state, [cell])
        done |= cells
        traders = [c for _, colour, c in leaders(state, cells) if colour is GREEN]
        if len(traders) == 1 and sum(1 for c in cells if state.square(c).treasure) >= 2:
            return True
    return False


def corner_first(state: GameState, cell: int) -> bool:
    """Whether the trader's owner may take the treasure on `cell`: a corner one, or none is left on a corner."""
    trader = state.players[state.pending.player].leaders[GREEN.index]
    cells = region(state, [trader])
    if cell not in cells or not state.square(cell).treasure:
        return False
    return state.square(cell).corner or not any(state.square(c).treasure and state.square(c).corner for c in cells)


def check_game(config: GameConfig, actions: Sequence[Action | str]) -> dict[str, int]:
    """Play `actions` and hold every tile score, conflict, war removal, monument payment and treasure
    obligation (and its moment) against the naive reading above; returns how many of each were checked."""
    game = Game(config)
    counted = {"tiles": 0, "conflicts": 0, "war removals": 0, "ends of turn": 0, "treasure choices": 0,
               "treasure checks": 0}
    for number, text in enumerate(actions, start=1):
        before = game.state
        events = game.apply(text)
        action, after = game.actions[-1], game.state
        where = f"action {number}: {action}"
        if isinstance(action, PlaceTile):
            counted["tiles"] += 1
            scorer = tile_scorer(before, action.colour, action.cell)
            tile_points = [(e.player, e.colour, e.amount) for e in events
                           if e.kind is EventKind.SCORED and e.page is None]
            assert tile_points == ([] if scorer is None else [(scorer, action.colour, 1)]), where
        if isinstance(action, TakeTreasure):
            counted["treasure choices"] += 1
            assert corner_first(before, action.cell), where
        if any(e.kind in (EventKind.WAR_STARTED, EventKind.REVOLT_STARTED) for e in events):
            counted["conflicts"] += 1
            _check_supporters(after, where)
        removed = [e for e in events if e.kind is EventKind.PIECES_REMOVED]
        conflict = before.pending.conflict
        if removed and conflict is not None and conflict.kind is ConflictKind.WAR:
            counted["war removals"] += 1
            _check_war_removal(before, removed[0], events, where)
        if any(e.kind in (EventKind.TURN_ENDED, EventKind.GAME_OVER) for e in events):
            counted["ends of turn"] += 1
            paid = sorted((e.player, e.colour.value) for e in events
                          if e.kind is EventKind.MONUMENT_SCORED and e.colour is not None)
            assert paid == sorted((s, c.value) for s, c in monument_points(after, before.current)), where
        if after.pending.kind in (PendingKind.ACTION, PendingKind.GAME_OVER):
            assert not treasures_owed(after), where
        if any(e.kind is EventKind.TREASURE_TAKEN for e in events) or after.pending.kind is PendingKind.TREASURE:
            # Treasures only once the action is wholly resolved: no war, unification tile or monument left.
            assert after.pending.kind not in (PendingKind.SUPPORT, PendingKind.WAR_ORDER, PendingKind.MONUMENT), where
            assert after.unification == NO_CELL and not after.wars, where
            counted["treasure checks"] += 1
    return counted


def _check_supporters(state: GameState, where: str) -> None:
    conflict = state.pending.conflict
    assert conflict is not None and state.pending.kind is PendingKind.SUPPORT, where
    if conflict.kind is ConflictKind.WAR:
        attack = war_supporters(state, conflict.attacker_leader, conflict.colour, conflict.uniting_tile)
        defence = war_supporters(state, conflict.defender_leader, conflict.colour, conflict.uniting_tile)
    else:
        attack = revolt_supporters(state, conflict.attacker_leader)
        defence = revolt_supporters(state, conflict.defender_leader)
    assert set(conflict.attacker_supporters) == attack, where
    assert set(conflict.defender_supporters) == defence, where


def _check_war_removal(before: GameState, removed: Event, events: list[Event], where: str) -> None:
    conflict = before.pending.conflict
    assert conflict is not None
    defender_won = removed.player == conflict.attacker
    supporters = conflict.attacker_supporters if defender_won else conflict.defender_supporters
    loser_leader = conflict.attacker_leader if defender_won else conflict.defender_leader
    expected = war_removals(before, supporters, conflict.colour) | {loser_leader}
    assert set(removed.cells) == expected, where
    war_points = [e for e in events if e.kind is EventKind.SCORED and e.page == 9]
    winner = conflict.defender if defender_won else conflict.attacker
    assert [(e.player, e.colour, e.amount) for e in war_points] == [(winner, conflict.colour, len(expected))], where
