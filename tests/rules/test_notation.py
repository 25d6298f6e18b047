"""The text notation of actions: every kind round-trips, readable mistakes are refused in words."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rulecheck import illegal

from companion.rules import (
    SQUARES,
    Action,
    BuildMonument,
    ChooseWar,
    DeclineMonument,
    Game,
    Monument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Support,
    Swap,
    TakeTreasure,
    Withdraw,
    cell_name,
    parse_cell,
)
from companion.rules.pieces import COLOURS, Colour

RED, BLUE, GREEN, BLACK = Colour

cells = st.integers(0, SQUARES - 1)
colours = st.sampled_from(COLOURS)
actions = st.one_of(
    st.builds(PlaceTile, colours, cells),
    st.builds(PlaceLeader, colours, cells),
    st.builds(Withdraw, colours),
    st.builds(PlaceCatastrophe, cells),
    st.lists(colours, min_size=1, max_size=6).map(lambda tiles: Swap.of(tuple(tiles))),
    st.builds(Swap, st.integers(0, 6)),
    st.just(Pass()),
    st.builds(Support, st.integers(0, 12)),
    st.builds(ChooseWar, colours),
    st.builds(BuildMonument, st.sampled_from(list(Monument)), cells),
    st.just(DeclineMonument()),
    st.builds(TakeTreasure, cells),
)


@given(actions)
def test_every_action_round_trips_through_its_text(action: Action) -> None:
    text = str(action)
    assert Action.parse(text) == action
    assert Action.parse(text.upper()) == action  # squares and words in any case
    assert Action.parse(f"  {text}  ") == action
    assert text == text.strip() and "  " not in text


@given(cells)
def test_squares_round_trip_through_their_names(cell: int) -> None:
    assert parse_cell(cell_name(cell)) == cell
    assert parse_cell(cell_name(cell).lower()) == cell


@pytest.mark.parametrize(("text", "action"), [
    ("tile red F7", PlaceTile(RED, parse_cell("F7"))),
    ("leader black A2", PlaceLeader(BLACK, parse_cell("A2"))),
    ("withdraw black", Withdraw(BLACK)),
    ("catastrophe F7", PlaceCatastrophe(parse_cell("F7"))),
    ("swap red red blue", Swap(3, (RED, RED, BLUE))),
    ("swap blue red red", Swap(3, (RED, RED, BLUE))),
    ("swap 3", Swap(3)),
    ("pass", Pass()),
    ("support 3", Support(3)),
    ("war red", ChooseWar(RED)),
    ("monument red/blue E7", BuildMonument(Monument.RED_BLUE, parse_cell("E7"))),
    ("monument blue/red E7", BuildMonument(Monument.RED_BLUE, parse_cell("E7"))),
    ("no-monument", DeclineMonument()),
    ("treasure B2", TakeTreasure(parse_cell("B2"))),
])
def test_the_examples_of_the_design(text: str, action: Action) -> None:
    assert Action.parse(text) == action


def test_squares_are_named_as_on_the_board() -> None:
    assert parse_cell("B2") == 17 and cell_name(17) == "B2"
    assert parse_cell("A1") == 0 and parse_cell("P11") == 175
    assert (parse_cell("F7") % 16, parse_cell("F7") // 16) == (5, 6)


@pytest.mark.parametrize(("text", "words"), [
    ("", "empty"),
    ("jump F7", "unknown action"),
    ("tile purple F7", "not a colour"),
    ("tile red Q7", "not a square"),
    ("tile red F12", "not a square"),
    ("tile red F0", "not a square"),
    ("tile red", "cannot read"),
    ("tile red F7 G7", "unexpected"),
    ("support many", "number"),
    ("monument red E7", "not a monument"),
    ("monument red/red E7", "not a monument"),
    ("swap", "which tiles"),
    ("pass now", "unexpected"),
])
def test_unreadable_actions_are_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Action.parse(text)
    game = Game.new(2, seed=1)
    illegal(game, text, "unreadable", None, words)
