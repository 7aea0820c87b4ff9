"""The bot interface: what a bot is, how it checks its parameters, and how it registers under a name.

A bot sees only its seat's :class:`~chinchon.observation.Observation` and the legal
actions; it cannot reach the deal's hidden state. Every decision of a match
(drawing, discarding, closing or waiting, what to show, lay-offs, re-entry)
is one call of :meth:`Bot.choose`.

Bots are found by name with :func:`chinchon.bots.registry.make_bot`.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from chinchon.actions import Action
from chinchon.errors import N_, ChinchonError
from chinchon.observation import Observation

__all__ = ["Bot", "BotError", "Factory", "flag", "number", "register", "registered", "whole"]


class BotError(ChinchonError):
    """An unknown bot or a bad bot parameter."""


class Bot(ABC):
    """A player that chooses an action from what its seat observes."""

    name: str = "bot"

    @abstractmethod
    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        """One of ``legal_actions`` for the seat of ``observation``; chance comes from ``rng``."""


def number(name: str, value: object, least: float, most: float | None = None, *, finite: bool = False) -> float:
    """``value`` as a number from ``least`` to ``most`` (no bound when None), for a bot's parameter ``name``.

    Infinity is a number here (``greedy:take=inf``) unless ``finite``.

    Raises:
        BotError: ``value`` is not such a number (true and false are not numbers).
    """
    try:
        result = math.nan if isinstance(value, bool) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        result = math.nan
    value = _shown(value)
    if finite and math.isinf(result):
        raise BotError(
            N_("the bot parameter {name} must be a finite number, {least} or more, not {value}"),
            name=name,
            least=least,
            value=value,
        )
    if most is None and not result >= least:
        raise BotError(
            N_("the bot parameter {name} must be a number, {least} or more, not {value}"),
            name=name,
            least=least,
            value=value,
        )
    if most is not None and not least <= result <= most:
        raise BotError(
            N_("the bot parameter {name} must be a number from {least} to {most}, not {value}"),
            name=name,
            least=least,
            most=most,
            value=value,
        )
    return result


def _shown(value: object) -> object:
    """A parameter's value as written in a bot's spec (``true``, not ``True``)."""
    return str(value).lower() if isinstance(value, bool) else value


def whole(name: str, value: object, least: int) -> int:
    """``value`` as a whole number, ``least`` or more, for a bot's parameter ``name``.

    Raises:
        BotError: ``value`` is not such a number.
    """
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= least:
        return value
    raise BotError(
        N_("the bot parameter {name} must be a whole number, {least} or more, not {value}"),
        name=name,
        least=least,
        value=_shown(value),
    )


def flag(name: str, value: object) -> bool:
    """``value`` as true or false (``True``, ``False``, 1 or 0), for a bot's parameter ``name``.

    Raises:
        BotError: ``value`` is anything else.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise BotError(N_("the bot parameter {name} must be true or false, not {value}"), name=name, value=value)


Factory = Callable[..., Bot]
_REGISTRY: dict[str, Factory] = {}


def registered() -> dict[str, Factory]:
    """The bot factories registered so far, by name (shared: the registry reads and fills it)."""
    return _REGISTRY


def register(name: str) -> Callable[[Factory], Factory]:
    """Register a bot factory under a name (a class decorator)."""

    def decorate(factory: Factory) -> Factory:
        _REGISTRY[name] = factory
        return factory

    return decorate
