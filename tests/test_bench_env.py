"""bench/env.py's driver: a uniformly random legal action in each game, independently of the other games."""

from __future__ import annotations

import collections

import numpy as np

from tests.scripts import load_script

bench = load_script("env", "bench")


def test_each_game_gets_one_of_its_legal_actions_and_a_game_with_none_gets_0() -> None:
    rng = np.random.default_rng(1)
    masks = (rng.random((64, 110)) < 0.05).astype(np.int8)
    masks[[0, 17, 63]] = 0
    for _ in range(50):
        actions = bench.random_legal(masks, rng)
        assert actions.shape == (64,)
        has = masks.any(axis=1)
        assert (masks[np.arange(64), actions][has] == 1).all()
        assert (actions[~has] == 0).all()
    assert (bench.random_legal(np.zeros((3, 110), dtype=np.int8), rng) == 0).all()


def test_the_choice_is_uniform_in_each_game_and_independent_between_games() -> None:
    masks = np.zeros((3, 110), dtype=np.int8)
    masks[0, [3, 50, 109]] = 1
    masks[1, [0, 7]] = 1
    masks[2, [0, 7]] = 1
    rng = np.random.default_rng(2026)
    draws = 12_000
    each: list[collections.Counter[int]] = [collections.Counter() for _ in range(3)]
    together: collections.Counter[tuple[int, int]] = collections.Counter()
    for _ in range(draws):
        actions = [int(a) for a in bench.random_legal(masks, rng)]
        for game, action in enumerate(actions):
            each[game][action] += 1
        together[actions[1], actions[2]] += 1
    for game, legal in enumerate(([3, 50, 109], [0, 7], [0, 7])):
        assert sorted(each[game]) == legal
        for action in legal:
            assert abs(each[game][action] / draws - 1 / len(legal)) < 0.02, (game, each[game])
    # Games 1 and 2 have the same legal actions: drawn independently, they differ about half the time.
    for pair in ((0, 0), (0, 7), (7, 0), (7, 7)):
        assert abs(together[pair] / draws - 0.25) < 0.02, together
