"""The report after a game, from its record alone: the same at the table (the phones' report page) and
afterwards (`companion report FILE`, offline).

`Report.of(config, actions)` replays the game once and keeps what the report tells: the final tally
with the tie-breaks in words, each player's points per colour at the end of every turn, the revolts
and wars (who attacked whom, the totals, the pieces removed), the monuments built and the treasures
taken. `html(report)` makes one self-contained page of it, the record included for download.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from companion.rules import (
    COLOURS,
    Action,
    BuildMonument,
    ConflictKind,
    EventKind,
    Game,
    GameConfig,
    PendingKind,
    PlayerScore,
    Support,
    cell_name,
    final_scores,
)
from companion.ui.model import LEADER_WORDS

from .chart import points_chart
from .pages import chip, document


@dataclass(frozen=True, slots=True)
class Fight:
    """One revolt or war, as it was resolved."""

    turn: int
    kind: ConflictKind
    colour: str
    attacker: str
    defender: str
    attack: tuple[int, int]  # (on the board, from hand)
    defence: tuple[int, int]
    winner: str
    removed: int  # pieces taken off the board: the loser's leader, and in a war its supporters
    points: int  # what the winner scored for it

    @property
    def attack_total(self) -> int:
        return sum(self.attack)

    @property
    def defence_total(self) -> int:
        return sum(self.defence)


@dataclass(frozen=True, slots=True)
class Deed:
    """A monument built or a treasure taken: when, by whom, where."""

    turn: int
    player: str
    what: str  # "the red/blue monument", "a treasure"
    square: str


@dataclass(frozen=True, slots=True)
class Report:
    names: tuple[str, ...]
    turns: tuple[int, ...]  # the turn at whose end each row of `points` was counted; 0 is the start
    points: tuple[tuple[tuple[int, ...], ...], ...]  # [row][seat] → points per colour
    tally: tuple[PlayerScore, ...]  # by rank, then seat
    over: str
    fights: tuple[Fight, ...]
    monuments: tuple[Deed, ...]
    treasures: tuple[Deed, ...]
    actions: int
    record: str  # the game as the engine's JSON: `companion report` and `companion replay` read it

    @classmethod
    def of(cls, config: GameConfig, actions: Sequence[Action | str]) -> Report:
        """Replay the game from its record and keep what the report tells."""
        game = Game(config)
        names = tuple(p.name for p in game.state.players)
        points = {0: tuple(p.points for p in game.state.players)}
        fights: list[Fight] = []
        monuments: list[Deed] = []
        treasures: list[Deed] = []
        for action in actions:
            before = game.state
            events = game.apply(action)
            after = game.state
            points[before.turn] = tuple(p.points for p in after.players)
            turn = before.turn
            conflict = before.pending.conflict
            answered = before.pending.kind is PendingKind.SUPPORT and conflict is not None
            parsed = game.actions[-1]
            if answered and conflict is not None and conflict.attacker_committed is not None \
                    and isinstance(parsed, Support):
                won = next(e for e in events if e.kind is EventKind.CONFLICT_WON)
                removed = next(e for e in events if e.kind is EventKind.PIECES_REMOVED)
                scored = next(e for e in events if e.kind is EventKind.SCORED and e.player == won.player)
                fights.append(Fight(
                    turn, conflict.kind, conflict.colour.value, names[conflict.attacker], names[conflict.defender],
                    (conflict.attacker_strength, conflict.attacker_committed),
                    (conflict.defender_strength, parsed.count), names[won.player or 0], len(removed.cells),
                    scored.amount))
            if isinstance(parsed, BuildMonument):
                monuments.append(Deed(turn, names[before.pending.player], f"the {parsed.monument.value} monument",
                                      cell_name(parsed.cell)))
            treasures += [Deed(turn, names[e.player or 0], "a treasure", cell_name(e.cells[0]))
                          for e in events if e.kind is EventKind.TREASURE_TAKEN]
        tally = tuple(sorted(final_scores(game.state), key=lambda s: (s.rank, s.seat)))
        turns = tuple(sorted(points))
        return cls(names, turns, tuple(points[t] for t in turns), tally, game.state.game_over or "",
                   tuple(fights), tuple(monuments), tuple(treasures), len(game.actions), game.to_json())


# --- the page -------------------------------------------------------------------------------------


def html(report: Report, title: str = "Tigris & Euphrates — the report") -> str:
    """The report as one HTML file that needs nothing else: the chart is SVG, the record a data link."""
    parts = [f"<header><h1>{escape(title)}</h1><p>{escape(_ending(report))}</p></header><main>"]
    parts.append("<h2>The final tally</h2>" + _tally(report.tally))
    parts.append("<h2>Points per colour over the game</h2>"
                 '<p class="dim">At the end of each turn, before the treasures. Each player keeps one line style '
                 "in all four charts.</p>")
    parts.append(f'<div class="chart">{points_chart(report)}</div>')
    parts.append("<h2>Revolts and wars</h2>" + _fights(report.fights))
    parts.append("<h2>Monuments built</h2>" + _deeds(report.monuments, "No monument was built."))
    parts.append("<h2>Treasures taken</h2>" + _deeds(report.treasures, "No treasure was taken."))
    data = base64.b64encode(report.record.encode("utf-8")).decode("ascii")
    parts.append(f'<h2>The record</h2><p><a download="tigris-euphrates-game.json" '
                 f'href="data:application/json;base64,{data}">Download the game record</a> ({report.actions} '
                 "actions): <code>companion replay FILE</code> shows it again, <code>companion report FILE</code> "
                 "makes this report again.</p></main>")
    return document(title, "".join(parts))


def _ending(report: Report) -> str:
    turns = report.turns[-1] if report.turns else 0
    why = f"{report.over}. " if report.over else "The game was not finished. "
    return f"{why}{len(report.names)} players, {turns} turns, {report.actions} actions."


def _tally(tally: Sequence[PlayerScore]) -> str:
    head = "".join(f'<th class="num">{chip(c.value, c.tile_name + "s")}</th>' for c in COLOURS)
    rows = []
    for s in tally:
        cells = "".join(f'<td class="num">{own}{f" +{added}" if added else ""}</td>'
                        for own, added in zip(s.points, s.spread, strict=True))
        rows.append(f"<tr><td>{s.rank}.</td><td>{escape(s.name)}</td>{cells}<td class=\"num\">{s.treasures}</td>"
                    f'<td class="num big">{s.score}</td></tr>')
    words = "".join(f"<li>{escape(s.name)} is {escape(s.tie_break)}.</li>" for s in tally if s.tie_break)
    return (f'<table><tr><th></th><th>player</th>{head}<th class="num">treasures</th><th class="num">score</th></tr>'
            f"{''.join(rows)}</table><p class=\"dim\">+N: the treasures, added where they help most. The score is "
            "the weakest colour; a tie is settled by the next-weakest.</p>" + (f"<ul>{words}</ul>" if words else ""))


def _fights(fights: Sequence[Fight]) -> str:
    if not fights:
        return "<p>No revolt and no war.</p>"
    rows = "".join(
        f"<tr><td class=\"num\">{f.turn}</td><td>{chip(f.colour, f'{f.colour} {f.kind.value}')}</td>"
        f"<td>{escape(f.attacker)}</td><td>{escape(f.defender)}</td>"
        f"<td class=\"num\">{f.attack[0]} + {f.attack[1]} = {f.attack_total}</td>"
        f"<td class=\"num\">{f.defence[0]} + {f.defence[1]} = {f.defence_total}</td><td>{escape(f.winner)}</td>"
        f"<td class=\"num\">{f.removed}</td><td class=\"num\">{f.points}</td></tr>" for f in fights)
    revolts = sum(f.kind is ConflictKind.REVOLT for f in fights)
    return (f"<p>{revolts} revolt{'s' if revolts != 1 else ''} and {len(fights) - revolts} "
            f"war{'s' if len(fights) - revolts != 1 else ''}. The {LEADER_WORDS['red']}s fight revolts with temples; "
            "a war is fought with the tiles of its colour.</p>"
            '<table><tr><th class="num">turn</th><th></th><th>attacker</th><th>defender</th>'
            '<th class="num">attack (board + hand)</th><th class="num">defence</th><th>winner</th>'
            f'<th class="num">pieces removed</th><th class="num">points</th></tr>{rows}</table>')


def _deeds(deeds: Sequence[Deed], none: str) -> str:
    if not deeds:
        return f"<p>{none}</p>"
    rows = "".join(f"<tr><td class=\"num\">{d.turn}</td><td>{escape(d.player)}</td><td>{escape(d.what)}</td>"
                   f"<td>{escape(d.square)}</td></tr>" for d in deeds)
    return f'<table><tr><th class="num">turn</th><th>player</th><th></th><th>square</th></tr>{rows}</table>'
