"""The per-rules cache: tables built once for each ``Rules`` value (solver, meld extensions, card numbering).

``Rules`` is frozen and hashable, so equal rules share their tables. A
``Rules`` object seen before is found by identity, which is cheaper than
hashing its options on every call.

>>> from chinchon.rules import Rules
>>> per_rules(Rules(), Rules.cards) is per_rules(Rules(), Rules.cards)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from chinchon.rules import Rules

__all__ = ["MOST_RULES", "per_rules", "rules_kept"]

T = TypeVar("T")

_BY_VALUE: dict[Rules, dict[Callable[[Rules], object], object]] = {}
_BY_ID: dict[int, tuple[Rules, dict[Callable[[Rules], object], object]]] = {}
_MOST_OBJECTS = 4096
"""How many ``Rules`` objects are remembered by identity (each keeps its object alive, so its id stays its own)."""
MOST_RULES = 256
"""How many distinct rules keep their tables: a server whose rooms choose their own rules must not grow without end."""


def per_rules(rules: Rules, build: Callable[[Rules], T]) -> T:
    """What ``build(rules)`` returns, built on the first call for rules equal to these and kept."""
    entry = _BY_ID.get(id(rules))
    if entry is not None and entry[0] is rules:
        found = entry[1].get(build)
        if found is not None:
            return found  # type: ignore[return-value]  # the tables of one build are what it returns
    return _build(rules, build)


def rules_kept() -> int:
    """How many distinct rules have tables in the cache now (at most :data:`MOST_RULES`)."""
    return len(_BY_VALUE)


def _build(rules: Rules, build: Callable[[Rules], T]) -> T:
    """``per_rules`` for rules not seen by identity yet, or a table not built yet."""
    if len(_BY_VALUE) >= MOST_RULES and rules not in _BY_VALUE:
        _BY_VALUE.clear()
        _BY_ID.clear()
    tables = _BY_VALUE.setdefault(rules, {})
    if len(_BY_ID) >= _MOST_OBJECTS:
        _BY_ID.clear()
    _BY_ID[id(rules)] = (rules, tables)
    found = tables.get(build)
    if found is None:
        found = tables[build] = build(rules)
    return cast(T, found)
