"""Problems told in the players' words: a failed disk operation, and input repeated back only in part."""

from __future__ import annotations

import errno

ECHO = 80  # characters of a file's or a player's input repeated in a message


def clip(text: str, limit: int = ECHO) -> str:
    """`text` short enough to repeat in a message (a 100 KB line is not read out whole)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def disk_words(error: OSError) -> str:
    """Why a file could not be written or read, without "[Errno 30]"."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the memory card is full"
    if error.errno == errno.EROFS:
        return "the memory card is read-only (it may be failing, or the system mounted it read-only after an error)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "this user may not write there (run it as the companion user: sudo -u companion …)"
    if error.errno == errno.ENOENT:
        return "the folder does not exist"
    if error.errno == errno.EIO:
        return "the memory card could not be read or written (it may be failing)"
    return (error.strerror or str(error)).lower()
