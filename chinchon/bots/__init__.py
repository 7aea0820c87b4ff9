"""Bots: players that choose from what their seat observes.

Find one by name with :func:`make_bot` (``random``, ``simple``, ``greedy``,
``ismcts``, ``human``, with parameters such as ``ismcts:iterations=400``) or
by level (:data:`LEVELS`, weakest first: see :mod:`chinchon.bots.levels`).
"""

from chinchon.bots.base import Bot, BotError, register
from chinchon.bots.registry import LEVELS, bot_names, make_bot

__all__ = ["LEVELS", "Bot", "BotError", "bot_names", "make_bot", "register"]
