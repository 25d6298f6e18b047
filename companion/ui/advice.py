"""What the players do when the camera reads nothing. These are the words of the screen and of the
README's troubleshooting, kept here only (a test checks the README quotes them)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class CameraTrouble(enum.Enum):
    """Why a still board was not read, in the players' terms."""

    NO_BOARD = "the board markers are not in view"
    BOARD_MOVED = "the board moved while its markers were covered"
    COVERED = "something lies over a corner marker or the board's border, or a glare dazzles a marker"
    ARM = "unreadable squares at the edge, as an arm reaching in leaves"
    NO_PICTURE = "the camera sends no usable picture"
    NOT_CALIBRATED = "the camera is not calibrated"


ADVICE = {
    CameraTrouble.NO_BOARD: "Clear the board's corners, check the light and focus, and move the camera until all "
                            "four markers are in the picture.",
    CameraTrouble.BOARD_MOVED: "Uncover the corner markers: the grid is found again as soon as three are in view.",
    CameraTrouble.COVERED: "Move what lies there: a hand, a cup, a sharp shadow. If nothing does, move the lamp: "
                           "a glare dazzles the marker.",
    CameraTrouble.ARM: "Take your hand off the board; if nothing is there, the camera will ask.",
    CameraTrouble.NO_PICTURE: "Check the camera's ribbon cable; the camera is tried again by itself.",
    CameraTrouble.NOT_CALIBRATED: "Calibrate the camera: sudo -u companion companion calibrate (see Calibration).",
}


@dataclass(frozen=True, slots=True)
class Trouble:
    """The camera reads nothing: why, what it said (which marker, which edge), and the squares concerned."""

    kind: CameraTrouble
    said: str
    cells: tuple[int, ...] = ()

    @property
    def lines(self) -> tuple[str, str]:
        """What the camera said, and what to do."""
        said = self.said if self.said.endswith((".", "?", "!")) else f"{self.said}."
        return f"Camera: {said}", ADVICE[self.kind]
