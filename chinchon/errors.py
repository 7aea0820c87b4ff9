"""The errors of the engine: ``ValueError``s whose messages a player can read.

Each error keeps its message as an English template and its parameters, so
that a front end can show it in the player's language: the template is the
gettext message id (marked with :func:`N_` for extraction) and the parameters
are filled in after translation.
"""

from __future__ import annotations

__all__ = ["N_", "ChinchonError", "HandError", "NotationError"]


def N_(message: str) -> str:
    """Mark a message for translation without translating it (gettext's ``N_``)."""
    return message


class ChinchonError(ValueError):
    """An error a player can read; ``template`` and ``params`` rebuild its message."""

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = {key: str(value) for key, value in params.items()}
        super().__init__(template.format(**self.params))


class NotationError(ChinchonError):
    """Text that is not a card."""


class HandError(ChinchonError):
    """A hand that the rules' deck cannot hold, or of the wrong size."""
