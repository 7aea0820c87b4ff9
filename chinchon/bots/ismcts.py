"""The ``ismcts`` bot: information-set Monte Carlo tree search.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): each
iteration deals the cards hidden from the bot at random, consistently with
what it observed (cards known to be in a hand stay there) and shaped to fit
how the others have played (:func:`chinchon.bots.playout.sample_deal`),
walks one tree of the bot's information sets with UCB over the moves
available in that deal, and plays out to the end of the deal with a fast
greedy policy rather than random moves. The playouts use the engine's
integer moves and bitmasks, with no legality checks and no ``Card`` objects.
Drawing and the decisions after a close (the showdown, re-entry) go to the
``greedy`` bot, and so does every move under unlimited re-entry
(``polaco``), where a deal's points decide no match; elsewhere the search
keeps ``greedy``'s discard or close unless another move beats it clearly
(``anchor``): one deal's points are too noisy a reward for a few hundred
iterations to rank moves that differ by a point.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from chinchon.actions import Action, Close, Discard, Draw
from chinchon.bots.base import Bot, flag, number, register, whole
from chinchon.bots.greedy import GreedyBot, unseen_cards
from chinchon.bots.playout import playout_move, sample_deal
from chinchon.deal import CLOSE, MOVE_DISCARD_PILE, MOVE_STOCK, Deal
from chinchon.observation import Observation, Phase
from chinchon.tables import tables_for

__all__ = ["IsmctsBot", "candidate_moves", "playout_move", "playout_points"]


class _Node:
    __slots__ = ("available", "children", "squares", "visits", "wins")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.wins = 0.0
        self.squares = 0.0
        self.available = 0


def candidate_moves(deal: Deal, moves: list[int], width: int) -> list[int]:
    """The moves worth searching: every close, and the ``width`` discards that leave the fewest loose points."""
    if deal.phase is not Phase.DISCARD or width <= 0:
        return moves
    seat = deal.to_move
    assert seat is not None
    t = deal.tables
    solver = t.solver
    m1, m2, w = deal.masks(seat)
    closes = [m for m in moves if m >= CLOSE]
    scored = []
    for move in moves:
        if move >= CLOSE:
            continue
        if move == t.joker or (t.wild_ace and move == 0):
            left = solver.best_points(m1, m2, w - 1) if w else solver.best_points(m1, m2, w)
        else:
            bit = 1 << move
            left = solver.best_points(m1 & ~bit | (m2 & bit), m2 & ~bit, w)
        scored.append((left, -t.value_of[move], move))
    scored.sort()
    return closes + [move for _, _, move in scored[:width]]


def _rewards(deal: Deal) -> list[float]:
    """Each seat's reward for how the deal ended (or stands): its points against the others' mean."""
    return _shares(deal, _standing(deal))


def _standing(deal: Deal) -> list[float]:
    """Each seat's points for how the deal ended, or, unfinished, its loose points (a clean closer's bonus)."""
    rules = deal.rules
    seats = deal.seats
    points = [0.0] * deal.players
    if deal.phase is Phase.OVER and deal.result is not None:
        for seat in seats:
            points[seat] = deal.result.points[seat]
    else:
        solver = deal.tables.solver
        closer = deal.closer
        for seat in seats:
            if seat == closer and deal.clean_close:
                points[seat] = rules.clean_close_bonus
            else:
                points[seat] = solver.best_points(*deal.masks(seat))
    return points


def playout_points(
    deal: Deal, move: int | None = None, horizon: int = 300, showdown: bool = False
) -> tuple[list[float], int]:
    """Each seat's points as the search counts them after ``move`` (if given) and greedy play, and the moves played.

    ``deal`` is played on (pass a copy): ``move``, then :func:`playout_move`
    for every seat until the deal leaves its draws and discards or
    ``horizon`` moves have been played. A deal that ended counts its
    result; a close counts the closer's loose points (its bonus when it
    matched all 7) and the others' loose points before any lay-off, or with
    ``showdown`` the result of the engine's showdown (lay-offs included,
    slower); an unfinished deal counts each hand's loose points.
    """
    steps = 0
    while True:
        if move is not None:
            if move >= CLOSE and not showdown:
                points = _close_points(deal, move)
                if points is not None:
                    return points, steps
            deal.play(move)
        if deal.phase not in (Phase.DRAW, Phase.DISCARD) or steps >= horizon:
            break
        moves = deal.moves()
        if not moves:
            break
        move = playout_move(deal, moves)
        steps += 1
    if showdown and deal.phase is Phase.SHOWDOWN:
        deal.resolve_showdown()
    return _standing(deal), steps


def _close_points(deal: Deal, move: int) -> list[float] | None:
    """What :func:`_standing` counts after the close ``move``, without playing it; None where only the engine can tell.

    Only for a closer of distinct natural cards under rules with lay-offs:
    then the deal stops at the showdown, and every natural card is worth a
    point or more, so the close is clean exactly when no loose point is left.
    """
    rules = deal.rules
    if not rules.layoffs:
        return None
    closer = deal.to_move
    assert closer is not None
    m1, m2, w = deal.masks(closer)
    if m2 or w:
        return None
    solver = deal.tables.solver
    points = [0.0] * deal.players
    for seat in deal.seats:
        if seat != closer:
            points[seat] = solver.best_points(*deal.masks(seat))
    loose = solver.best_points(m1 & ~(1 << (move - CLOSE)))
    points[closer] = loose if loose else rules.clean_close_bonus
    return points


def _shares(deal: Deal, points: list[float]) -> list[float]:
    """Each seat's reward for ``points``: its points against the others' mean, scaled into [-1, 1]."""
    seats = deal.seats
    out = [0.0] * deal.players
    for seat in seats:
        others = [points[s] for s in seats if s != seat]
        mean = sum(others) / len(others) if others else 0.0
        out[seat] = max(-1.0, min(1.0, (mean - points[seat]) / 40.0))
    return out


_PRUNE_FROM = 20
_PRUNE_EVERY = 10
# Pruning looks at the gains only every few deals from the twentieth on: a test
# repeated after every deal would drop good moves on a chance run of bad deals.


def _mean_var(total: float, squares: float, count: int) -> tuple[float, float]:
    """The mean and the sample variance of ``count`` values from their sum and sum of squares."""
    mean = total / count
    return mean, max(0.0, (squares - count * mean * mean) / (count - 1))


@register("ismcts")
class IsmctsBot(Bot):
    """ISMCTS with greedy playouts, within budgets of ``iterations``, ``steps`` and ``seconds`` a move.

    The search stops at whichever budget it reaches first; ``iterations``
    defaults to 400 when neither ``steps`` nor ``seconds`` is given and to no
    cap when one is. ``steps`` counts the moves simulated (in the tree and in
    the playouts): a playout at a four-player table lasts about four times
    as many moves as at two, so with both budgets the thinking time varies
    less across table sizes, and the bot still plays the same for a seed on
    any machine. ``seconds`` caps the thinking time on a slow or busy one.

    ``horizon`` is how many moves a playout goes past the tree before the
    hands are judged by their loose points; ``exploration`` is UCB's constant;
    ``width`` how many discards are searched besides every close (0: all);
    ``shaped`` deals the hidden cards to fit the others' play
    (:func:`chinchon.bots.playout.sample_deal`) rather than uniformly.

    ``anchor`` ties the search to the ``greedy`` bot: the searched discards
    are the ``width`` that ``greedy`` likes best, and the bot plays
    ``greedy``'s move unless another move's mean reward beats it by more
    than ``anchor`` standard errors. Picking the best of a few noisy means
    otherwise picks the luckiest move more often than the best one (one
    deal's points vary far more than the discards' worth). ``anchor=0``
    searches the discards that leave the fewest loose points and plays the
    most visited move, as before.

    ``paired`` (with an anchor) plays every searched move out on each
    sampled deal instead of growing a tree, and judges each move by its mean
    gain over ``greedy``'s move on the same deals: the luck of the deal
    cancels out of the comparison. ``iterations`` then counts playouts.
    ``prune`` drops a move from the comparison once its mean gain is more
    than ``prune`` standard errors below zero (0: never), so the moves still
    in doubt get the playouts, and the search ends early when none is left.

    ``passes`` and ``thrown`` (with ``shaped``) also deal each other seat a
    hand that makes no meld of three with the last ``passes`` cards it left
    on the discard pile or the last ``thrown`` cards it threw
    (:func:`chinchon.bots.playout.sample_deal`; 0: not asked); with
    ``taken``, a hand that melds the cards the seat took from the discard
    pile.

    ``learned`` and ``model`` are the anchor ``greedy``'s parameters of
    those names: ``learned=false`` anchors the search to the heuristic
    alone, as it was before ``greedy`` learned its choice among its best
    discards, and ``model=FILE`` to another learned model.
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int | None = None,
        seconds: float = 0.0,
        steps: int = 0,
        exploration: float = 0.7,
        depth: int = 300,
        horizon: int = 300,
        width: int = 3,
        shaped: bool = True,
        anchor: float = 2.0,
        paired: bool = False,
        prune: float = 2.0,
        learned: bool = True,
        passes: int = 0,
        thrown: int = 0,
        model: str = "",
        taken: bool = False,
    ) -> None:
        self.taken = flag("taken", taken)
        self.passes = whole("passes", passes, 0)
        self.thrown = whole("thrown", thrown, 0)
        self.paired = flag("paired", paired)
        self.prune = number("prune", prune, 0)
        self.anchor = number("anchor", anchor, 0)
        self.shaped = flag("shaped", shaped)
        self.width = whole("width", width, 0)
        self.horizon = whole("horizon", horizon, 0)
        self.seconds = number("seconds", seconds, 0, finite=True)
        self.steps = whole("steps", steps, 0)
        if iterations is None:
            self.iterations = 0 if self.seconds > 0 or self.steps > 0 else 400
        else:
            self.iterations = whole("iterations", iterations, 1)
        self.exploration = number("exploration", exploration, 0, finite=True)
        self.depth = whole("depth", depth, 0)
        self._greedy = GreedyBot(learned=learned, model=model)
        self.last_iterations = 0
        self.last_steps = 0

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        legal = list(legal_actions)
        if len(legal) == 1:
            return legal[0]
        if observation.phase is not Phase.DISCARD or not any(isinstance(a, Discard | Close) for a in legal):
            # Drawing is left to the heuristic: a search over draws favours the known card of the
            # discard pile (the tree can plan for it, not for a stock card), strategy fusion.
            return self._greedy.choose(observation, legal, rng)
        if observation.rules.reentry == "unlimited":
            # The search's reward is a deal's points, and with unlimited re-entry they decide no match:
            # whoever goes over comes back at the highest total (it lost 4 matches in 5 to greedy so).
            return self._greedy.choose(observation, legal, rng)
        started = time.perf_counter()
        if not self.anchor:
            return self._action(observation, legal, self.search(observation, rng))
        t = tables_for(observation.rules)
        unseen = unseen_cards(observation)
        ranked = self._greedy.ranked_discards(observation, [a for a in legal if isinstance(a, Discard)], unseen)
        anchor = self._greedy.discard_or_close(observation, legal, ranked, unseen)
        if self.width > 0:
            ranked = ranked[: self.width]
        closes = sorted({CLOSE + t.id_of[a.discard] for a in legal if isinstance(a, Close)})
        root = closes + [t.id_of[a.card] for a in ranked]
        if isinstance(anchor, Close):
            anchor_move = CLOSE + t.id_of[anchor.discard]
        else:
            assert isinstance(anchor, Discard)
            anchor_move = t.id_of[anchor.card]
        if anchor_move not in root:
            root.append(anchor_move)
        move = self.search(observation, rng, root, anchor_move, started=started)
        return anchor if move == anchor_move else self._action(observation, legal, move)

    def _action(self, observation: Observation, legal: list[Action], move: int) -> Action:
        if move == MOVE_STOCK:
            return Draw("stock")
        if move == MOVE_DISCARD_PILE:
            return Draw("discard")
        sample_card = tables_for(observation.rules).card_of[move % CLOSE]
        if move >= CLOSE:
            closes = [a for a in legal if isinstance(a, Close) and a.discard == sample_card]
            return closes[0] if closes else Close(sample_card)
        return Discard(sample_card)

    def search(
        self,
        observation: Observation,
        rng: random.Random,
        root_moves: list[int] | None = None,
        anchor: int | None = None,
        *,
        started: float | None = None,
    ) -> int:
        """The move chosen after the search among ``root_moves`` (default: :func:`candidate_moves`).

        With ``anchor``, that move unless another beats its mean reward by
        more than ``self.anchor`` standard errors; otherwise the most visited.
        A budget of ``seconds`` counts from ``started`` (a ``time.perf_counter()``
        reading; default: now).
        """
        if started is None:
            started = time.perf_counter()
        deadline = started + self.seconds if self.seconds > 0 else None
        self.last_steps = 0
        if self.paired and root_moves is not None and anchor is not None:
            return self._paired(observation, rng, root_moves, anchor, deadline)
        root = _Node()
        iterations = 0
        while iterations == 0 or not self._spent(iterations, deadline):
            iterations += 1
            deal = self._sample(observation, rng)
            path: list[tuple[_Node, int]] = []
            node = root
            steps = 0
            # Selection and expansion along the bot's information sets.
            while deal.phase in (Phase.DRAW, Phase.DISCARD) and steps < self.depth:
                if root_moves is not None and node is root:
                    moves = root_moves
                else:
                    moves = candidate_moves(deal, deal.moves(), self.width)
                if not moves:
                    break
                untried = [m for m in moves if m not in node.children]
                for move in moves:
                    child = node.children.get(move)
                    if child is not None:
                        child.available += 1
                if untried:
                    move = rng.choice(untried)
                    child = _Node()
                    child.available = 1
                    node.children[move] = child
                    mover = deal.to_move
                    assert mover is not None
                    path.append((child, mover))
                    deal.play(move)
                    break
                mover = deal.to_move
                assert mover is not None
                move = self._select(node, moves)
                node = node.children[move]
                path.append((node, mover))
                deal.play(move)
                steps += 1
            self.last_steps += steps
            rewards = self._play_out(deal)
            root.visits += 1
            for child, mover in path:
                child.visits += 1
                child.wins += rewards[mover]
                child.squares += rewards[mover] * rewards[mover]
        self.last_iterations = iterations
        if anchor is not None:
            return self._anchored(root, anchor)
        return max(root.children.items(), key=lambda item: (item[1].visits, item[1].wins))[0]

    def _paired(
        self, observation: Observation, rng: random.Random, root_moves: list[int], anchor: int, deadline: float | None
    ) -> int:
        """Every root move played out on each sampled deal; ``anchor`` unless another's mean gain over it is clear."""
        others = [move for move in root_moves if move != anchor]
        seat = observation.seat
        sums = [0.0] * len(others)
        squares = [0.0] * len(others)
        alive = list(range(len(others)))
        deals = playouts = 0
        while alive and (deals < 2 or not self._spent(playouts, deadline)):
            deals += 1
            deal = self._sample(observation, rng)
            base = self._play_out(deal.copy(history=False), anchor)[seat]
            for i in alive:
                gain = self._play_out(deal.copy(history=False), others[i])[seat] - base
                sums[i] += gain
                squares[i] += gain * gain
            playouts += 1 + len(alive)
            if self.prune and deals >= _PRUNE_FROM and deals % _PRUNE_EVERY == 0:
                alive = [i for i in alive if not self._hopeless(sums[i], squares[i], deals)]
        self.last_iterations = playouts
        best, best_margin = anchor, 0.0
        for i in alive:
            mean, var = _mean_var(sums[i], squares[i], deals)
            margin = mean - self.anchor * math.sqrt(var / deals)
            if margin > best_margin:
                best, best_margin = others[i], margin
        return best

    def _sample(self, observation: Observation, rng: random.Random) -> Deal:
        """A deal for one iteration: shaped by the others' play (``shaped``), or dealt uniformly."""
        if self.shaped:
            return sample_deal(observation, rng, passes=self.passes, thrown=self.thrown, taken=self.taken)
        return Deal.sample(observation, rng)

    def _hopeless(self, total: float, squares: float, count: int) -> bool:
        """Whether a mean gain is more than ``self.prune`` standard errors below zero."""
        mean, var = _mean_var(total, squares, count)
        return mean + self.prune * math.sqrt(var / count) < 0

    def _spent(self, iterations: int, deadline: float | None) -> bool:
        """Whether the budget is spent after ``iterations`` and ``self.last_steps``."""
        if self.iterations and iterations >= self.iterations:
            return True
        if self.steps and self.last_steps >= self.steps:
            return True
        return deadline is not None and time.perf_counter() >= deadline

    def _play_out(self, deal: Deal, move: int | None = None) -> list[float]:
        """Each seat's reward after ``move`` (if given) and the greedy policy up to the horizon."""
        points, steps = playout_points(deal, move, self.horizon)
        self.last_steps += steps
        return _shares(deal, points)

    def _anchored(self, root: _Node, anchor: int) -> int:
        """``anchor``, unless another root move's mean beats it by more than ``self.anchor`` standard errors."""
        base = root.children.get(anchor)
        if base is None or base.visits < 2:
            return anchor
        base_mean, base_var = _mean_var(base.wins, base.squares, base.visits)
        best, best_margin = anchor, 0.0
        for move, child in root.children.items():
            if move == anchor or child.visits < 2:
                continue
            mean, var = _mean_var(child.wins, child.squares, child.visits)
            error = math.sqrt(var / child.visits + base_var / base.visits)
            margin = mean - base_mean - self.anchor * error
            if margin > best_margin:
                best, best_margin = move, margin
        return best

    def _select(self, node: _Node, moves: list[int]) -> int:
        c = self.exploration
        best_move = moves[0]
        best_score = -math.inf
        for move in moves:
            child = node.children[move]
            score = child.wins / child.visits + c * math.sqrt(math.log(max(child.available, 1)) / child.visits)
            if score > best_score:
                best_move, best_score = move, score
        return best_move
