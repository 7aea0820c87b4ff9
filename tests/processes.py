"""Processes as Linux's /proc shows them: a process's children, and whether one still runs."""

from __future__ import annotations

import contextlib
from pathlib import Path

__all__ = ["children", "running"]


def children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid``, each as its number and start time."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append((int(stat.parent.name), fields[19]))
    return found


def running(process: tuple[int, str]) -> bool:
    """Whether the process is still there (the same one: its number is not reused) and not a zombie."""
    pid, started = process
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == started and fields[0] != "Z"
