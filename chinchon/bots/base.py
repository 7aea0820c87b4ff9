"""The bot interface and the registry of bots by name.

A bot sees only its seat's :class:`~chinchon.game.Observation` and the legal
actions; it cannot reach the deal's hidden state. Every decision of a match
(drawing, discarding, closing or waiting, what to show, lay-offs, re-entry)
is one call of :meth:`Bot.choose`.

>>> bot = make_bot("random")
>>> bot.name
'random'
>>> make_bot("ismcts:iterations=50").name
'ismcts:iterations=50'
"""

from __future__ import annotations

import inspect
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from chinchon.actions import Action
from chinchon.errors import N_, ChinchonError
from chinchon.game import Observation

__all__ = ["LEVELS", "Bot", "BotError", "bot_names", "flag", "make_bot", "number", "register", "whole"]


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

LEVELS: dict[str, str] = {
    "easy": "simple:noise=0.25",
    "medium": "greedy",
    "hard": "ismcts:iterations=600,steps=20000,seconds=0.5,paired=true",
    "expert": "ismcts:iterations=2400,steps=80000,seconds=2,paired=true",
}
"""The levels a player chooses from, and the bot each one is."""


def register(name: str) -> Callable[[Factory], Factory]:
    """Register a bot factory under a name (a class decorator)."""

    def decorate(factory: Factory) -> Factory:
        _REGISTRY[name] = factory
        return factory

    return decorate


def bot_names() -> tuple[str, ...]:
    """The names of the bots (in alphabetical order), then of the levels."""
    _load()
    return (*sorted(_REGISTRY), *LEVELS)


def _load() -> None:
    # The bots register themselves when their modules are imported.
    from chinchon.bots import greedy, ismcts, simple  # noqa: F401


def _value(text: str) -> int | float | str | bool:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _parameters(factory: Factory) -> list[str] | None:
    """The names of the parameters a bot factory takes (None when it takes any)."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    names = []
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            names.append(parameter.name)
    return names


def make_bot(spec: str) -> Bot:
    """A bot from its name or level and parameters: ``"greedy"``, ``"ismcts:iterations=400"``, ``"hard"``.

    Raises:
        BotError: an unknown bot or parameter; the message lists the known ones.
    """
    _load()
    if not isinstance(spec, str) or not spec.strip():
        raise BotError(N_("not a bot: {spec}"), spec=repr(spec))
    text = spec.strip()
    name, _, params_text = text.partition(":")
    if name in LEVELS:
        if params_text:
            raise BotError(N_("a level takes no parameters: {spec}"), spec=text)
        bot = make_bot(LEVELS[name])
        bot.name = name
        return bot
    factory = _REGISTRY.get(name)
    if factory is None:
        raise BotError(N_("unknown bot {name}; known bots: {known}"), name=repr(name), known=", ".join(bot_names()))
    params: dict[str, int | float | str | bool] = {}
    for part in filter(None, params_text.split(",")):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise BotError(N_("bad bot parameter {part} in {spec}; write name=value"), part=repr(part), spec=text)
        params[key.strip()] = _value(value.strip())
    known = _parameters(factory)
    unknown = [key for key in params if known is not None and key not in known]
    if unknown:
        raise BotError(
            N_("bot {name} does not take the parameters {params}; it takes {known}"),
            name=name,
            params=", ".join(unknown),
            known=", ".join(known or ()) or "-",
        )
    try:
        bot = factory(**params)
    except BotError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:
        raise BotError(
            N_("bad parameters for bot {name}: {params} ({problem})"), name=name, params=params_text, problem=exc
        ) from None
    bot.name = text
    return bot
