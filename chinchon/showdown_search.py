"""The showdown search: each seat's show and lay-offs chosen to leave it the fewest loose points.

Each seat assumes the later seats do the same; ties go to the first choice
in legal-action order. The search is exact up to ``SHOWDOWN_SEARCH_NODES``
states, then greedy. It plays on copies of a deal through the deal's own
legal actions (:meth:`chinchon.deal.Deal.resolve_showdown` calls it), so it
holds no rule of its own.
"""

from __future__ import annotations

from typing import Any, Protocol

from chinchon.actions import Action, LayOff
from chinchon.observation import DealResult, Phase
from chinchon.rules import Rules

__all__ = ["SHOWDOWN_SEARCH_NODES", "ShowdownState", "best_showdown_action"]

_SHOWDOWN = Phase.SHOWDOWN


class ShowdownState(Protocol):
    """What the search needs of a deal: its phase and result, its legal actions, copies and a key of its state."""

    @property
    def rules(self) -> Rules: ...

    @property
    def phase(self) -> Phase: ...

    @property
    def to_move(self) -> int | None: ...

    @property
    def result(self) -> DealResult | None: ...

    def legal_actions(self) -> list[Action]: ...

    def apply_unchecked(self, action: Action) -> None: ...

    def copy(self, history: bool = True) -> ShowdownState: ...

    def showdown_key(self) -> tuple[Any, ...]: ...


def best_showdown_action(deal: ShowdownState, memo: dict[Any, tuple[int, ...]]) -> Action:
    """The decision of the seat to move that leaves it the fewest loose points, the later seats doing the same."""
    seat = deal.to_move
    assert seat is not None
    best: tuple[int, Action] | None = None
    for action in deal.legal_actions():
        child = deal.copy(history=False)
        child.apply_unchecked(action)
        outcome = _showdown_outcome(child, memo)
        if best is None or outcome[seat] < best[0]:
            best = (outcome[seat], action)
    assert best is not None
    return best[1]


SHOWDOWN_SEARCH_NODES = 20_000
"""How many showdown states the exact search may visit before the rest are played greedily."""


def _greedy_showdown_action(deal: ShowdownState) -> Action:
    """The best arrangement to show, else the dearest lay-off, else pass."""
    actions = deal.legal_actions()
    layoffs = [a for a in actions if isinstance(a, LayOff)]
    if layoffs:
        return max(layoffs, key=lambda a: (deal.rules.value(a.card), -a.meld_index))
    return actions[0]


def _showdown_outcome(deal: ShowdownState, memo: dict[Any, tuple[int, ...]]) -> tuple[int, ...]:
    """The loose points of every seat at the end, each seat minimising its own.

    Past ``SHOWDOWN_SEARCH_NODES`` states (many seats, many lay-offs) a new
    state is played out greedily instead, so that the search always ends soon.
    """
    if deal.phase is not _SHOWDOWN:
        assert deal.result is not None
        return deal.result.points
    key = deal.showdown_key()
    cached = memo.get(key)
    if cached is not None:
        return cached
    seat = deal.to_move
    assert seat is not None
    if len(memo) >= SHOWDOWN_SEARCH_NODES:
        rollout = deal.copy(history=False)
        while rollout.phase is _SHOWDOWN:
            rollout.apply_unchecked(_greedy_showdown_action(rollout))
        assert rollout.result is not None
        memo[key] = rollout.result.points
        return rollout.result.points
    best: tuple[int, ...] | None = None
    for action in deal.legal_actions():
        child = deal.copy(history=False)
        child.apply_unchecked(action)
        outcome = _showdown_outcome(child, memo)
        if best is None or outcome[seat] < best[seat]:
            best = outcome
    assert best is not None
    memo[key] = best
    return best
