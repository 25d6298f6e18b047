"""The game record: an append-only JSON Lines file that survives the plug being pulled.

Line 1 is a header with the game configuration and the start time; then one line per applied
action, `{"seq": n, "action": "tile red F7", "time": ..., "reading": ...}`, or per takeback,
`{"seq": n, "undo": true, "time": ...}`. Each line is flushed and fsynced before `apply` returns,
so the screen never shows a move that a power cut could lose. Replaying the lines in order lands
on the same state; a finished game's file stays on disk as the exportable game record.
"""

from __future__ import annotations

import errno
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from companion.app.atomic import write_atomic
from companion.rules import Action, CompanionError, Event, Game, GameConfig, IllegalAction

log = logging.getLogger(__name__)

FORMAT = "te-companion game record"
VERSION = 1
SUFFIX = ".jsonl"


class JournalError(CompanionError, OSError):
    """The game record could not be written or read; str() is a sentence for the players.

    `errno` is the cause's (ENOSPC for a full card), or None.
    """


class JournalDamaged(JournalError):
    """A line that is not the last one cannot be read: the record was damaged, not merely cut."""


@dataclass(frozen=True)
class Resumed:
    game: Game
    journal: Journal
    started: datetime
    warnings: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        count = len(self.game.actions)
        return f"Resuming the game started {self.started:%H:%M} — {count} action{'s' * (count != 1)}"


class Journal:
    """Appends to one game's record. Use `Journal.start` for a new game, `resume` for an old one."""

    def __init__(self, path: Path, seq: int) -> None:
        self.path = path
        self.seq = seq
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)

    @classmethod
    def start(cls, directory: str | os.PathLike[str], game: Game, now: datetime | None = None) -> Journal:
        """A new record for `game` (not yet played) in `directory`, its header safely on disk."""
        started = (now or datetime.now()).astimezone()
        folder = Path(directory)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = _free_name(folder, started)
            header = {"format": FORMAT, "version": VERSION, "started": started.isoformat(timespec="seconds"),
                      "config": game.config.to_dict()}
            # Written whole or not at all: a record never starts with half a header.
            write_atomic(path, _line(header))
        except OSError as error:
            raise _player_error(error, "the new game could not be started") from error
        journal = cls(path, seq=0)
        for action in game.actions:
            journal.apply_recorded(action)
        return journal

    def apply(self, game: Game, action: Action | str, reading: object = None) -> list[Event]:
        """Apply `action` to `game` and record it; if it cannot be recorded, the game is left unchanged.

        Raises IllegalAction (nothing recorded) or JournalError (the move is taken back).
        """
        events = game.apply(action)
        try:
            self.apply_recorded(game.actions[-1], reading)
        except JournalError:
            game.undo()
            raise
        return events

    def apply_recorded(self, action: Action, reading: object = None) -> None:
        entry: dict[str, Any] = {"seq": self.seq + 1, "action": str(action), "time": _now()}
        if reading is not None:
            entry["reading"] = reading_to_json(reading)
        self._append(entry, "the last move was not saved")

    def undo(self, game: Game) -> Action:
        """Take back the last action in `game` and record the takeback."""
        taken_back = game.undo()
        try:
            self._append({"seq": self.seq + 1, "undo": True, "time": _now()}, "the takeback was not saved")
        except JournalError:
            game.apply(taken_back)
            raise
        return taken_back

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _append(self, entry: dict[str, Any], what: str) -> None:
        data = _line(entry)
        size = os.fstat(self._fd).st_size
        try:
            written = 0
            while written < len(data):
                written += os.write(self._fd, data[written:])
            os.fsync(self._fd)
        except OSError as error:
            # Cut off whatever part of the line got out, so the record still ends on a whole line.
            try:
                os.ftruncate(self._fd, size)
                os.fsync(self._fd)
            except OSError:
                log.exception("could not cut a half-written line from %s", self.path)
            raise _player_error(error, what) from error
        self.seq += 1


def resume(path: str | os.PathLike[str]) -> Resumed:
    """Rebuild the game from its record, dropping a last line cut by a power cut (with a warning)."""
    record = Path(path)
    try:
        data = record.read_bytes()
    except OSError as error:
        raise _player_error(error, f"the game record {record.name} could not be read") from error
    lines = data.split(b"\n")
    # After the last newline: b"" when the file ends cleanly, else the start of a line that was cut.
    tail = lines.pop()
    warnings: list[str] = []
    if tail:
        lines.append(tail)
    entries: list[dict[str, Any]] = []
    good_size = 0
    for number, raw in enumerate(lines, start=1):
        entry = _parse(raw)
        is_last = number == len(lines)
        if entry is None or (is_last and tail):
            if is_last and number > 1:
                warnings.append(f"The last line of {record.name} was cut off (the power went out while "
                                "it was being saved); that move was dropped — check the board against the "
                                "screen.")
                break
            raise JournalDamaged(f"The game record {record.name} is damaged at line {number}; it was left as "
                                 "it is. Start a new game, or repair the line in a text editor.")
        entries.append(entry)
        good_size += len(raw) + 1
    header, moves = entries[0], entries[1:]
    if header.get("format") != FORMAT:
        raise JournalDamaged(f"{record.name} is not a game record of this companion (line 1).")
    game = _replay(record.name, header, moves)
    for warning in warnings:
        log.warning("%s", warning)
    if good_size < len(data):
        with open(record, "r+b") as file:
            file.truncate(good_size)
            file.flush()
            os.fsync(file.fileno())
    started = datetime.fromisoformat(header["started"])
    return Resumed(game, Journal(record, seq=len(moves)), started, tuple(warnings))


def unfinished(directory: str | os.PathLike[str]) -> Path | None:
    """The newest game record, when its game is not over (starting a new game abandons older ones)."""
    records = sorted(Path(directory).glob("game-*" + SUFFIX))
    if not records:
        return None
    newest = records[-1]
    try:
        resumed = resume(newest)
    except JournalDamaged:
        return newest  # the players must hear about it, not lose it silently
    resumed.journal.close()
    return None if resumed.game.state.over else newest


def reading_to_json(reading: object) -> Any:
    """A board reading as compact JSON: each cell's class name and confidence."""
    if isinstance(reading, Mapping):
        return dict(reading)
    from vision.reading import BoardReading

    if isinstance(reading, BoardReading):
        return {
            "status": reading.status.value,
            "time": reading.time,
            "cells": [[cell.cls.value, round(cell.confidence, 3)] for cell in reading.cells],
            "low_confidence": list(reading.low_confidence),
        }
    raise TypeError(f"cannot record a reading of type {type(reading).__name__}")


def _replay(name: str, header: dict[str, Any], moves: list[dict[str, Any]]) -> Game:
    try:
        game = Game(GameConfig.from_dict(header["config"]))
    except (KeyError, TypeError, ValueError) as error:
        raise JournalDamaged(f"The game record {name} has a damaged header (line 1): {error}") from error
    for number, entry in enumerate(moves, start=2):
        try:
            if entry.get("seq") != number - 1:
                raise ValueError(f"expected move number {number - 1}, found {entry.get('seq')!r}")
            if entry.get("undo") is True:
                game.undo()
            else:
                game.apply(Action.parse(entry["action"]))
        except (KeyError, TypeError, ValueError, IndexError, IllegalAction) as error:
            raise JournalDamaged(f"The game record {name} is damaged at line {number}: {error}") from error
    return game


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        entry = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return entry if isinstance(entry, dict) else None


def _line(entry: Mapping[str, Any]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="milliseconds")


def _free_name(folder: Path, started: datetime) -> Path:
    stem = f"game-{started:%Y%m%d-%H%M%S}"
    path = folder / (stem + SUFFIX)
    number = 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}{SUFFIX}"
    return path


def _player_error(error: OSError, what: str) -> JournalError:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        message = (f"The memory card is full — {what}. Nothing saved before was lost. "
                   "Free some space (old game records, logs) and try again.")
    elif error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        message = f"The memory card cannot be written — {what} ({error.strerror}). Run `companion doctor`."
    else:
        message = f"Saving the game failed — {what} ({error.strerror or error})."
    player_error = JournalError(message)
    player_error.errno = error.errno
    return player_error
