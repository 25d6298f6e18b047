"""What each page holds: a seat's own hidden points, never another's; everyone's with open scores."""

from __future__ import annotations

from dataclasses import replace

from games import played

from companion.phone import pages
from companion.phone.view import Links, SeatPage, TablePage, snapshot
from companion.rules import ConflictKind, Game, GameState

MID_GAME = 97  # three-standard: a black war, the attacker has committed, the defender decides


def with_other_points(game: Game, seat: int) -> Game:
    """The same game, but every player other than `seat` with other points and treasures all along."""
    def changed(state: GameState) -> GameState:
        return replace(state, players=tuple(
            p if p.seat == seat else replace(p, points=tuple(n + 7 for n in p.points), treasures=p.treasures + 3)
            for p in state.players))

    other = Game.from_state(game.config, changed(game.state))
    other._states, other._actions = [changed(s) for s in game.states], list(game.actions)  # the history too
    return other


def seat_html(game: Game, links: Links, seat: int) -> str:
    shot = snapshot(game, links, 1)
    token = links.seats[seat]
    shown = shot.page(token)
    assert isinstance(shown, SeatPage) and shown.you.seat == seat
    return pages.page(shot, token, shown)


def test_a_seats_page_holds_its_own_hidden_points_and_nothing_of_the_others() -> None:
    game = played("three-standard", MID_GAME)
    assert not game.config.open_scores
    links = Links.new(3)
    mine = seat_html(game, links, 0)
    you = game.state.players[0]
    assert all(f'<td class="num big">{n}</td>' in mine for n in you.points)
    assert "Scores are hidden." in mine  # the two others'
    assert mine.count('class="num big"') == 5  # four colours and the treasures: one row, seat 0's
    # Whatever the others' hidden points are, seat 0's page is the same, byte for byte...
    assert seat_html(with_other_points(game, 0), links, 0) == mine
    # ...while its own points do show (the check above can fail).
    assert seat_html(with_other_points(game, 1), links, 0) != mine


def test_the_tables_page_shows_no_hidden_points_at_all() -> None:
    game = played("three-standard", MID_GAME)
    links = Links.new(3)
    shot = snapshot(game, links, 1)
    page = pages.page(shot, links.table, shot.table)
    assert page == pages.page(shot, links.table, snapshot(with_other_points(game, -1), links, 1).table)
    assert "Scores are hidden." in page and 'class="num big"' not in page and "→" not in "".join(shot.table.log)


def test_with_open_scores_every_page_shows_everyones_points() -> None:
    game = played("three-standard", MID_GAME, open_scores=True)
    links = Links.new(3)
    mine = seat_html(game, links, 0)
    assert "Scores are hidden." not in mine
    for p in game.state.players:
        assert all(f'<td class="num big">{n}</td>' in mine for n in p.points)
    assert any("→ +" in line for line in snapshot(game, links, 1).table.log)


def test_each_link_opens_its_own_page_and_a_new_game_has_new_links() -> None:
    game = played("four-alternate", 40)
    links, other = Links.new(4), Links.new(4)
    assert len({*links.seats, links.table, *other.seats, other.table}) == 10
    assert all(len(token) >= 22 for token in (*links.seats, links.table))  # 128 random bits
    shot = snapshot(game, links, 3)
    for seat, token in enumerate(links.seats):
        shown = shot.page(token)
        assert isinstance(shown, SeatPage) and shown.you.name == shot.table.players[seat].name
    assert isinstance(shot.page(links.table), TablePage)
    for wrong in (*other.seats, other.table, "", links.seats[0][:-1], links.seats[0] + "A", "../" + links.table):
        assert shot.page(wrong) is None


def test_the_table_page_follows_the_conflict_and_the_moves() -> None:
    game = played("three-standard", MID_GAME)
    links = Links.new(3)
    table = snapshot(game, links, 1).table
    c = table.conflict
    assert c is not None
    assert (c.kind, c.colour, c.attacker_strength, c.defender_strength) == (ConflictKind.WAR, "black", 6, 6)
    html = pages.table(table, links.table)
    assert "attacks Player 3 (pot). On the board: <b>6</b> against <b>6</b>" in html
    assert table.log[-1] == "Player 2: commits 0 tiles to the war" and table.log[-1] in html
    assert html.count("<svg") == 1 and ">P</text>" in html  # the board, with the letters of the columns
