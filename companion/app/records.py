"""Saved game records for the commands that read them (`companion replay`, `companion report`):
the engine's JSON (`companion demo --save`) or a journal (.jsonl), only ever read, never changed."""

from __future__ import annotations

import sys
from pathlib import Path

from companion.app import journal
from companion.app.problems import clip, disk_words
from companion.rules import CompanionError, Game


def load_record(path: Path) -> tuple[Game, tuple[str, ...]]:
    """A game from a saved record, the engine's JSON (`companion demo --save`) or a journal (.jsonl),
    and what of it could not be read. The file is only read, never changed."""
    if path.suffix == ".jsonl":
        record = journal.read(path)
        return record.game, record.warnings
    if path.stat().st_size > journal.MAX_BYTES:
        raise CompanionError(f"{path.name} is too large for a game record.")
    try:
        return Game.from_json(path.read_text(encoding="utf-8")), ()
    except RecursionError:
        raise CompanionError("The game record cannot be read: its values are nested too deeply.") from None


def open_record(path: Path, command: str) -> Game | None:
    """The game in a saved record, for `command`, what of it could not be read said on stderr; None,
    said in words, when it cannot be read at all."""
    try:
        game, warnings = load_record(path)
    except OSError as error:
        print(f"{command}: {path}: {disk_words(error)}", file=sys.stderr)
        return None
    except (CompanionError, ValueError) as error:  # UnicodeDecodeError too
        print(f"{command}: {path}: {clip(str(error), 300)}", file=sys.stderr)
        return None
    for warning in warnings:
        print(f"{command}: {warning}", file=sys.stderr)
    return game
