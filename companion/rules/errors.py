"""One root for the companion's errors; each also inherits the matching builtin."""

from __future__ import annotations


class CompanionError(Exception):
    """Root of every error the companion raises on purpose."""


class IllegalAction(CompanionError, ValueError):
    """An action the rules forbid. The game state is untouched.

    `reason` is a stable code for programs, `page` the rulebook page (or None), and str()
    a sentence a player understands, with the page when there is one.
    """

    def __init__(self, reason: str, message: str, page: int | None = None) -> None:
        self.reason = reason
        self.page = page
        self.message = message
        super().__init__(f"{message} (p. {page})" if page is not None else message)
