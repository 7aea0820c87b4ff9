"""The chance of each seat to win the match from the totals: what the bots' match decisions weigh.

A simple, explainable estimate. Each seat's total grows hand after hand by
about :func:`hand_points` (its mean and spread), so the hands a seat lasts
before going over the limit are about its headroom (the limit less its
total) over that mean; the seat that lasts longest wins. The hands each seat
lasts are taken as independent normal variables (the first-passage time of
a random walk with drift: mean ``h / mu``, variance ``h * sigma**2 / mu**3``)
and the chance that one outlasts all the others is integrated numerically.
A seat over the limit is out, or, where the rules let it re-enter once,
comes back at the highest total of the seats still in (the bots always
take a re-entry that costs nothing). With unlimited re-entry every seat
can always come back, so the totals decide nothing until a hand puts every
seat over at once: the seats then have even chances. When every seat is
over, the lowest total wins (RULES.md S6).

>>> from chinchon import Rules
>>> rules = Rules()
>>> [round(p, 2) for p in win_chances([50, 50], rules)]
[0.5, 0.5]
>>> win_chances([20, 90], rules)[0] > 0.8
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from chinchon import Rules

__all__ = ["LOOSE_PER_CARD_VALUE", "SPREAD", "hand_points", "headroom", "loose_points", "win_chances"]

#: Points a seat that does not close adds in a hand, per point of the mean card's value (fitted to the arena's
#: points per hand, 5.7 to 8.0 across the presets with two players, the closer adding about one).
LOOSE_PER_CARD_VALUE = 2.4
#: The spread of a hand's points, as a share of their mean for the seat that does not close.
SPREAD = 0.75
_STEPS = 160


def _mean_card_value(rules: Rules) -> float:
    values = [rules.value(card) for card in rules.cards(decks=1) if not rules.is_wild(card)]
    return sum(values) / len(values) if values else 5.0


def loose_points(rules: Rules) -> float:
    """The loose points a seat that does not close adds in a hand, on average: :data:`LOOSE_PER_CARD_VALUE` cards."""
    return LOOSE_PER_CARD_VALUE * _mean_card_value(rules)


def hand_points(rules: Rules, players: int) -> tuple[float, float]:
    """The mean and the spread of what a hand adds to one seat's total, with ``players`` seats playing.

    One seat closes (about one point) and each of the others adds its loose
    points, about :data:`LOOSE_PER_CARD_VALUE` times the mean card's value.
    """
    loose = loose_points(rules)
    players = max(2, players)
    return (1.0 + (players - 1) * loose) / players, SPREAD * loose


def headroom(total: float, rules: Rules) -> float:
    """How many points ``total`` can still take before it is out (half a point past the last total that survives)."""
    last = rules.limit if rules.eliminate_at == "above" else rules.limit - 1
    return last + 0.5 - total


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def win_chances(totals: Sequence[float], rules: Rules) -> list[float]:
    """Each seat's chance to win the match, the seats in the match having these totals (see the module).

    Totals over the limit are the seats just out: they re-enter at the
    highest total still in where the rules allow re-entry, else they have
    lost. The chances add up to 1.
    """
    rooms = [headroom(t, rules) for t in totals]
    count = len(rooms)
    if count == 0:
        return []
    alive = [i for i in range(count) if rooms[i] > 0]
    if not alive:
        low = min(totals)
        tied = [i for i in range(count) if totals[i] == low]
        return [1.0 / len(tied) if i in tied else 0.0 for i in range(count)]
    if rules.reentry == "unlimited":
        # Whoever goes over comes back at the highest total still in, as often as it likes: the totals decide
        # only a hand that puts every seat over at once.
        return [1.0 / count] * count
    if len(alive) < count:
        if rules.reentry == "none":
            if len(alive) == 1:
                return [1.0 if i == alive[0] else 0.0 for i in range(count)]
            rest = win_chances([totals[i] for i in alive], rules)
            out = [0.0] * count
            for i, chance in zip(alive, rest, strict=True):
                out[i] = chance
            return out
        back = min(rooms[i] for i in alive)
        rooms = [room if room > 0 else back for room in rooms]
    mu, sigma = hand_points(rules, count)
    means = [room / mu for room in rooms]
    deviations = [max(0.3, math.sqrt(room * sigma * sigma / mu**3)) for room in rooms]
    low = max(0.0, min(m - 5 * d for m, d in zip(means, deviations, strict=True)))
    high = max(m + 5 * d for m, d in zip(means, deviations, strict=True))
    step = (high - low) / _STEPS
    chances = [0.0] * count
    for k in range(_STEPS + 1):
        t = low + k * step
        weight = step * (0.5 if k in (0, _STEPS) else 1.0)
        below = [_phi((t - m) / d) for m, d in zip(means, deviations, strict=True)]
        for i in range(count):
            density = math.exp(-0.5 * ((t - means[i]) / deviations[i]) ** 2) / (deviations[i] * math.sqrt(2 * math.pi))
            others = 1.0
            for j in range(count):
                if j != i:
                    others *= below[j]
            chances[i] += weight * density * others
    total = sum(chances)
    if total <= 0:
        return [1.0 / count] * count
    return [c / total for c in chances]
