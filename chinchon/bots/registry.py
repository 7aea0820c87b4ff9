"""Bots by name: :func:`make_bot` builds a bot from its name or level and parameters.

The built-in bots' modules are imported on first use (each registers itself
with :func:`chinchon.bots.base.register`); the bots themselves import only
:mod:`chinchon.bots.base`, never this module.

>>> bot = make_bot("random")
>>> bot.name
'random'
>>> make_bot("ismcts:iterations=50").name
'ismcts:iterations=50'
"""

from __future__ import annotations

import inspect

from chinchon.bots.base import Bot, BotError, Factory, registered
from chinchon.bots.levels import LEVELS, level_of
from chinchon.errors import N_

__all__ = ["LEVELS", "bot_names", "make_bot"]


def bot_names() -> tuple[str, ...]:
    """The names of the bots (in alphabetical order), then of the levels."""
    return (*sorted(_load()), *LEVELS)


def _load() -> dict[str, Factory]:
    """The registry, with the built-in bots in it (their modules register them when imported)."""
    import chinchon.bots.greedy
    import chinchon.bots.human
    import chinchon.bots.ismcts
    import chinchon.bots.simple  # noqa: F401

    return registered()


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
    """A bot from its name or level and parameters: ``"greedy"``, ``"ismcts:iterations=400"``, ``"casual"``.

    A level's name from before the ladder (``"hard"``) makes the level it
    now plays as (:data:`~chinchon.bots.levels.RETIRED`), named as that level.

    Raises:
        BotError: an unknown bot or parameter; the message lists the known ones.
    """
    factories = _load()
    if not isinstance(spec, str) or not spec.strip():
        raise BotError(N_("not a bot: {spec}"), spec=repr(spec))
    text = spec.strip()
    name, _, params_text = text.partition(":")
    level = level_of(name)
    if level is not None:
        if params_text:
            raise BotError(N_("a level takes no parameters: {spec}"), spec=text)
        bot = make_bot(LEVELS[level])
        bot.name = level
        return bot
    factory = factories.get(name)
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
