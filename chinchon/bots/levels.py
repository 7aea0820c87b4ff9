"""The levels a player chooses from: a ladder of bots, each one a step above the one below.

Each level wins about two matches in three against the level below it
(measured in ``docs/strength.md`` by ``bench/ladder.py``). The levels below
the top are the ``human`` bot (:mod:`chinchon.bots.human`) with a person's
habits: the lower the level, the more of them and the stronger. The top is
``greedy``. The levels' names before this ladder still work: each stands for
the level of the ladder closest to it in strength (:data:`RETIRED`).

>>> [level.name for level in LADDER]
['beginner', 'casual', 'regular', 'skilled', 'strong']
>>> level_of("medium")
'strong'
"""

from __future__ import annotations

from dataclasses import dataclass

from chinchon.errors import N_

__all__ = ["LADDER", "LEVELS", "RETIRED", "Level", "level_of"]


@dataclass(frozen=True)
class Level:
    """A level: its ``name``, the ``bot`` it is (a spec for :func:`~chinchon.bots.make_bot`) and how it plays.

    ``description`` is one line in English, marked for translation: show it with ``_()``.
    """

    name: str
    bot: str
    description: str


LADDER: tuple[Level, ...] = (
    Level(
        "beginner",
        "human:plan=false,high=1,pile=0.7,close=3,layoffs=0.25,memory=0",
        N_(
            "Keeps its high cards, overlooks the discard pile one turn in three, closes late, misses most lay-offs"
            " and forgets what was thrown."
        ),
    ),
    Level(
        "casual",
        "human:plan=false,high=0.5,pile=0.7,close=3,layoffs=0.5",
        N_(
            "Keeps its high cards half the time, overlooks the discard pile one turn in three, closes late"
            " and misses half the lay-offs."
        ),
    ),
    Level(
        "regular",
        "human:plan=false,pile=0.7,close=3,layoffs=0.5",
        N_(
            "Throws its high cards, but overlooks the discard pile one turn in three, closes late"
            " and misses half the lay-offs."
        ),
    ),
    Level(
        "skilled",
        "human:plan=false,close=3",
        N_("Sees every card on the table but does not think a draw ahead; closes late, with 3 points or fewer."),
    ),
    Level(
        "strong",
        "greedy",
        N_("Weighs each discard against the next draw, watches what you collect and picks its moment to close."),
    ),
)
"""The levels, weakest first."""

LEVELS: dict[str, str] = {level.name: level.bot for level in LADDER}
"""The levels a player chooses from, weakest first, and the bot each one is."""

RETIRED: dict[str, str] = {"easy": "beginner", "medium": "strong", "hard": "strong", "expert": "strong"}
"""The levels' names before the ladder, and the level each one now plays as.

``easy`` was ``simple`` with a random move in four, weaker than ``beginner``;
``medium`` was ``greedy``; ``hard`` and ``expert`` searched from
``greedy``'s move and were measured no stronger than it (docs/strength.md).
"""


def level_of(name: str) -> str | None:
    """The level ``name`` plays as: itself for a level, its successor for a retired name, else None."""
    if name in LEVELS:
        return name
    return RETIRED.get(name)
