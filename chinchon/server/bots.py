"""Bots thinking off the event loop: a pool of processes, with a deadline.

A bot is given its seat's observation only (its legal actions are in it).
The observation is sent with its rules as a plain dictionary (the rules'
solver tables are rebuilt once in each worker and never cross the pipe).

The workers are spoken to through pipes watched by the event loop itself:
no thread of the server's process takes part (a pool of processes from
``concurrent.futures`` runs two threads that take the interpreter's lock
from the event loop several times a decision).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
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
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
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


def _serve(connection: multiprocessing.connection.Connection, nice: int = 0) -> None:
    """A worker's life: run each ``(function, argument)`` it is sent, and send back ``(ok, result or error)``;
    ``nice`` steps below the server's scheduling priority."""
    _end_with_the_server()
    if nice:
        os.nice(nice)
    while True:
        try:
            function, argument = pickle.loads(connection.recv_bytes())
        except EOFError:
            return
        try:
            reply = pickle.dumps((True, function(argument)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # the caller gets the error; the worker goes on
            try:
                reply = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:
                reply = pickle.dumps((False, RuntimeError(repr(exc))), protocol=pickle.HIGHEST_PROTOCOL)
        connection.send_bytes(reply)


class _Worker:
    """One worker process, its end of the pipe, and the call it is running."""

    def __init__(self, context: Any, nice: int = 0) -> None:
        self.connection, theirs = context.Pipe(duplex=True)
        self.process = context.Process(target=_serve, args=(theirs, nice), daemon=True, name="chinchon-bot")
        self.process.start()
        theirs.close()
        self.call: asyncio.Future[Any] | None = None


class _PipePool:
    """Worker processes spoken to through pipes that the running event loop watches (``loop.add_reader``)."""

    def __init__(self, workers: int, nice: int = 0) -> None:
        self.size = workers
        self.nice = nice
        self.context = multiprocessing.get_context("spawn")
        self.workers: list[_Worker] = []
        self.waiting: collections.deque[tuple[bytes, asyncio.Future[Any]]] = collections.deque()
        self.loop: asyncio.AbstractEventLoop | None = None

    def submit(self, function: Callable[[Any], Any], argument: Any) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self.close()
            self.loop = loop
        future: asyncio.Future[Any] = loop.create_future()
        self.waiting.append((pickle.dumps((function, argument), protocol=pickle.HIGHEST_PROTOCOL), future))
        self._dispatch()
        return future

    def _dispatch(self) -> None:
        assert self.loop is not None
        while self.waiting:
            idle = next((w for w in self.workers if w.call is None), None)
            if idle is None:
                if len(self.workers) >= self.size:
                    return
                idle = _Worker(self.context, self.nice)
                self.workers.append(idle)
                self.loop.add_reader(idle.connection.fileno(), self._readable, idle)
            payload, future = self.waiting.popleft()
            if future.done():  # given up on (past its deadline) before a worker was free
                continue
            try:
                idle.connection.send_bytes(payload)
            except OSError:
                self._lost(idle)
                self.waiting.appendleft((payload, future))
                continue
            idle.call = future

    def _readable(self, worker: _Worker) -> None:
        try:
            ok, value = pickle.loads(worker.connection.recv_bytes())
        except (EOFError, OSError):
            self._lost(worker)
        else:
            call, worker.call = worker.call, None
            if call is not None and not call.done():
                if ok:
                    call.set_result(value)
                else:
                    call.set_exception(value)
        self._dispatch()

    def _lost(self, worker: _Worker) -> None:
        """A worker died (killed, out of memory): its call fails as a broken pool's would; another takes its place."""
        assert self.loop is not None
        self.loop.remove_reader(worker.connection.fileno())
        worker.connection.close()
        worker.process.join(0)
        self.workers.remove(worker)
        if worker.call is not None and not worker.call.done():
            worker.call.set_exception(BrokenProcessPool("a bot's worker process ended"))

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process.pid is not None]

    def close(self) -> None:
        for worker in self.workers:
            if self.loop is not None and not self.loop.is_closed():
                with contextlib.suppress(Exception):
                    self.loop.remove_reader(worker.connection.fileno())
            worker.connection.close()
            worker.process.kill()
            worker.process.join(5)
            if worker.call is not None and not worker.call.done():
                worker.call.set_exception(BrokenProcessPool("the bots' pool was closed"))
        self.workers.clear()
        for _, future in self.waiting:
            if not future.done():
                future.set_exception(BrokenProcessPool("the bots' pool was closed"))
        self.waiting.clear()


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
    """Runs bots' choices in worker processes (or threads, ``kind="thread"``), ``nice`` steps below the
    server's scheduling priority (``os.nice``): a person's ack does not wait for a bot's thinking."""

    def __init__(self, workers: int = 2, kind: str = "process", nice: int = 0) -> None:
        self.kind = kind
        self.workers = max(1, workers)
        self.nice = nice
        self._executor: Executor | None = None
        self._pipes: _PipePool | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="chinchon-bot")
        return self._executor

    def _call(self, function: Callable[[Any], Any], argument: Any) -> asyncio.Future[Any]:
        if self.kind == "thread":
            return asyncio.get_running_loop().run_in_executor(self._pool(), function, argument)
        if self._pipes is None:
            self._pipes = _PipePool(self.workers, self.nice)
        return self._pipes.submit(function, argument)

    def pids(self) -> list[int]:
        """The worker processes' ids (none before the first call, or with threads)."""
        return self._pipes.pids() if self._pipes is not None else []

    async def choose(self, spec: str, observation: Observation, deadline: float) -> tuple[str, float]:
        """The bot's action (as text), from the seat's observation (its legal actions in it), and its thinking
        time; raises ``TimeoutError`` past ``deadline`` seconds."""
        payload = _pack((spec, observation, secrets.randbits(64)))
        try:
            result: tuple[str, float] = await asyncio.wait_for(self._call(_think, payload), deadline)
        except BrokenExecutor:
            # A worker died (killed, out of memory): another takes its place, and this choice is made again.
            result = await asyncio.wait_for(self._call(_think, payload), deadline)
        return result

    async def run(self, function: Callable[[T], R], argument: T) -> R:
        """``function(argument)`` run in a worker (other work than a bot's choice: an analysis, for one).

        Both must be picklable; a pool whose worker died is replaced and the call made again.
        """
        try:
            result: R = await self._call(function, argument)
        except BrokenExecutor:
            result = await self._call(function, argument)
        return result

    def close(self) -> None:
        """Stop the workers."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        if self._pipes is not None:
            self._pipes.close()
            self._pipes = None
