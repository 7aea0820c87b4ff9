"""The vector environment: the same games as BotOpponentsEnv, autoreset, seeds, workers, refusals."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any

import pytest

pytest.importorskip("pettingzoo")  # the optional extra rl: pettingzoo, gymnasium, numpy

import numpy as np

from chinchon.actions import IllegalAction
from chinchon.bots import BotError, bot_names
from chinchon.env import CARD_KINDS, CLOSE, BotOpponentsEnv, EnvError, encode_observation
from chinchon.rules import Rules
from chinchon.vector_env import BotOpponentsVectorEnv


def learner_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A legal action in every game, mostly a close when one is legal (so that matches end); 0 where none is."""
    actions = np.zeros(len(masks), dtype=np.int64)
    for i, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        closes = legal[(legal >= CLOSE) & (legal < CLOSE + CARD_KINDS)]
        if len(closes) and rng.random() < 0.8:
            actions[i] = closes[0]
        elif len(legal):
            actions[i] = rng.choice(legal)
    return actions


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rules": "fournier", "players": 2, "reward": "match", "max_turns": 400},
        {"rules": "online", "players": 3, "opponents": ["simple", "simple"], "reward": "hand", "seat": 1},
        {"rules": "fournier", "players": 3, "reward": "match", "interactive_showdown": True, "max_turns": 150},
        {"rules": "clasico", "players": 2, "opponents": "random", "reward": "hand", "max_turns": 300},
    ],
)
def test_each_game_plays_as_bot_opponents_env(kwargs: dict[str, Any]) -> None:
    """Game i, step by step, is BotOpponentsEnv playing seed s + i, then (after its autoreset) s + i + N.

    The bots here (simple, with or without noise) choose the first close of a discard and the first show, so
    playing their own action (the vector) or the first with its number (BotOpponentsEnv) is the same.
    """
    games = 3
    vector = BotOpponentsVectorEnv(games, **kwargs)
    singles = [BotOpponentsEnv(**kwargs) for _ in range(games)]
    observations, infos = vector.reset(seed=40)
    assert infos == {} and list(vector.seeds) == [40, 41, 42]
    expected = [single.reset(seed=40 + i)[0] for i, single in enumerate(singles)]
    seeds = [40 + i for i in range(games)]
    done = [False] * games
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(700):
        for i in range(games):
            assert np.array_equal(observations["observation"][i], expected[i]["observation"])
            assert np.array_equal(observations["action_mask"][i], expected[i]["action_mask"])
        assert vector.observation_space.contains(observations)
        actions = learner_actions(observations["action_mask"], rng)
        observations, rewards, terminated, truncated, _infos = vector.step(actions)
        for i, single in enumerate(singles):
            if done[i]:
                seeds[i] += games
                expected[i] = single.reset(seed=seeds[i])[0]
                reward, ended, cut = 0.0, False, False
            else:
                expected[i], reward, ended, cut, _info = single.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, ended, cut)
            done[i] = ended or cut
            episodes += done[i]
        assert list(vector.seeds) == seeds
    assert episodes >= 4
    # The vector is the reference encoding of the learner's own observation.
    for i in range(games):
        match = vector.match(i)
        assert np.array_equal(observations["observation"][i], encode_observation(match.observation(vector.config.seat)))
    vector.close()


FAST_PATH_CASES = [
    ("fournier", 2, "random", {"reward": "match"}),
    ("clasico", 3, ["random", "simple"], {"reward": "hand"}),
    ("online", 2, "random", {"reward": "hand"}),
    ("polaco", 3, "random", {"reward": "match", "interactive_showdown": True}),
    (Rules(max_reshuffles=0, limit=30, reentry="unlimited"), 3, "random", {"reward": "hand"}),
    (Rules(decks=2, jokers=2, wild_ace_of_oros=True, forbid_rediscard=True), 2, "random", {"reward": "match"}),
    ("fournier", 2, "simple", {"reward": "hand", "seat": 1}),
]


@pytest.mark.parametrize(("rules", "players", "opponents", "kwargs"), FAST_PATH_CASES)
def test_the_fast_path_plays_the_same_games_as_the_checked_path(
    rules: Rules | str, players: int, opponents: str | list[str], kwargs: dict[str, Any]
) -> None:
    """fast_path=True (integer moves, masks from the move list, the random bot without legal actions) gives the
    same observations, masks, rewards, ends and seeds at every step as fast_path=False (Match.apply and
    legal_actions everywhere), and the matches keep the same records and events; over every preset, house rules
    with void deals and re-entries, two decks and wild cards, seeded bots."""
    games = 6
    fast, checked = (
        BotOpponentsVectorEnv(games, rules, players, opponents, max_turns=250, fast_path=fast, **kwargs)
        for fast in (True, False)
    )
    observations, _ = fast.reset(seed=11)
    expected, _ = checked.reset(seed=11)
    rng = np.random.default_rng(3)
    ended = 0
    for step in range(500):
        for name in ("observation", "action_mask"):
            assert np.array_equal(observations[name], expected[name]), (name, step)
        actions = learner_actions(observations["action_mask"], rng)
        observations, rewards, terminated, truncated, _ = fast.step(actions)
        expected, expected_rewards, expected_terminated, expected_truncated, _ = checked.step(actions)
        assert np.array_equal(rewards, expected_rewards), step
        assert np.array_equal(terminated, expected_terminated) and np.array_equal(truncated, expected_truncated), step
        assert np.array_equal(fast.seeds, checked.seeds)
        ended += int((terminated | truncated).sum())
    assert ended >= games
    for game in range(games):
        assert fast.match(game).record() == checked.match(game).record()
        assert fast.match(game).all_events() == checked.match(game).all_events()


def test_workers_step_the_same_games() -> None:
    here = BotOpponentsVectorEnv(5, "clasico", 3, "simple", reward="hand", max_turns=300, seed=9)
    there = BotOpponentsVectorEnv(5, "clasico", 3, "simple", reward="hand", max_turns=300, seed=9, workers=2)
    try:
        a, _ = here.reset()
        b, _ = there.reset()
        rng = np.random.default_rng(1)
        ended = 0
        for _ in range(400):
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
            actions = learner_actions(a["action_mask"], rng)
            a, rewards_a, terminated_a, truncated_a, _ = here.step(actions)
            b, rewards_b, terminated_b, truncated_b, _ = there.step(actions)
            assert np.array_equal(rewards_a, rewards_b)
            assert np.array_equal(terminated_a, terminated_b) and np.array_equal(truncated_a, truncated_b)
            ended += int((terminated_a | truncated_a).sum())
        assert ended and np.array_equal(here.seeds, there.seeds)
        with pytest.raises(EnvError, match="worker"):
            there.match(0)
        # An illegal action in a worker's game is refused before anything moves.
        wrong = learner_actions(b["action_mask"], rng)
        game = int(np.flatnonzero(b["action_mask"].any(axis=1))[-1])
        wrong[game] = int(np.flatnonzero(b["action_mask"][game] == 0)[0])
        with pytest.raises(IllegalAction, match=f"game {game}"):
            there.step(wrong)
    finally:
        here.close()
        there.close()
    assert not any(process.is_alive() for process in there._processes)
    # Closed, the games of an environment with workers are still not at hand, this process's share included.
    for game in (0, 4):
        with pytest.raises(EnvError, match="worker"):
            there.match(game)


def test_buffers_copies_and_reset() -> None:
    shared = BotOpponentsVectorEnv(4, copy=False, max_turns=200)
    observations, _ = shared.reset(seed=3)
    rng = np.random.default_rng(2)
    after, *_ = shared.step(learner_actions(observations["action_mask"], rng))
    # Without copies the step writes into the same arrays.
    assert after["observation"] is observations["observation"] and after["action_mask"] is observations["action_mask"]
    copied = BotOpponentsVectorEnv(4, max_turns=200)
    first, _ = copied.reset(seed=3)
    second, *_ = copied.step(learner_actions(first["action_mask"], rng))
    assert second["observation"] is not first["observation"]
    assert np.array_equal(copied.action_masks(), second["action_mask"].astype(bool))
    # reset() without a seed: each game's next match; a mask restarts only some games.
    copied.reset()
    assert list(copied.seeds) == [7, 8, 9, 10]
    before = copied.step(learner_actions(copied.action_masks().astype(np.int8), rng))[0]
    restarted, _ = copied.reset(seed=100, options={"reset_mask": np.array([False, True, False, False])})
    assert list(copied.seeds) == [7, 101, 9, 10]
    assert np.array_equal(restarted["observation"][[0, 2, 3]], before["observation"][[0, 2, 3]])
    fresh = BotOpponentsEnv(max_turns=200).reset(seed=101)[0]
    assert np.array_equal(restarted["observation"][1], fresh["observation"])


def test_refusals() -> None:
    vector = BotOpponentsVectorEnv(2, "fournier", 2, "simple")
    with pytest.raises(EnvError, match="reset"):
        vector.step(np.zeros(2, dtype=np.int64))
    observations, _ = vector.reset(seed=0)
    reference = BotOpponentsVectorEnv(2, "fournier", 2, "simple")
    reference.reset(seed=0)
    legal = learner_actions(observations["action_mask"], np.random.default_rng(0))
    wrong = legal.copy()
    wrong[1] = 200
    with pytest.raises(IllegalAction, match="action 200 is not legal for the learner in game 1"):
        vector.step(wrong)
    # Refused before any game moved: both games play on from where they were.
    assert np.array_equal(vector.step(legal)[0]["observation"], reference.step(legal)[0]["observation"])
    with pytest.raises(EnvError, match="actions"):
        vector.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(EnvError, match="actions"):
        vector.step(np.zeros(2, dtype=np.float32))
    with pytest.raises(EnvError, match="seed"):
        vector.reset(seed=[1])
    with pytest.raises(EnvError, match="reset_mask"):
        vector.reset(options={"reset_mask": [True]})
    with pytest.raises(EnvError, match="num_envs"):
        BotOpponentsVectorEnv(0)
    with pytest.raises(EnvError, match="workers"):
        BotOpponentsVectorEnv(2, workers=-1)
    with pytest.raises(EnvError, match="opponents"):
        BotOpponentsVectorEnv(2, "fournier", 3, ["simple"])
    with pytest.raises(EnvError, match="seat"):
        BotOpponentsVectorEnv(2, "fournier", 2, seat=2)
    with pytest.raises(BotError):
        BotOpponentsVectorEnv(2, opponents="nobody")
    with pytest.raises(EnvError, match="reward"):
        BotOpponentsVectorEnv(2, reward="points")  # type: ignore[arg-type]
    vector.close()
    with pytest.raises(EnvError, match="closed"):
        vector.reset()


def step_alike(
    vector: BotOpponentsVectorEnv, here: BotOpponentsVectorEnv, a: Any, b: Any, rng: np.random.Generator, steps: int
) -> None:
    """Steps both environments with the same actions, checking that they show the same observations and masks."""
    for _ in range(steps):
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
        actions = learner_actions(a["action_mask"], rng)
        a, *_ = vector.step(actions)
        b, *_ = here.step(actions)


def test_this_process_steps_a_share_beside_its_workers() -> None:
    """workers=k splits the games among this process and k workers, at most one process a game: one game never
    goes to a worker, and its match stays at hand."""
    vector = BotOpponentsVectorEnv(3, "fournier", 2, "random", max_turns=200, seed=2, workers=5)
    alone = BotOpponentsVectorEnv(1, "fournier", 2, "random", max_turns=200, seed=2, workers=1)
    here = BotOpponentsVectorEnv(3, "fournier", 2, "random", max_turns=200, seed=2)
    try:
        assert (vector.workers, alone.workers) == (2, 0)
        pids = vector.worker_pids
        assert len(set(pids)) == 2 and os.getpid() not in pids and alone.worker_pids == () == here.worker_pids
        assert all(os.path.exists(f"/proc/{pid}") for pid in pids)
        a, _ = vector.reset()
        b, _ = here.reset()
        alone.reset()
        assert alone.match(0).seed == 2
        step_alike(vector, here, a, b, np.random.default_rng(4), 150)
    finally:
        for env in (vector, alone, here):
            env.close()
    assert vector.worker_pids == ()


def test_a_reply_left_unread_is_read_before_the_next_message() -> None:
    """A call interrupted (Ctrl-C) while this process stepped its share leaves the workers' replies unread: the next
    call reads them first, and waits for the answers to its own message."""
    vector = BotOpponentsVectorEnv(6, "fournier", 2, "random", max_turns=200, seed=5, workers=1)
    here = BotOpponentsVectorEnv(6, "fournier", 2, "random", max_turns=200, seed=5)
    try:
        a, _ = vector.reset()
        b, _ = here.reset()
        # What an interrupted call leaves: a message sent (a reset that starts no game), its reply not read.
        for connection in vector._connections:
            connection.send(("reset", [None] * 6))
            vector._unanswered.append(connection)
        step_alike(vector, here, a, b, np.random.default_rng(6), 40)
        assert not vector._unanswered
    finally:
        vector.close()
        here.close()


@pytest.mark.parametrize("opponent", [name if name != "ismcts" else "ismcts:iterations=20" for name in bot_names()])
def test_the_games_make_no_reference_cycles(opponent: str) -> None:
    """A worker runs without the automatic cycle collector (``vector_env._work``): steps, closes, showdowns, new
    deals, autoresets and every registered bot leave nothing that only a collection of cycles frees."""
    vector = BotOpponentsVectorEnv(2, "fournier", 2, opponent, max_turns=30, seed=5)
    observations, _ = vector.reset()
    rng = np.random.default_rng(5)
    gc.collect()
    gc.disable()
    try:
        ended = 0
        for _ in range(60):
            observations, _, terminated, truncated, _ = vector.step(learner_actions(observations["action_mask"], rng))
            ended += int((terminated | truncated).sum())
        assert ended and gc.collect() == 0
    finally:
        gc.enable()
        vector.close()


def test_workers_end_with_their_parent() -> None:
    """A parent killed outright (SIGKILL) leaves no worker behind."""
    script = textwrap.dedent(
        """
        import sys, time
        from chinchon.vector_env import BotOpponentsVectorEnv
        vector = BotOpponentsVectorEnv(4, workers=2)
        vector.reset(seed=1)
        print(" ".join(str(pid) for pid in vector.worker_pids), flush=True)
        time.sleep(120)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(alive(pid) for pid in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait(30)
        assert ended(*workers)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_worker_that_ended_is_a_clear_error() -> None:
    """A worker gone (killed, or failed to start: a script without the ``__main__`` guard) makes every later call
    raise ``EnvError`` naming it, not a pipe's error; ``close()`` still stops the rest."""
    vector = BotOpponentsVectorEnv(6, "fournier", 2, "random", max_turns=200, seed=5, workers=2)
    try:
        observations, _ = vector.reset()
        gone, kept = vector.worker_pids
        os.kill(gone, signal.SIGKILL)
        assert ended(gone)
        actions = learner_actions(observations["action_mask"], np.random.default_rng(1))
        for _ in range(2):
            with pytest.raises(EnvError, match=rf"worker process {gone} has ended \(exit code -9\)"):
                vector.step(actions)
        with pytest.raises(EnvError, match=rf"worker process {gone} has ended"):
            vector.reset()
    finally:
        vector.close()
    assert ended(kept)


def test_a_script_without_the_main_guard_is_told_so(tmp_path: Any) -> None:
    """Workers are spawned: a script that makes them at its top level gets the guard named in the error."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from chinchon.vector_env import BotOpponentsVectorEnv\n"
        "vector = BotOpponentsVectorEnv(4, workers=1)\n"
        "vector.reset(seed=1)\n"
    )
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("chinchon.env.EnvError: worker process") and "__name__ == '__main__'" in last


def ended(*pids: int, seconds: float = 30) -> bool:
    """Whether every one of these processes has ended within ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie, dead but not yet reaped by init, does not count)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False
    except OSError:  # pragma: no cover - no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_the_training_example_runs() -> None:
    """examples/train_vector.py, cut very short: it trains and reports the win rates before and after."""
    example = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "train_vector.py")
    run = subprocess.run(
        [sys.executable, example, "--minutes", "0.02", "--games", "4", "--horizon", "4", "--evaluate", "4"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = run.stdout.splitlines()
    assert lines[0].startswith("before training") and lines[-1].startswith("after training")
    assert any(line.startswith("trained on") for line in lines)
