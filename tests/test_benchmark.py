"""The benchmark's loops: they play whole hands, and the two paths agree."""

from __future__ import annotations

import random

import pytest

from chinchon import Rules
from chinchon.benchmark import RANDOM_HAND_ACTIONS, loop_floor, play_hand, play_hand_fast


@pytest.mark.parametrize("seed", range(20))
def test_public_api_and_fast_path_play_the_same_hand(seed: int) -> None:
    # Same random source, same choices: the integer moves list the public actions in the same order.
    rules = Rules()
    assert play_hand(rules, 2, random.Random(seed)) == play_hand_fast(rules, 2, random.Random(seed))


def test_loop_floor_plays_its_length() -> None:
    assert loop_floor(random.Random(0)) == RANDOM_HAND_ACTIONS
    assert loop_floor(random.Random(0), 3) == 3
