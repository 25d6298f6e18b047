"""The game record: an append-only JSON Lines file that survives the plug being pulled.

Line 1 is a header with the game configuration, the start time and the game's number (one more
than any record beside it: the game to resume is the one with the highest); then one line per applied
action, `{"seq": n, "action": "tile red F7", "time": ..., "reading": ...}`, or per takeback,
`{"seq": n, "undo": true, "time": ...}`. Each line is flushed and fsynced before `apply` returns,
so the screen never shows a move that a power cut could lose. Replaying the lines in order lands
on the same state; a finished game's file stays on disk as the exportable game record.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from companion.app.problems import clip
from companion.rules import Action, CompanionError, Event, Game, GameConfig
from vision.files import write_atomic

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
            number = max((found[0] for found in _numbered(folder)), default=0) + 1
            header = {"format": FORMAT, "version": VERSION, "game": number,
                      "started": started.isoformat(timespec="seconds"), "config": game.config.to_dict()}
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


MAX_BYTES = 64 * 1024 * 1024  # a whole evening's record with every reading is a few megabytes
_HEADER_BYTES = 64 * 1024  # more than any header this companion writes


@dataclass(frozen=True)
class Record:
    """What a game record holds, read without changing the file: every move up to the first line that
    cannot be read or replayed. A last line that does not parse was cut by a power cut (`cut`)."""

    path: Path
    game: Game
    started: datetime
    lines_kept: int  # move lines (actions and takebacks) replayed
    good_size: int  # bytes of the header and the lines kept
    lost: tuple[int, int] | None  # the first and last move that could not be read
    reason: str  # why the first lost line could not be read, naming it
    cut: bool
    unfinished_line: bool  # the last line is whole, but its newline never reached the card

    @property
    def warnings(self) -> tuple[str, ...]:
        said = []
        if self.lost is not None:
            first, last = self.lost
            moves = f"Move {first}" if first == last else f"Moves {first}–{last}"
            after = "from its start" if first == 1 else f"after move {first - 1}"
            said.append(f"{moves} of {self.path.name} could not be read ({self.reason}); the game resumes "
                        f"{after}. That record is kept as it was.")
        if self.cut:
            said.append(f"The last line of {self.path.name} was cut off (the power went out while it was being "
                        "saved); that move was dropped — check the board against the screen.")
        return tuple(said)


def read(path: str | os.PathLike[str]) -> Record:
    """The game in a record, as far as it can be read; the file is not changed.

    Raises JournalError, or JournalDamaged (naming the file and line) when not even the header can be used.
    """
    source = Path(path)
    try:
        status = source.stat()
        size = status.st_size
        data = b"" if size > MAX_BYTES else source.read_bytes()
    except OSError as error:
        raise _player_error(error, f"the game record {source.name} could not be read") from error
    if size > MAX_BYTES:
        raise JournalDamaged(f"{source.name} is {size // 2**20} MB, too large for a game record of this "
                             "companion; it was left as it is.")
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" when the file ends cleanly
    if tail:
        lines.append(tail)
    header = _parse(lines[0]) if lines else None
    if header is None or header.get("format") != FORMAT:
        raise JournalDamaged(f"{source.name} is empty or not a game record of this companion (line 1); it was "
                             "left as it is.")
    try:
        game = Game(GameConfig.from_dict(header["config"]))
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as error:
        raise JournalDamaged(f"The game record {source.name} is damaged at line 1 ({clip(str(error))}); it was "
                             "left as it is.") from None
    moves = lines[1:]
    kept, good_size, lost, reason = 0, len(lines[0]) + 1, None, ""
    for seq, raw in enumerate(moves, start=1):
        entry = _parse(raw)
        if entry is None and seq == len(moves):
            break  # cut by a power cut: the only line that may be dropped
        problem = "it is not a line of the record" if entry is None else _replay_one(game, seq, entry)
        if problem:
            lost, reason = (seq, len(moves)), f"line {seq + 1}: {problem}"
            break
        kept, good_size = seq, good_size + len(raw) + 1
    cut = lost is None and kept < len(moves)
    return Record(source, game, _started(header, status.st_mtime), kept, min(good_size, len(data)), lost, reason, cut,
                  unfinished_line=lost is None and not cut and bool(tail))


def resume(path: str | os.PathLike[str]) -> Resumed:
    """Go on with the game in a record, from its last move that can be read.

    A last line cut by a power cut is cut from the file; a whole last line gets its missing newline.
    When a line before the end is damaged, the file is left exactly as it is and the game goes on in
    a new record holding the moves kept: nothing that was on the card is lost.
    """
    record = read(path)
    if record.lost is not None:
        journal = Journal.start(record.path.parent, record.game, now=record.started)
        return Resumed(record.game, journal, record.started, (*record.warnings, f"It goes on in {journal.path.name}."))
    try:
        if record.cut or record.unfinished_line:
            with open(record.path, "r+b") as file:
                file.truncate(record.good_size)
                if record.unfinished_line:
                    file.seek(record.good_size)
                    file.write(b"\n")
                file.flush()
                os.fsync(file.fileno())
        journal = Journal(record.path, seq=record.lines_kept)
    except OSError as error:
        raise _player_error(error, f"the game in {record.path.name} cannot go on") from error
    return Resumed(record.game, journal, record.started, record.warnings)


def unfinished(directory: str | os.PathLike[str]) -> Path | None:
    """The game record written last, when its game is not over (starting a new game abandons older ones).

    "Last" is the highest game number in the headers, which the companion counts up itself: a Pi without
    network has no real-time clock, so neither the time in a file's name nor its modification time is
    sure to grow. Records from before the numbers (all number 0) are ordered by modification time.
    """
    numbered = _numbered(Path(directory))
    if not numbered:
        return None
    newest = max(numbered)[2]
    try:
        record = read(newest)
    except JournalError:
        return newest  # the players must hear about it, not lose it silently
    return None if record.game.state.over else newest


def _numbered(folder: Path) -> list[tuple[int, int, Path]]:
    """(game number, modification time, path) of each record in `folder`."""
    found = []
    for path in folder.glob("game-*" + SUFFIX):
        try:
            with path.open("rb") as file:
                first = file.read(_HEADER_BYTES).split(b"\n", 1)[0]
            changed = path.stat().st_mtime_ns
        except OSError:
            continue
        header = _parse(first) or {}
        number = header.get("game")
        found.append((number if isinstance(number, int) and not isinstance(number, bool) else 0, changed, path))
    return found


def _replay_one(game: Game, seq: int, entry: dict[str, Any]) -> str:
    """Apply one line of the record to `game`; what is wrong with it, or "" when it was applied."""
    if entry.get("seq") != seq:
        return f"expected move number {seq}, found {clip(json.dumps(entry.get('seq')))}"
    try:
        if entry.get("undo") is True:
            if not game.actions:
                return "a takeback with nothing to take back"
            game.undo()
            return ""
        action = entry.get("action")
        if not isinstance(action, str):
            return "it holds no action"
        game.apply(Action.parse(action))
    except (CompanionError, ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
        return clip(str(error))
    return ""


def _started(header: dict[str, Any], changed: float) -> datetime:
    """When the game started: the header says, else (a header without it) when the file last changed."""
    started = header.get("started")
    if isinstance(started, str):
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(started)
    return datetime.fromtimestamp(changed).astimezone()


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


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        entry = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):  # any bytes, any nesting
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
