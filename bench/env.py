"""Steps per second of the reinforcement-learning environments, beside RLCard's gin rummy, in one run.

Random legal play, 2 players, ``fournier`` rules, episodes cut at
``--max-turns`` actions (random play rarely closes):

- ``RLCard gin-rummy``: ``rlcard.make("gin-rummy")``, ``reset``/``step``
  with its state encoding, a random legal action each step;
- ``env()``: the AEC environment with PettingZoo's wrappers, an agent's
  ``last()`` (its observation vector and mask) then ``step()``;
- ``raw_env()``: the same without the wrappers;
- ``raw_env(), whole encoding``: ``raw_env`` encoding each observation
  whole with ``encode_observation(match.observation(seat))`` instead of
  its :class:`~chinchon.env.SeatEncoder` fed the match's events;
- ``vector N=n, p process(es)``: :class:`~chinchon.vector_env.BotOpponentsVectorEnv`
  with ``n`` games, the learner at seat 0 playing a random legal action,
  the ``random`` bot (or ``--opponents``) at the other seat; one process
  (``workers=0``) or two (``workers=1``: this one and a worker; not with
  one game, which one process steps). A step is one learner decision (the bot's decisions
  in between are not counted; ``actions/s`` counts every seat's).

Each configuration runs in a process of its own (as a training script
holds one environment), made once and kept between rounds; ``--together``
runs them all in this process instead, where the garbage collector's
passes go through every environment and RLCard's objects at once. Each
runs ``--seconds`` of wall-clock time, ``--repeat`` times, interleaved
with the others; the table gives the medians of steps per second of
wall-clock time and per second of CPU time (its process's and its
workers', read from ``/proc``), each with its ratio to RLCard's median of
the same run. On a shared machine the CPU-time figures move less; the
wall-clock ones are what two processes gain. Compare ratios, not absolute
figures, between runs. ``--profile`` prints where
a step's time goes (cProfile, cumulative shares) for ``raw_env`` and for
the vector environment.

The first line names the modules that run compiled (the optional build of
``CHINCHON_COMPILE=1``, docs/rl.md), or none.

Run: ``python bench/env.py [--seconds S] [--repeat R] [--max-turns T] [--sizes 1,16,256] [--opponents B] [--profile]
[--freeze] [--together]``
(RLCard: ``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import math
import multiprocessing
import multiprocessing.connection
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon.compiled import compiled_modules
from chinchon.env import action_mask, encode_observation, env, raw_env
from chinchon.vector_env import BotOpponentsVectorEnv

Runner = Callable[[float], tuple[int, int]]
"""Runs for about so many seconds; returns (steps, every seat's actions)."""
Spec = tuple[Any, ...]
"""What makes a runner (:func:`make_runner`): its kind, then that kind's arguments."""


class whole_encoding_env(raw_env):
    """``raw_env`` encoding every observation whole from the match's observation."""

    def observe(self, agent: str) -> dict[str, Any]:
        view = self.view(agent)
        if self.terminations.get(agent) or self.truncations.get(agent):
            mask = np.zeros(self._size, dtype=np.int8)
        else:
            mask = action_mask(view, self.interactive_showdown)
        return {"observation": encode_observation(view), "action_mask": mask}


def aec_runner(make: Callable[[], Any], seed: int) -> Runner:
    game = make()
    rng = np.random.default_rng(seed)
    episodes = [0]

    def run(seconds: float) -> tuple[int, int]:
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            game.reset(seed=seed + episodes[0])
            episodes[0] += 1
            for _agent in game.agent_iter():
                observation, _reward, terminated, truncated, _info = game.last()
                if terminated or truncated:
                    game.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                game.step(int(legal[rng.integers(len(legal))]))
                steps += 1
        return steps, steps

    return run


def rlcard_runner(seed: int) -> Runner:
    import rlcard

    game = rlcard.make("gin-rummy", config={"seed": seed})
    rng = np.random.default_rng(seed)

    def run(seconds: float) -> tuple[int, int]:
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            state, _player = game.reset()
            while not game.is_over():
                legal = list(state["legal_actions"])
                state, _player = game.step(legal[rng.integers(len(legal))])
                steps += 1
        return steps, steps

    return run


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action in each game, drawn independently, from ``(games, actions)`` masks; 0 in a
    game with none (one that just ended: the environment ignores it there).

    The legal numbers of every game come from one scan of the masks, and each game picks one of its own with one
    random number: about a quarter of the time of a random number per game and action (``argmax`` of random
    draws times the masks), whose arrays also pushed the games' data out of the cache.
    """
    games, actions = masks.shape
    legal = masks.view(np.bool_).reshape(-1).nonzero()[0]
    if not len(legal):
        return np.zeros(games, dtype=np.intp)
    rows = legal // actions
    counts = np.bincount(rows, minlength=games)
    pick = np.cumsum(counts) - 1 - (rng.random(games) * counts).astype(np.intp)
    return np.where(counts > 0, legal[pick] - rows[pick] * actions, 0)


def vector_runner(games: int, workers: int, max_turns: int, seed: int, opponents: str = "random") -> Runner:
    vector = BotOpponentsVectorEnv(
        games, "fournier", 2, opponents, max_turns=max_turns, workers=workers, copy=False, seed=seed
    )
    rng = np.random.default_rng(seed)
    observations, _infos = vector.reset(seed=seed)

    def run(seconds: float) -> tuple[int, int]:
        nonlocal observations
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            actions = random_legal(observations["action_mask"], rng)
            observations, _rewards, _terminated, _truncated, _infos = vector.step(actions)
            steps += games
        return steps, steps

    run.close = vector.close  # type: ignore[attr-defined]
    run.pids = list(vector.worker_pids)  # type: ignore[attr-defined]
    return run


def cpu_seconds(pids: list[int]) -> float:
    """CPU time of this process and of the processes ``pids`` (Linux: from /proc), in seconds."""
    total = time.process_time()
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(") ", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        except (OSError, IndexError, ValueError):
            return math.nan
    return total


Rates = dict[str, list[float]]


def make_runner(spec: Spec) -> Runner:
    """The runner a spec names: ``("rlcard", seed)``, ``("aec", "env" | "raw_env" | "whole", max_turns, seed)`` or
    ``("vector", games, workers, max_turns, seed, opponents)``."""
    kind, *args = spec
    if kind == "rlcard":
        return rlcard_runner(*args)
    if kind == "aec":
        make = {"env": env, "raw_env": raw_env, "whole": whole_encoding_env}[args[0]]
        turns, seed = args[1], args[2]
        return aec_runner(lambda: make("fournier", 2, max_turns=turns), seed)
    return vector_runner(*args)


def timed(run: Runner, seconds: float) -> tuple[float, float]:
    """One round of ``run``: its steps per second of wall-clock time and per second of CPU time (this process's and
    its workers')."""
    pids = getattr(run, "pids", [])
    cpu = cpu_seconds(pids)
    start = time.perf_counter()
    steps, _actions = run(seconds)
    return steps / (time.perf_counter() - start), steps / (cpu_seconds(pids) - cpu)


def close_runner(run: Runner) -> None:
    """Stop what a runner holds (a vector environment's workers)."""
    close = getattr(run, "close", None)
    if close is not None:
        close()


def freeze() -> None:
    """What a training script can do once its environments and model are made (docs/rl.md, "Speed")."""
    gc.collect()
    gc.freeze()


def serve(connection: multiprocessing.connection.Connection, spec: Spec, frozen: bool) -> None:
    """A configuration's own process: make its runner, then time a round for every number of seconds received (until
    ``None``)."""
    try:
        run = make_runner(spec)
    except Exception as error:  # the bench's process says which configuration could not start
        connection.send(f"{type(error).__name__}: {error}")
        return
    if frozen:
        freeze()
    connection.send("ready")
    try:
        while (seconds := connection.recv()) is not None:
            try:
                connection.send(timed(run, seconds))
            except Exception as error:  # the bench's process names the configuration that failed
                connection.send(f"{type(error).__name__}: {error}")
                return
    finally:
        close_runner(run)


class Apart:
    """A configuration run in a process of its own."""

    def __init__(self, spec: Spec, frozen: bool) -> None:
        context = multiprocessing.get_context("spawn")
        self.spec = spec
        self.connection, theirs = context.Pipe()
        # Not a daemon: a vector environment's worker is this process's child.
        self.process = context.Process(target=serve, args=(theirs, spec, frozen))
        self.process.start()
        theirs.close()
        answer = self.answer()
        if answer != "ready":
            self.close()
            raise RuntimeError(f"{spec}: the configuration's process did not start: {answer}")

    def answer(self) -> Any:
        """The configuration's process's next message (a text when it failed or ended)."""
        try:
            return self.connection.recv()
        except (EOFError, OSError):
            self.process.join(timeout=30)
            return f"its process ended (exit code {self.process.exitcode})"

    def round(self, seconds: float) -> tuple[float, float]:
        with contextlib.suppress(OSError):  # a process that ended: answer() says so
            self.connection.send(seconds)
        rates = self.answer()
        if isinstance(rates, str):
            raise RuntimeError(f"{self.spec}: {rates}")
        return cast("tuple[float, float]", rates)

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a process that ended already
            self.connection.send(None)
        self.process.join(timeout=30)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=30)
        self.connection.close()


class Here:
    """A configuration run in this process."""

    def __init__(self, spec: Spec) -> None:
        self.run = make_runner(spec)

    def round(self, seconds: float) -> tuple[float, float]:
        return timed(self.run, seconds)

    def close(self) -> None:
        close_runner(self.run)


def measure(configs: dict[str, Apart | Here], seconds: float, repeat: int) -> tuple[Rates, Rates]:
    """Steps per second of wall-clock time, and per second of CPU time (of every process taking part)."""
    rates: Rates = {name: [] for name in configs}
    cpu_rates: Rates = {name: [] for name in configs}
    for round_ in range(repeat):
        for name, config in configs.items():
            rate, cpu_rate = config.round(seconds)
            rates[name].append(rate)
            cpu_rates[name].append(cpu_rate)
            print(f"  round {round_ + 1}: {name:40} {rate:10,.0f} steps/s {cpu_rate:10,.0f} per CPU-s", flush=True)
    return rates, cpu_rates


def profile(name: str, run: Runner, seconds: float) -> None:
    """Cumulative shares of a run's time in the parts of a step."""
    profiler = cProfile.Profile()
    profiler.enable()
    run(seconds)
    profiler.disable()
    stats: dict[tuple[str, int, str], Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = max(sum(row[2] for row in stats.values()), 1e-9)

    def spent(module: str, function: str, callers: tuple[tuple[str, str], ...] = ()) -> float:
        """Cumulative time in ``module.function`` (only when called from one of ``callers``, if given); a module is
        named by the end of its path (``match.py``, ``deal/__init__.py``)."""
        time_ = 0.0
        for (filename, _line, name), row in stats.items():
            if not Path(filename).as_posix().endswith("/" + module) or name != function:
                continue
            if not callers:
                time_ += row[3]
                continue
            for (caller_file, _caller_line, caller), caller_row in row[4].items():
                if (Path(caller_file).name, caller) in callers:
                    time_ += caller_row[3]
        return time_

    finish = (("vector_env.py", "_finish"),)
    bots = (("vector_env.py", "_play_bots"),)
    parts = {
        "the learner's vector (SeatEncoder.follow)": spent("env.py", "follow"),
        "its mask (legal actions, numbered)": spent("env.py", "mask") + spent("env.py", "_numbered", finish),
        "move lists (Match.moves: masks, random bot)": spent("match.py", "moves"),
        "the bots' views (Match.observation)": spent("match.py", "observation"),
        "the bots' choices (Bot.choose, random picks)": spent("simple.py", "choose")
        + spent("match.py", "legal_actions", bots)
        + spent("random.py", "choice", bots)
        + spent("vector_env.py", "_choice"),
        "the engine's moves (Match.apply, Match.play)": spent("match.py", "apply") + spent("match.py", "play"),
        "showdowns (Match.resolve_showdown)": spent("match.py", "resolve_showdown"),
    }
    parts["the rest (environment, PettingZoo, driver)"] = (
        total - sum(parts.values()) + spent("match.py", "apply", (("match.py", "resolve_showdown"),))
    )
    print(f"\nprofile of {name} (cProfile: shares of {total:.1f} s of profiled time):")
    for label, time_ in parts.items():
        print(f"  {label:44} {time_ / total:6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="wall-clock time of each measure")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every measure (the median is shown)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--max-turns", type=int, default=400, help="cut episodes after this many actions")
    parser.add_argument("--sizes", default="1,16,256", help="numbers of games of the vector environment")
    parser.add_argument("--opponents", default="random", help="the vector environment's bot (random, simple, ...)")
    parser.add_argument("--profile", action="store_true", help="profile raw_env and the vector environment")
    parser.add_argument(
        "--freeze",
        action="store_true",
        help="gc.freeze() once an environment is made: the collector's full passes leave it out",
    )
    parser.add_argument(
        "--together",
        action="store_true",
        help="run every configuration in this process, not each in its own",
    )
    args = parser.parse_args()
    seed, turns = args.seed, args.max_turns
    compiled = compiled_modules()
    print(f"compiled modules: {', '.join(compiled) if compiled else 'none (pure Python)'}")
    specs: dict[str, Spec] = {"RLCard gin-rummy": ("rlcard", seed)}
    specs["env() (PettingZoo wrappers)"] = ("aec", "env", turns, seed)
    specs["raw_env()"] = ("aec", "raw_env", turns, seed)
    if "chinchon.env" in compiled:
        print("raw_env(), whole encoding: not measured (a compiled raw_env cannot be subclassed)")
    else:
        specs["raw_env(), whole encoding"] = ("aec", "whole", turns, seed)
    for games in (int(n) for n in args.sizes.split(",")):
        for workers in (0, 1) if games > 1 else (0,):
            label = "1 process" if workers == 0 else "2 processes"
            specs[f"vector N={games}, {label}"] = ("vector", games, workers, turns, seed, args.opponents)
    configs: dict[str, Apart | Here] = {}
    try:
        for name, spec in specs.items():
            try:
                configs[name] = Here(spec) if args.together else Apart(spec, args.freeze)
            except (ImportError, RuntimeError) as error:
                if spec[0] != "rlcard":
                    raise
                print(f"RLCard: UNAVAILABLE ({error}); pip install -e '.[bench]'")
        if args.together and args.freeze:
            freeze()
        if args.freeze:
            print("gc.freeze() once the environments are made: the collector's full passes leave them out")
        rates, cpu_rates = measure(configs, args.seconds, args.repeat)
    finally:
        for config in configs.values():
            config.close()
    rlcard = "RLCard gin-rummy"
    base = statistics.median(rates[rlcard]) if rlcard in rates else None
    cpu_base = statistics.median(cpu_rates[rlcard]) if rlcard in rates else None
    print(f"\nmedians of {args.repeat} rounds of {args.seconds:g} s (2 players, random legal play, cut at {turns}):")
    print(f"  {'configuration':40} {'steps/s':>10} {'÷ RLCard':>9} {'per CPU-s':>10} {'÷ RLCard':>9}")
    for name in rates:
        median = statistics.median(rates[name])
        cpu_median = statistics.median(cpu_rates[name])
        ratio = f"{median / base:9.2f}" if base else f"{'n/a':>9}"
        cpu_ratio = f"{cpu_median / cpu_base:9.2f}" if cpu_base else f"{'n/a':>9}"
        print(f"  {name:40} {median:10,.0f} {ratio} {cpu_median:10,.0f} {cpu_ratio}")
    if args.profile:
        profile("raw_env()", aec_runner(lambda: raw_env("fournier", 2, max_turns=turns), seed), args.seconds)
        vector = vector_runner(256, 0, turns, seed)
        profile("vector N=256, 1 process, random bot", vector, args.seconds)
        simple = vector_runner(256, 0, turns, seed, opponents="simple")
        profile("vector N=256, 1 process, simple bot", simple, args.seconds)


if __name__ == "__main__":
    main()
