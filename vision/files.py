"""Writing files so that a power cut leaves either the old content or the new, never a mix.

The Pi's memory card is unplugged mid-game by design (players pull the plug at the end of the
evening), so the calibration, the memory of this table's pieces, the settings and the game
record's header all go through here.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: bytes | str, *, mode: int = 0o644) -> None:
    """Replace `path` with `data` (text as UTF-8): a temporary file beside it, flushed to disk,
    renamed over the old one, and the folder flushed too. On any error (a full card, say) the old
    file is untouched and the temporary file removed. Mode 644: settings are for people to read."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            os.fchmod(file.fileno(), mode)
            file.write(payload)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    directory = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
