"""Worker processes that end with the process that started them, even one killed outright.

A pool's workers wait on a pipe that they hold open themselves: when their
parent is killed with SIGKILL (by the out-of-memory killer, or ``timeout -s
KILL``) nothing tells them, and they would run on for ever under init. Each
worker started here watches its parent's sentinel in a thread and ends as
soon as the parent is gone.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext

__all__ = ["end_with_parent", "worker_pool"]


def end_with_parent() -> None:
    """Make this process end when the process that started it does (call it first thing in a worker).

    Does nothing in a process that no ``multiprocessing`` parent started.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch(sentinel: int) -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(0)  # the parent is gone: nobody waits for this worker's results

    threading.Thread(target=watch, args=(parent.sentinel,), name="chinchon-parent-watch", daemon=True).start()


def worker_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that end with this one (see :func:`end_with_parent`)."""
    return ProcessPoolExecutor(workers, mp_context=context, initializer=end_with_parent)
