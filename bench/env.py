"""Steps per second of the reinforcement-learning environment (``chinchon.env``).

Each step is one agent's ``last()`` (its observation vector and action mask)
and one ``step()``, as a learner's loop does. Three kinds of play:

- ``random``: a uniformly random legal action, episodes cut at ``--max-turns``
  (random play rarely closes, so its deals run long and the observation,
  which carries the deal's history, grows);
- ``closer``: closes whenever it may, otherwise random: deals of the length
  weak players make;
- ``simple``: every seat is the ``simple`` bot (the bot's own thinking
  included): deals of the length real play makes.

Run: ``python bench/env.py [--seconds S] [--seed N] [--max-turns T]``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np

from chinchon.bots import make_bot
from chinchon.env import CARD_KINDS, CLOSE, action_index, raw_env

Policy = Callable[[raw_env, str, np.ndarray], int]


def random_policy(rng: np.random.Generator) -> Policy:
    def choose(game: raw_env, agent: str, mask: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    return choose


def closer_policy(rng: np.random.Generator) -> Policy:
    def choose(game: raw_env, agent: str, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        closes = legal[(legal >= CLOSE) & (legal < CLOSE + CARD_KINDS)]
        return int(closes[0]) if len(closes) else int(rng.choice(legal))

    return choose


def simple_policy(rng: np.random.Generator) -> Policy:
    bot = make_bot("simple")
    bot_rng = random.Random(int(rng.integers(2**31)))

    def choose(game: raw_env, agent: str, mask: np.ndarray) -> int:
        view = game.view(agent)
        return action_index(bot.choose(view, view.legal_actions, bot_rng))

    return choose


def rate(name: str, game: raw_env, policy: Policy, seconds: float, seed: int) -> float:
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game.reset(seed=seed + episodes)
        episodes += 1
        while game.agents:
            agent = game.agent_selection
            observation, _reward, terminated, truncated, _info = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            assert observation is not None
            game.step(policy(game, agent, observation["action_mask"]))
            steps += 1
    elapsed = time.perf_counter() - start
    print(f"{name:40} {steps / elapsed:8.0f} steps/s   ({steps} steps, {episodes} episodes, {elapsed:.1f} s)")
    return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time for each measure")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--max-turns", type=int, default=500, help="cut random episodes after this many actions")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    for players in (2, 4):
        game = raw_env("fournier", players, max_turns=args.max_turns)
        rate(f"random, {players} players (fournier)", game, random_policy(rng), args.seconds, args.seed)
        # Even bots can play a deal that never ends (every seat waiting for the same cards): cut at 2000 actions.
        game = raw_env("fournier", players, max_turns=2_000)
        rate(f"closer, {players} players (fournier)", game, closer_policy(rng), args.seconds, args.seed)
        rate(f"simple bots, {players} players (fournier)", game, simple_policy(rng), args.seconds, args.seed)


if __name__ == "__main__":
    main()
