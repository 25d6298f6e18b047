"""The phones' pages as HTML: everything inline (style, script, the board as SVG), nothing from outside.

Each page is a shell around a live part. The shell's small script asks for the live part again every
few seconds with the version it shows (`If-None-Match`); the server answers "not modified" until the
game changes. All text from the game goes through `escape`.
"""

from __future__ import annotations

import base64
import hashlib
from html import escape

from companion.rules import ConflictKind, spread_treasures
from companion.ui.model import LEADER_WORDS, TILE_WORDS

from .view import ConflictView, PlayerView, SeatPage, Snapshot, TablePage

POLL_SECONDS = 2
SYMBOLS = {"red": "▲", "blue": "≈", "green": "●", "black": "■"}
TREASURE = '<span class="gold">◆</span>'
COLOUR_ORDER = ("red", "blue", "green", "black")

STYLE = """
:root{color-scheme:dark}body{margin:0;background:#1c1f24;color:#f5f5f0;font:17px/1.4 sans-serif}
main,header,footer{max-width:56rem;margin:auto;padding:.6rem 1rem}h1{font-size:1.3rem;margin:.2rem 0}
h2{font-size:1.05rem;color:#facd28;margin:1rem 0 .3rem}table{border-collapse:collapse;width:100%}
td,th{padding:.25rem .4rem;border-bottom:1px solid #2c3139;text-align:left}th{color:#b9bec6;font-weight:normal}
.num{text-align:right;font-variant-numeric:tabular-nums}.big{font-size:1.6rem;font-weight:bold}
.chip{display:inline-block;min-width:1.4em;padding:0 .3em;border-radius:.25em;color:#fff;text-align:center}
.red{background:#cd2d28}.blue{background:#2369cd}.green{background:#1e9641}.black{background:#0f0f0f;
border:1px solid #f5f5f0}.turn{background:#287850;padding:.4rem .6rem;border-radius:.3rem}
.panel{background:#2c3139;border-radius:.4rem;padding:.5rem .7rem}.dim{color:#b9bec6}
.board svg,.chart svg{width:100%;height:auto}a{color:#facd28}.gold{color:#facd28}
ol.log{padding-left:1.4rem;margin:.2rem 0}
.note{background:#aa6e00;padding:.4rem .6rem}
"""

SCRIPT = (
    "(function(){var live=document.getElementById('live'),note=document.getElementById('note'),"
    "tag=live.getAttribute('data-version');function say(t){note.textContent=t;note.hidden=!t;}"
    "function poll(){fetch(location.pathname+'/live',{headers:{'If-None-Match':'\"'+tag+'\"'},"
    "cache:'no-store',credentials:'omit'}).then(function(r){if(r.status===200){"
    "tag=(r.headers.get('ETag')||'').replace(/\"/g,'');return r.text().then(function(t){live.innerHTML=t;say('');});}"
    "if(r.status===304){say('');return;}say('This link is not for the game at the table now: scan your seat\\'s "
    "code again (companion menu, Phones).');}).catch(function(){say('The companion cannot be reached: "
    "trying again.');}).then(function(){setTimeout(poll," + str(POLL_SECONDS * 1000) + ");});}"
    "setTimeout(poll," + str(POLL_SECONDS * 1000) + ");})();"
)
SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
# Only our own inline script runs; the page may ask only its own server; no frames, forms or plug-ins.
POLICY = (f"default-src 'none'; script-src '{SCRIPT_HASH}'; style-src 'unsafe-inline'; img-src data:; "
          "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def document(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta name="referrer" content="no-referrer"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body>{body}</body></html>")


def chip(colour: str, text: str | int) -> str:
    return f'<span class="chip {colour}">{SYMBOLS[colour]} {escape(str(text))}</span>'


def page(snapshot: Snapshot, token: str, shown: SeatPage | TablePage) -> str:
    """The whole page a link opens, its live part filled in, with the script that keeps it live."""
    title = f"{shown.you.name} — Tigris & Euphrates" if isinstance(shown, SeatPage) else "The table — Tigris & " \
                                                                                           "Euphrates"
    body = (f'<p id="note" class="note" hidden></p><main id="live" data-version="{snapshot.version}">'
            f"{live(snapshot, token, shown)}</main><script>{SCRIPT}</script>")
    return document(title, body)


def live(snapshot: Snapshot, token: str, shown: SeatPage | TablePage) -> str:
    """The part of a page that follows the game."""
    if isinstance(shown, SeatPage):
        return seat(shown, snapshot.links.table, token)
    return table(shown, token)


# --- a seat's page --------------------------------------------------------------------------------


def seat(shown: SeatPage, table_token: str, token: str) -> str:
    you, game = shown.you, shown.table
    parts = [f"<h1>{escape(you.name)}</h1>"]
    parts.append('<p class="turn">Your turn.</p>' if you.current else f'<p class="dim">{escape(game.status)}</p>')
    parts.append(f"<p>{escape(game.deciding)}</p>")
    if game.conflict is not None:
        parts.append(conflict(game.conflict))
    parts.append("<h2>Your points</h2>" + points_table((you,), own=True))
    parts.append("<h2>In front of you</h2>" + leaders(you))
    parts.append(f'<h2>The game</h2><p>{supply(game)}</p>')
    others = tuple(p for p in game.players if p.seat != you.seat)
    parts.append("<h2>The others</h2>" + players(others, game.scores_open or bool(game.over)))
    parts.append(f'<p><a href="/p/{escape(table_token)}">The table: the board and the moves</a></p>')
    if game.over:
        parts.append(finished(game, token))
    return "".join(parts)


def points_table(shown: tuple[PlayerView, ...], *, own: bool = False) -> str:
    """Points per colour and treasures; with `own`, the score it would make if the game ended now."""
    head = "".join(f'<th class="num">{chip(c, c)}</th>' for c in COLOUR_ORDER)
    rows = []
    for p in shown:
        if p.points is None or p.treasures is None:
            rows.append(f'<tr><td>{escape(p.name)}</td><td colspan="5" class="dim">hidden</td></tr>')
            continue
        cells = "".join(f'<td class="num big">{n}</td>' for n in p.points)
        rows.append(f"<tr><td>{escape(p.name)}</td>{cells}<td class=\"num big\">{p.treasures}</td></tr>")
    table_ = f'<table><tr><th></th>{head}<th class="num">{TREASURE}</th></tr>{"".join(rows)}</table>'
    points, treasures = (shown[0].points, shown[0].treasures) if own and shown else (None, None)
    table_ += f'<p class="dim">{TREASURE} treasures: each one a point of any colour at the end.</p>'
    if points is not None and treasures is not None:
        spread = spread_treasures(points, treasures)
        score = min(n + s for n, s in zip(points, spread, strict=True))
        table_ += (f'<p class="dim">If the game ended now: your weakest colour, with the treasures added where they '
                   f"help most, is {score}.</p>")
    return table_


def leaders(p: PlayerView) -> str:
    items = "".join(f"<li>{chip(c, LEADER_WORDS[c])} " + (f"on {escape(square)}" if square else "in your supply")
                    + "</li>" for c, square in p.leaders)
    return (f"<ul>{items}</ul><p>{p.catastrophes} catastrophe{'s' if p.catastrophes != 1 else ''} left · "
            f"{p.hand} tile{'s' if p.hand != 1 else ''} in your hand</p>")


def supply(game: TablePage) -> str:
    return (f"Bag: {game.bag} tiles · treasures left on the board: {game.treasures_left} (the game ends when only "
            "2 remain or the bag cannot refill a hand)")


def players(shown: tuple[PlayerView, ...], scores: bool) -> str:
    rows = []
    for p in shown:
        on_board = " ".join(chip(c, square) for c, square in p.leaders if square) or '<span class="dim">none</span>'
        turn = " ◀ now" if p.current else ""
        rows.append(f"<tr><td>{escape(p.name)}{turn}</td><td>{on_board}</td><td class=\"num\">{p.catastrophes}</td>"
                    f"<td class=\"num\">{p.hand}</td></tr>")
    table_ = ("<table><tr><th>player</th><th>leaders on the board</th><th class=\"num\">catastrophes</th>"
              f"<th class=\"num\">hand</th></tr>{''.join(rows)}</table>")
    return table_ + (points_table(shown) if scores else '<p class="dim">Scores are hidden.</p>')


def conflict(c: ConflictView) -> str:
    tile = TILE_WORDS["red" if c.kind is ConflictKind.REVOLT else c.colour] + "s"
    committed = ""
    if c.attacker_committed is not None:
        total = c.attacker_strength + c.attacker_committed
        committed = (f" {escape(c.attacker)} added {c.attacker_committed} from hand: {total} in all; "
                     f"{escape(c.defender)} needs {max(0, total - c.defender_strength)} to hold (ties go to the "
                     "defender).")
    return (f'<div class="panel"><b>{chip(c.colour, c.colour)} {c.kind.value}:</b> {escape(c.attacker)} attacks '
            f"{escape(c.defender)}. On the board: <b>{c.attacker_strength}</b> against <b>{c.defender_strength}</b> "
            f"{tile}.{committed}</div>")


def finished(game: TablePage, token: str) -> str:
    return (f'<h2>Game over</h2><p>{escape(game.over)}.</p><p><a href="/p/{escape(token)}/report">The report: the '
            "final tally, the points over the game, the revolts and wars</a></p>")


# --- the table's page -----------------------------------------------------------------------------


def table(game: TablePage, token: str) -> str:
    from .board import board_svg  # the screen's colours come with pygame: not needed for a report

    parts = ["<h1>The table</h1>", f'<p class="turn">{escape(game.status)}</p>', f"<p>{escape(game.deciding)}</p>"]
    if game.conflict is not None:
        parts.append(conflict(game.conflict))
    if game.over:
        parts.append(finished(game, token))
    parts.append(f'<div class="board">{board_svg(game.board)}</div>')
    parts.append(f"<p>{supply(game)}</p>")
    parts.append("<h2>Players</h2>" + players(game.players, game.scores_open or bool(game.over)))
    moves = "".join(f"<li>{escape(line)}</li>" for line in reversed(game.log))
    parts.append(f'<h2>The moves, newest first</h2><ol class="log" reversed>{moves}</ol>')
    return "".join(parts)


# --- pages without a game -------------------------------------------------------------------------


def notice(title: str, text: str) -> str:
    return document(title, f"<main><h1>{escape(title)}</h1><p>{escape(text)}</p></main>")


NOT_THIS_GAME = notice("Scan your code again",
                       "This link is not for the game at the table now: it may be from an earlier game. Open the "
                       "companion's menu, choose Phones, and scan your seat's code.")
WELCOME = notice("Tigris & Euphrates companion",
                 "Each player's page has its own secret link: open the companion's menu, choose Phones, and scan "
                 "your seat's code with your phone's camera.")
