"""The words the players read when the camera reads nothing are the README's troubleshooting words."""

from __future__ import annotations

from pathlib import Path

from companion.ui.advice import ADVICE, CameraTrouble, Trouble


def test_the_readme_quotes_every_piece_of_advice_the_screen_gives() -> None:
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert set(ADVICE) == set(CameraTrouble)
    for trouble, words in ADVICE.items():
        assert f"*{words}*" in readme, trouble


def test_a_trouble_says_what_the_camera_said_and_what_to_do() -> None:
    covered = Trouble(CameraTrouble.COVERED, "Something covers the top-left marker: a hand over the board?")
    assert covered.lines == ("Camera: Something covers the top-left marker: a hand over the board?",
                             ADVICE[CameraTrouble.COVERED])
    assert Trouble(CameraTrouble.NO_PICTURE, "The camera frame is unusable").lines[0] == \
        "Camera: The camera frame is unusable."
