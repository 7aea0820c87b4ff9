"""The server's Prometheus metrics, in a registry of its own (one per application)."""

from __future__ import annotations

import gc
import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

__all__ = ["GcWatch", "Metrics"]


class Metrics:
    """Rooms open, connections, actions, errors, the action round trip, the bots' thinking time and the garbage
    collector's pauses."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.rooms = Gauge("chinchon_rooms_open", "Rooms open in memory", registry=self.registry)
        self.connections = Gauge("chinchon_connections", "WebSocket connections open", registry=self.registry)
        self.actions = Counter("chinchon_actions", "Actions applied, by people and bots", registry=self.registry)
        self.errors = Counter("chinchon_errors", "Typed errors sent to clients", ["code"], registry=self.registry)
        self.round_trip = Histogram(
            "chinchon_action_round_trip_seconds",
            "From a client's action arriving to its ack being queued",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
            registry=self.registry,
        )
        self.bot_seconds = Histogram(
            "chinchon_bot_think_seconds",
            "A bot's thinking time for one decision",
            buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5),
            registry=self.registry,
        )
        self.gc_pauses = Histogram(
            "chinchon_gc_pause_seconds",
            "How long a garbage collection stopped the server (by generation)",
            ["generation"],
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1),
            registry=self.registry,
        )
        self.gc_longest = Gauge(
            "chinchon_gc_pause_longest_seconds", "The longest garbage collection pause so far", registry=self.registry
        )


class GcWatch:
    """Times each garbage collection of this process (``gc.callbacks``) into the metrics, while installed."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self.started = 0.0
        self.longest = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        pause = time.perf_counter() - self.started
        self.metrics.gc_pauses.labels(str(info.get("generation", "?"))).observe(pause)
        if pause > self.longest:
            self.longest = pause
            self.metrics.gc_longest.set(pause)

    def install(self) -> None:
        """Start timing the collections."""
        if self not in gc.callbacks:
            gc.callbacks.append(self)

    def remove(self) -> None:
        """Stop timing them."""
        if self in gc.callbacks:
            gc.callbacks.remove(self)
