"""Bots thinking off the event loop: a pool of processes, with a deadline.

A bot is given its seat's observation only (its legal actions are in it).
The observation is sent with its rules as a plain dictionary (the rules'
solver tables are rebuilt once in each worker and never cross the pipe).
"""

from __future__ import annotations

import asyncio
import copyreg
import io
import multiprocessing
import multiprocessing.connection
import os
import pickle
import random
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from functools import lru_cache
from typing import Any, TypeVar

from chinchon.bots import make_bot
from chinchon.bots.base import Bot
from chinchon.observation import Observation
from chinchon.rules import Rules

__all__ = ["BotPool"]

T = TypeVar("T")
R = TypeVar("R")


@lru_cache(maxsize=64)
def _rules(items: tuple[tuple[str, Any], ...]) -> Rules:
    return Rules.from_dict(dict(items))


def _rebuild_rules(data: dict[str, Any]) -> Rules:
    return _rules(tuple(sorted((key, _hashable(value)) for key, value in data.items())))


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _reduce_rules(rules: Rules) -> tuple[Any, tuple[dict[str, Any]]]:
    return _rebuild_rules, (rules.to_dict(),)


def _pack(value: object) -> bytes:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = copyreg.dispatch_table.copy()
    pickler.dispatch_table[Rules] = _reduce_rules
    pickler.dump(value)
    return buffer.getvalue()


@lru_cache(maxsize=32)
def _bot(spec: str) -> Bot:
    return make_bot(spec)


def _think(payload: bytes) -> tuple[str, float]:
    spec, observation, seed = pickle.loads(payload)
    started = time.perf_counter()
    action = _bot(spec).choose(observation, list(observation.legal_actions), random.Random(seed))
    return str(action), time.perf_counter() - started


def _end_with_the_server() -> None:
    """A worker's start: it ends when the server's process does, even a process killed outright (SIGKILL)."""
    server = multiprocessing.parent_process()
    if server is None:
        return

    def watch(sentinel: int) -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(0)

    threading.Thread(target=watch, args=(server.sentinel,), name="chinchon-bot-watch", daemon=True).start()


class BotPool:
    """Runs bots' choices in worker processes (or threads, ``kind="thread"``)."""

    def __init__(self, workers: int = 2, kind: str = "process") -> None:
        self.kind = kind
        self.workers = max(1, workers)
        self._executor: Executor | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.kind == "thread":
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="chinchon-bot")
            else:
                context = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(self.workers, mp_context=context, initializer=_end_with_the_server)
        return self._executor

    async def choose(self, spec: str, observation: Observation, deadline: float) -> tuple[str, float]:
        """The bot's action (as text), from the seat's observation (its legal actions in it), and its thinking
        time; raises ``TimeoutError`` past ``deadline`` seconds."""
        payload = _pack((spec, observation, secrets.randbits(64)))
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self._pool(), _think, payload)
            return await asyncio.wait_for(future, deadline)
        except BrokenExecutor:
            # A worker died (killed, out of memory): a new pool takes over, and this choice is made again.
            self.close()
            future = loop.run_in_executor(self._pool(), _think, payload)
            return await asyncio.wait_for(future, deadline)

    async def run(self, function: Callable[[T], R], argument: T) -> R:
        """``function(argument)`` run in a worker (other work than a bot's choice: an analysis, for one).

        Both must be picklable; a pool whose worker died is replaced and the call made again.
        """
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), function, argument)
        except BrokenExecutor:
            self.close()
            return await loop.run_in_executor(self._pool(), function, argument)

    def close(self) -> None:
        """Stop the workers."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
