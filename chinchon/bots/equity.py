"""Match equity: a seat's chance to win a two-player match from the scores, for the search's rewards."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources

from chinchon.game import Observation

__all__ = ["match_equity"]


@cache
def _table() -> tuple[int, int, list[list[float]]]:
    data = json.loads(resources.files("chinchon.bots").joinpath("equity.json").read_text(encoding="utf-8"))
    return int(data["limit"]), int(data["low"]), data["equity"]


def match_equity(observation: Observation) -> tuple[tuple[int, ...], Callable[[float, float], float]] | None:
    """The match scores and the chance to win from a pair of totals (mine, the other's), where the table fits."""
    rules = observation.rules
    if len(observation.seats) != 2 or len(observation.scores) < 2 or rules.reentry != "none":
        return None
    limit, low, table = _table()
    if rules.limit != limit or rules.eliminate_at != "above" or rules.chinchon == "win":
        return None

    def win(mine: float, other: float) -> float:
        if mine > limit or other > limit:
            if mine > limit and other > limit:
                return 1.0 if mine < other else 0.0 if mine > other else 0.5
            return 0.0 if mine > limit else 1.0
        a = max(low, round(mine)) - low
        b = max(low, round(other)) - low
        return float(table[a][b])

    return observation.scores, win
