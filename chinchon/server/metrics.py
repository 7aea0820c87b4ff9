"""The server's Prometheus metrics, in a registry of its own (one per application)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

__all__ = ["Metrics"]


class Metrics:
    """Rooms open, connections, actions, errors, the action round trip and the bots' thinking time."""

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
