"""What players see of the game beside the prompt: the move log and the last move, the player strip and
the supply, a tapped kingdom's or leader's strength, kingdoms told apart. Pure view-models, no pixels."""

from __future__ import annotations

from companion.commands import UiCommand
from companion.rules import COLOURS, Colour, Game, Monument, cell_name, parse_cell
from companion.ui import screens
from companion.ui.gallery import play_until
from companion.ui.log import move, recent
from companion.ui.model import MarkKind, UiState
from companion.ui.screens import TableView
from companion.ui.strength import detail
from companion.ui.strip import strip


def named_game(open_scores: bool = False) -> Game:
    return Game.new(2, seed=3, names=("Bull", "Lion"), dynasties=("bull", "lion"), open_scores=open_scores)


def test_a_scoring_tile_reads_as_bga_logs_it_with_points_only_when_scores_are_open() -> None:
    game = named_game()
    game.apply("leader red F4")  # beside the temple on F3
    game.apply("tile red F5")
    line = recent(game)[-1]
    assert line.line(scores_open=True) == "Bull: red temple F5 → +1 red"
    assert line.line(scores_open=False) == "Bull: red temple F5"
    assert line.cells == (parse_cell("F5"),)
    assert recent(game)[0].line(True) == "Bull: red priest to F4"


def test_points_scored_for_another_player_carry_their_name() -> None:
    game = named_game()
    game.apply("leader red F4")
    game.apply("pass")  # Lion's turn: a temple in Bull's kingdom scores for Bull's priest
    hand = game.state.players[1].hand
    assert hand is not None and hand[Colour.RED.index] > 0
    events_before = len(game.actions)
    game.apply("tile red G3")
    assert len(game.actions) == events_before + 1
    assert recent(game)[-1].line(True) == "Lion: red temple G3 → Bull +1 red"


def test_every_kind_of_move_has_words_and_squares() -> None:
    game, _ = play_until(lambda g, events: len(g.actions) >= 120)
    states, actions = game.states, game.actions
    for i, action in enumerate(actions):
        m = move(states[i], action, states[i + 1])
        assert m.player == states[i].players[states[i].pending.player].name
        assert m.what and str(action) != m.what, action  # words, not engine notation
        assert all(0 <= cell < 176 for cell in m.cells)
    assert len(recent(game)) == 8 and recent(game)[-1] == move(states[-2], actions[-1], states[-1])


def test_the_turn_screen_rings_the_last_move_and_logs_recent_ones() -> None:
    game = named_game(open_scores=True)
    game.apply("leader red F4")
    game.apply("tile red F5")
    view = TableView(game.state, game.config, moves=recent(game))
    screen = screens.turn(view)
    assert screen.log == ("Bull: red priest to F4", "Bull: red temple F5 → +1 red")
    assert screen.board is not None and screen.board.marked(MarkKind.LAST) == (parse_cell("F5"),)
    hidden = screens.turn(TableView(game.state, named_game().config, moves=recent(game)))
    assert hidden.log == ("Bull: red priest to F4", "Bull: red temple F5")
    assert not any("point" in line for line in hidden.lines)  # no score leaks beside the log


def test_the_strip_shows_leaders_catastrophes_treasures_and_the_supply() -> None:
    game = named_game()
    game.apply("leader red F4")
    game.apply("catastrophe A1")
    state = game.state
    shown = strip(state, scores_open=False)
    bull, lion = shown.seats
    assert bull.leaders == (("red", True), ("blue", False), ("green", False), ("black", False))
    assert bull.catastrophes == 1 and lion.catastrophes == 2
    assert bull.treasures is None  # behind the screen while scores are hidden
    assert strip(state, scores_open=True).seats[0].treasures == 0
    assert lion.current and not bull.current  # Bull's two actions are done
    supply = shown.supply
    assert supply.bag == state.bag_count and supply.treasures == 10
    assert len(supply.monuments) == len(Monument) == 6
    assert supply.unseen == tuple((c.value, state.unseen(c)) for c in COLOURS)
    assert dict(supply.unseen)["red"] == 57 - 10 - 0  # no red tile played yet; ten started on the board


def test_a_tap_on_a_leader_or_a_kingdom_shows_its_strength_per_colour() -> None:
    g = named_game()
    g.apply("leader red F4")
    g.apply("tile red F5")
    g.apply("tile green G4")
    state = g.state
    f4, g4 = parse_cell("F4"), parse_cell("G4")
    kingdom = detail(state, g4)
    assert kingdom[0] == "Kingdom 1: 2 red · 0 blue · 1 green · 0 black; 1 treasure."
    assert kingdom[1] == "Leaders: Bull's red priest."
    priest = detail(state, f4)
    assert priest[0] == "Bull's red priest on F4, kingdom 1:"
    assert priest[1] == "in a war 2 temples of the kingdom; in a revolt 2 temples beside it."
    assert detail(state, parse_cell("P11")) == ()  # outside every kingdom
    screen = screens.turn(TableView(state, g.config, ui=UiState(pick=g4)))
    assert screen.detail == kingdom
    assert screen.resolve(UiCommand.tap(g4)) == UiCommand.pick(-1)  # tapped again: hidden
    assert screens.turn(TableView(state, g.config)).resolve(UiCommand.tap(f4)) == UiCommand.pick(f4)
    assert screen.board is not None and screen.board.tappable
    assert cell_name(min(screen.board.kingdoms[0])) == "F3"  # the picture numbers kingdom 1 where it starts


def test_a_player_named_after_their_dynasty_is_not_named_twice() -> None:
    game = Game.new(2, seed=1, names=("Archer", "Anna"), dynasties=("archer", "bull"))
    assert screens.status(game.state).startswith("Archer · 2 actions left")
    game.apply("pass")
    game.apply("pass")
    assert screens.status(game.state).startswith("Anna (bull) · 2 actions left")


def test_the_menu_tells_what_the_five_buttons_do() -> None:
    game = named_game()
    words = " ".join(screens.menu(TableView(game.state, game.config, asking="menu")).lines)
    for button in ("up and down", "OK", "Back", "Menu"):
        assert button in words
    assert "hold it to take back" in words


def test_one_tile_left_is_said_in_the_singular() -> None:
    from companion.rules import EventKind

    game = Game.new(2, bag=[Colour.BLACK] * 13)  # six tiles each, one left in the bag
    game.apply("pass")
    events = game.apply("pass")
    low = next(e for e in events if e.kind is EventKind.BAG_LOW)
    assert low.text.startswith("Only 1 tile left in the bag")
