"""Train a small policy-gradient agent against the ``simple`` bot, on the CPU, in a few minutes.

The agent is a linear softmax policy over the legal actions, trained by
REINFORCE (each hand's reward standardized by running statistics, one step
every 8 hands), written in numpy alone. It reads nothing but the
environment's observation vector and action mask: a few features of each
legal action are computed from the vector's blocks (the hand, the top
discard, the card values, the deck; see ``chinchon.env.observation_layout``),
plus one learned bias per action number. It starts uniformly random.

It plays two-player matches (``fournier`` rules) against ``simple`` through
``BotOpponentsEnv`` with ``reward="hand"``: after each hand every decision of
that hand is credited with minus the points the hand cost. Every block of
matches it prints the share of matches and of hands it won and its points
per hand, so the rise is plain to see; at the end it plays its greedy
(most likely action) policy.

Run: ``python examples/train_reinforce.py [--minutes 3] [--seed 0]``
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
    BotOpponentsEnv,
    observation_layout,
)

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


def partner_matrix(deck: np.ndarray) -> np.ndarray:
    """P[k, j]: how much card kind j helps kind k towards a meld (same rank; next in the suit's run order)."""
    P = np.zeros((CARD_KINDS, CARD_KINDS))
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


class Agent:
    """A linear softmax policy over per-action features, trained by REINFORCE."""

    def __init__(self, rng: np.random.Generator, lr: float = 0.05, batch: int = 8) -> None:
        self.theta = np.zeros(len(FEATURES))
        self.bias = np.zeros(ACTIONS)
        self.rng = rng
        self.lr = lr
        self.batch = batch
        self.mean = 0.0
        self.var = 1.0
        self.partners: np.ndarray | None = None
        self.trace: list[tuple[np.ndarray, np.ndarray, int, np.ndarray]] = []
        self.hands: list[tuple[float, list[tuple[np.ndarray, np.ndarray, int, np.ndarray]]]] = []

    def features(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        if self.partners is None:
            self.partners = partner_matrix(x[LAYOUT["deck"]])
        hand = x[LAYOUT["hand"]]
        values = x[LAYOUT["values"]]
        top = int(np.argmax(x[LAYOUT["top_discard"]]))
        help_ = self.partners @ hand  # partners each kind has in the hand
        phi = np.zeros((len(legal), len(FEATURES)))
        for row, a in enumerate(legal):
            if a == DRAW_STOCK:
                phi[row, 0] = 1
            elif a == DRAW_DISCARD:
                phi[row, 1:4] = (1, help_[top], values[top])
            elif DISCARD <= a < DISCARD + CARD_KINDS:
                k = a - DISCARD
                others = help_[k] - self.partners[k, k] * (hand[k] - 1)
                phi[row, 4:8] = (1, values[k], others, float(others == 0))
            elif CLOSE <= a < CLOSE + CARD_KINDS:
                phi[row, 8] = 1
            elif a == REENTER_YES:
                phi[row, 9] = 1
            elif a == REENTER_NO:
                phi[row, 10] = 1
        return phi

    def act(self, observation: dict[str, np.ndarray], greedy: bool = False) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        phi = self.features(observation["observation"], legal)
        logits = phi @ self.theta + self.bias[legal]
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        choice = int(np.argmax(probs)) if greedy else int(self.rng.choice(len(legal), p=probs))
        if not greedy:
            self.trace.append((phi, legal, choice, probs))
        return int(legal[choice])

    def learn(self, hand_reward: float) -> None:
        """Keep the hand just ended; every few hands, step along the policy gradient."""
        self.hands.append((hand_reward, self.trace))
        self.trace = []
        if len(self.hands) < self.batch:
            return
        rewards = np.array([reward for reward, _ in self.hands])
        self.mean += 0.05 * (rewards.mean() - self.mean)
        self.var += 0.05 * (rewards.var() + (rewards.mean() - self.mean) ** 2 - self.var)
        grad_theta = np.zeros_like(self.theta)
        grad_bias = np.zeros_like(self.bias)
        for reward, trace in self.hands:
            advantage = (reward - self.mean) / np.sqrt(self.var + 1e-6)
            for phi, legal, choice, probs in trace:
                grad_theta += advantage * (phi[choice] - probs @ phi)
                step = -probs
                step[choice] += 1
                grad_bias[legal] += advantage * step
        self.theta += self.lr * grad_theta / self.batch
        self.bias += self.lr * grad_bias / self.batch
        self.hands.clear()


def play_match(game: BotOpponentsEnv, agent: Agent, seed: int, greedy: bool = False) -> tuple[bool, int, int, int]:
    """One match; whether the agent won, its hands won, hands played and points taken."""
    observation, _info = game.reset(seed=seed)
    match = game.game.match
    assert match is not None
    hands = won = points = 0
    done = False
    while not done:
        observation, reward, terminated, truncated, _info = game.step(agent.act(observation, greedy))
        done = terminated or truncated
        if hands == len(match.results):
            continue
        # A hand is over: the reward is minus the points it cost (reward="hand").
        if not greedy:
            agent.learn(reward / 25)
        for result in match.results[hands:]:
            won += result.points[0] < result.points[1]
            points += result.points[0]
        hands = len(match.results)
    agent.trace = []
    return match.winner == 0, won, hands, points


def report(label: str, results: list[tuple[bool, int, int, int]]) -> None:
    matches = len(results)
    wins = sum(r[0] for r in results)
    won = sum(r[1] for r in results)
    hands = sum(r[2] for r in results)
    points = sum(r[3] for r in results)
    print(
        f"{label:>16}  matches won {wins / matches:6.1%} of {matches:4}   "
        f"hands won {won / max(hands, 1):6.1%}   points/hand {points / max(hands, 1):5.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--block", type=int, default=100, help="matches between reports")
    parser.add_argument("--evaluate", type=int, default=200, help="greedy matches at the end")
    parser.add_argument("--lr", type=float, default=0.05, help="learning rate")
    parser.add_argument("--batch", type=int, default=8, help="hands between updates")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    agent = Agent(rng, args.lr, args.batch)
    game = BotOpponentsEnv("fournier", 2, "simple", reward="hand", max_turns=3000)
    seed = 1_000_000 * args.seed
    start = time.perf_counter()
    block: list[tuple[bool, int, int, int]] = []
    played = 0
    while time.perf_counter() - start < 60 * args.minutes:
        block.append(play_match(game, agent, seed + played))
        played += 1
        if len(block) == args.block:
            report(f"{played} matches", block)
            block = []
    if block:
        report(f"{played} matches", block)
    print(f"trained {played} matches in {time.perf_counter() - start:.0f} s; weights:")
    for name, weight in zip(FEATURES, agent.theta, strict=True):
        print(f"  {name:28} {weight:+.2f}")
    # Fresh seeds the agent never trained on, playing its most likely action.
    report("greedy", [play_match(game, agent, 10**9 + i, greedy=True) for i in range(args.evaluate)])


if __name__ == "__main__":
    main()
