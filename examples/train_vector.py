"""Train a policy against the ``simple`` bot for a minute on the CPU, with many matches stepped together.

The same kind of agent as ``train_reinforce.py`` (a linear softmax policy
over the legal actions, on a few features of each action read from the
observation vector, plus one learned bias per action number), trained by
policy gradient on batches from :class:`~chinchon.vector_env.BotOpponentsVectorEnv`:
``--games`` two-player ``fournier`` matches against ``simple`` at once,
``reward="hand"`` (minus the points each hand costs), rollouts of
``--horizon`` steps in every game, each decision credited with the reward
of the hand it was made in. The features of every action of every game are computed at once
with numpy.

Before and after training it plays ``--evaluate`` whole matches against
``simple`` (new seeds, ``reward="match"``) and prints the share it won:
first with the untrained policy (uniformly random legal actions), then
with the trained one choosing its most likely action.

Run: ``python examples/train_vector.py [--minutes 1] [--games 32] [--workers 0]``
(needs ``pip install 'chinchon[rl]'``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from chinchon.env import (
    ACTIONS,
    CARD_KINDS,
    CLOSE,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    REENTER_NO,
    REENTER_YES,
    observation_layout,
)
from chinchon.vector_env import BotOpponentsVectorEnv

LAYOUT = observation_layout(2)
FEATURES = (
    "draw stock",
    "draw pile",
    "pile card: partners in hand",
    "pile card: value",
    "discard",
    "discard: value",
    "discard: partners in hand",
    "discard: no partner",
    "close",
    "re-enter",
    "stay out",
)
K = CARD_KINDS
DISCARDS = slice(DISCARD, DISCARD + K)
CLOSES = slice(CLOSE, CLOSE + K)


def partner_matrix(deck: np.ndarray) -> np.ndarray:
    """P[k, j]: how much card kind j helps kind k towards a meld (same rank; next in the suit's run order)."""
    P = np.zeros((K, K))
    for suit in range(4):
        ranks = [r for r in range(13) if deck[13 * suit + r] > 0]
        for i, r in enumerate(ranks):
            k = 13 * suit + r
            for other in range(4):
                if other != suit:
                    P[k, 13 * other + r] = 1.0
            for step, weight in ((1, 1.0), (2, 0.5)):
                for j in (i - step, i + step):
                    if 0 <= j < len(ranks):
                        P[k, 13 * suit + ranks[j]] = weight
    P[:, 52] = 1.0  # a joker helps everything
    P[52, 52] = 0.0
    return P


class Policy:
    """A linear softmax policy over the features of every action number, for a batch of games at once."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.theta = np.zeros(len(FEATURES))
        self.bias = np.zeros(ACTIONS)
        self.rng = rng
        self.partners: np.ndarray | None = None

    def features(self, x: np.ndarray) -> np.ndarray:
        """phi[g, a, f]: feature f of action number a in game g."""
        if self.partners is None:
            self.partners = partner_matrix(x[0, LAYOUT["deck"]])
        P = self.partners
        hand = x[:, LAYOUT["hand"]].astype(np.float64)
        values = x[:, LAYOUT["values"]].astype(np.float64)
        top = x[:, LAYOUT["top_discard"]].astype(np.float64)
        help_ = hand @ P.T  # partners each kind has in the hand
        phi = np.zeros((len(x), ACTIONS, len(FEATURES)))
        phi[:, DRAW_STOCK, 0] = 1
        phi[:, DRAW_DISCARD, 1] = 1
        phi[:, DRAW_DISCARD, 2] = (help_ * top).sum(axis=1)
        phi[:, DRAW_DISCARD, 3] = (values * top).sum(axis=1)
        others = help_ - np.diag(P) * (hand - 1)
        phi[:, DISCARDS, 4] = 1
        phi[:, DISCARDS, 5] = values
        phi[:, DISCARDS, 6] = others
        phi[:, DISCARDS, 7] = others == 0
        phi[:, CLOSES, 8] = 1
        phi[:, REENTER_YES, 9] = 1
        phi[:, REENTER_NO, 10] = 1
        return phi

    def probabilities(self, phi: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = phi @ self.theta + self.bias
        logits = np.where(mask > 0, logits, -np.inf)
        # A game whose match just ended has no legal action: any number will do (the step ignores it).
        logits[~mask.any(axis=1)] = 0.0
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True)

    def act(
        self, observation: dict[str, np.ndarray], greedy: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """An action for every game; and the features and probabilities it was drawn from."""
        phi = self.features(observation["observation"])
        probs = self.probabilities(phi, observation["action_mask"])
        if greedy:
            return probs.argmax(axis=1), phi, probs
        cumulative = probs.cumsum(axis=1)
        draws = self.rng.random((len(probs), 1)) * cumulative[:, -1:]
        actions = (cumulative < draws).sum(axis=1)
        return actions, phi, probs


def train(policy: Policy, games: BotOpponentsVectorEnv, seconds: float, args: argparse.Namespace) -> int:
    """Policy gradient on rollouts of every game; the number of learner decisions it took."""
    observation, _ = games.reset(seed=1_000 * args.seed)
    n = games.num_envs
    baseline, scale = 0.0, 1.0
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        trace = []
        for _ in range(args.horizon):
            actions, phi, probs = policy.act(observation)
            live = observation["action_mask"].any(axis=1)
            observation, rewards, terminated, truncated, _ = games.step(actions)
            trace.append((phi, probs, actions, live, rewards / 25, terminated | truncated))
            steps += int(live.sum())
        # Each decision is credited with the reward of the hand it was made in (the next non-zero reward of its
        # game, or the end of its match); decisions of a hand still going at the end of the rollout are left out.
        reward_of_hand = np.zeros(n)
        known = np.zeros(n, dtype=bool)
        rolled = []
        for _phi, _probs, _actions, live, rewards, ended in reversed(trace):
            end = (rewards != 0) | ended
            reward_of_hand = np.where(end, rewards, reward_of_hand)
            known |= end
            rolled.append((reward_of_hand, live & known))
        rolled.reverse()
        seen = np.concatenate([returns[weight] for returns, weight in rolled])
        if len(seen):
            baseline += 0.05 * (float(seen.mean()) - baseline)
            scale += 0.05 * (float(seen.std()) + 1e-3 - scale)
        grad_theta = np.zeros_like(policy.theta)
        grad_bias = np.zeros_like(policy.bias)
        rows = np.arange(n)
        for (phi, probs, actions, _live, _rewards, _ended), (returns, weight) in zip(trace, rolled, strict=True):
            advantage = (returns - baseline) / scale * weight
            expected = np.einsum("ga,gaf->gf", probs, phi)
            grad_theta += advantage @ (phi[rows, actions] - expected)
            step = -probs
            step[rows, actions] += 1
            grad_bias += advantage @ step
        policy.theta += args.lr * grad_theta / (n * args.horizon)
        policy.bias += args.lr * grad_bias / (n * args.horizon)
    return steps


def evaluate(policy: Policy, games: BotOpponentsVectorEnv, matches: int, seed: int, greedy: bool) -> float:
    """The share of ``matches`` whole matches the policy won (the first ``matches`` to end)."""
    observation, _ = games.reset(seed=seed)
    won = played = 0
    while played < matches:
        actions, _phi, _probs = policy.act(observation, greedy)
        observation, rewards, terminated, truncated, _ = games.step(actions)
        ended = terminated | truncated
        played += int(ended.sum())
        won += int((rewards[ended] > 0).sum())
    return won / played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=1.0, help="training time")
    parser.add_argument("--games", type=int, default=32, help="matches stepped together")
    parser.add_argument("--workers", type=int, default=0, help="worker processes besides this one (0: all games here)")
    parser.add_argument("--horizon", type=int, default=64, help="steps of every game between updates")
    parser.add_argument("--lr", type=float, default=30.0, help="learning rate")
    parser.add_argument("--evaluate", type=int, default=200, help="matches played before and after training")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    policy = Policy(np.random.default_rng(args.seed))
    common = {"opponents": "simple", "workers": args.workers, "max_turns": 3000}
    judge = BotOpponentsVectorEnv(args.games, "fournier", 2, reward="match", **common)  # type: ignore[arg-type]
    learn = BotOpponentsVectorEnv(args.games, "fournier", 2, reward="hand", **common)  # type: ignore[arg-type]
    try:
        before = evaluate(policy, judge, args.evaluate, 10**9, greedy=False)
        print(f"before training (uniformly random legal actions): won {before:.1%} of {args.evaluate} matches")
        start = time.perf_counter()
        steps = train(policy, learn, 60 * args.minutes, args)
        elapsed = time.perf_counter() - start
        print(f"trained on {steps:,} decisions in {elapsed:.0f} s ({steps / elapsed:,.0f} a second); weights:")
        for name, weight in zip(FEATURES, policy.theta, strict=True):
            print(f"  {name:28} {weight:+.2f}")
        after = evaluate(policy, judge, args.evaluate, 10**9, greedy=True)
        print(f"after training (its most likely action): won {after:.1%} of {args.evaluate} matches")
    finally:
        judge.close()
        learn.close()


if __name__ == "__main__":
    main()
