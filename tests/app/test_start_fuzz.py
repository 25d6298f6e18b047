"""Fuzzing what `companion run` reads at start-up: no configuration, game record or calibration file,
however damaged, makes it raise. Each file starts as a real one and is cut short, has bytes flipped,
or has one of its values replaced by a value of another type, a huge one or a deeply nested one.

Bounded: a fixed number of examples from a fixed seed (derandomized), so the suite stays fast and
every run tries the same files.
"""

from __future__ import annotations

import functools
import json
import math
import os
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.app import journal
from companion.app.run import GAMES, Setup, start_up
from companion.rules import Game
from companion.sim.eyes import synthetic_calibration
from vision import calibration as calib
from vision.sim.synthetic import CameraPose

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

# Values of every kind a damaged or hand-edited file may hold where something else was expected.
# A deeply nested list is written into the text as NESTED's placeholder: Python's own encoders would
# overflow the stack making it.
NESTED = "@@nested@@"
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**62), max_value=2**62),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
    st.just("x" * 200_000), st.just(NESTED),
    st.lists(st.integers(), max_size=5), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
DEPTH = 100_000


def _nest(text: str) -> bytes:
    return text.replace(json.dumps(NESTED), "[" * DEPTH + "]" * DEPTH).encode()


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a document, as a path of keys and indices (long lists sampled)."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*at, key))
    elif isinstance(value, list):
        for index in sorted({0, len(value) // 2, len(value) - 1} & set(range(len(value)))):
            found += _paths(value[index], (*at, index))
    return found


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = dict(document) if isinstance(document, dict) else list(document)
    copy[path[0]] = _replaced(document[path[0]], path[1:], value)
    return copy


class Format:
    """How a kind of file turns into values and back (`documents`: a JSON Lines file has several)."""

    def __init__(self, decode: Callable[[bytes], list[Any]], encode: Callable[[list[Any]], bytes]) -> None:
        self.decode, self.encode = decode, encode


@st.composite
def damaged(draw: st.DrawFn, good: bytes, kind: Format) -> bytes:
    """`good` cut short, with bytes flipped, or with one value of one of its documents replaced."""
    how = draw(st.sampled_from(["cut", "flip", "value"]))
    if how == "cut":
        return good[: draw(st.integers(0, len(good) - 1))]
    if how == "flip":
        data = bytearray(good)
        for _ in range(draw(st.integers(1, 8))):
            at = draw(st.integers(0, len(data) - 1))
            data[at] ^= draw(st.integers(1, 255))
        return bytes(data)
    documents = kind.decode(good)
    which = draw(st.integers(0, len(documents) - 1))
    path = draw(st.sampled_from(_paths(documents[which])))
    documents[which] = _replaced(documents[which], path, draw(ODD))
    return kind.encode(documents)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(value)]
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    return '""' if value is None else json.dumps(value)


def _toml_file(documents: list[Any]) -> bytes:
    [document] = documents
    if not isinstance(document, dict):
        return _nest(f"value = {_toml(document)}\n")
    lines = [f"{json.dumps(str(k))} = {_toml(v)}" for k, v in document.items() if not isinstance(v, dict)]
    for section, table in document.items():
        if isinstance(table, dict):
            lines.append(f"[{json.dumps(str(section))}]")
            lines += [f"{json.dumps(str(k))} = {_toml(v)}" for k, v in table.items()]
    return _nest("\n".join(lines) + "\n")


CONFIG = Format(lambda raw: [tomllib.loads(raw.decode())], _toml_file)
RECORD = Format(lambda raw: [json.loads(line) for line in raw.splitlines()],
                lambda documents: _nest("".join(json.dumps(d) + "\n" for d in documents)))
CALIBRATION = Format(lambda raw: [json.loads(raw)], lambda documents: _nest(json.dumps(documents[0])))


@functools.cache
def good_files() -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as folder:
        game = Game.new(3, hidden_hands=True)
        with journal.Journal.start(folder, game) as record:
            for action in ("tile red F11", "pass", "swap 2", "pass"):
                record.apply(game, action)
        played = record.path.read_bytes()
    return {
        "config": (Path(__file__).parents[2] / "systemd" / "config.toml").read_bytes(),
        "record": played,
        "calibration": calib.to_json(synthetic_calibration(CameraPose(), (1014, 760), seed=5)).encode(),
    }


def start_with(**files: bytes) -> None:
    """`companion run`'s start-up over these files (the good configuration and record for the rest, no
    calibration but where one is given: a good one takes a quarter second to load): it must not raise."""
    with tempfile.TemporaryDirectory() as folder, mock.patch.dict(os.environ, {"STATE_DIRECTORY": folder}):
        state = Path(folder)  # the state directory "" means, where the configuration cannot say
        (state / GAMES).mkdir()
        text = {**good_files(), **files}
        (state / "config.toml").write_bytes(text["config"])
        (state / GAMES / "game-20261129-201400.jsonl").write_bytes(text["record"])
        if "calibration" in files:
            (state / "calibration.json").write_bytes(files["calibration"])
        start = start_up(state / "config.toml", state / "kept.toml")
    assert (start.why_not_calibrated is None) == (start.observer.calibration is not None)
    if isinstance(start.phase, Setup) and start.phase.problem is not None:
        assert len(str(start.phase.problem)) < 500


@SETTINGS
@given(data=st.data())
def test_any_damaged_configuration_starts(data: st.DataObject) -> None:
    start_with(config=data.draw(damaged(good_files()["config"], CONFIG)))


@SETTINGS
@given(data=st.data())
def test_any_damaged_game_record_starts(data: st.DataObject) -> None:
    start_with(record=data.draw(damaged(good_files()["record"], RECORD)))


@SETTINGS
@given(data=st.data())
def test_any_damaged_calibration_starts(data: st.DataObject) -> None:
    start_with(calibration=data.draw(damaged(good_files()["calibration"], CALIBRATION)))
