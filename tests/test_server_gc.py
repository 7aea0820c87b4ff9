"""The server keeps the garbage collector's pauses short: the survivors of every collection are frozen, and thawed
in time."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client import generate_latest

from chinchon.server.app import create_app
from chinchon.server.metrics import GcWatch, Metrics
from chinchon.server.rooms import ServerSettings


class Node:
    """An object that can be part of a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def sample(metrics: Metrics, name: str, labels: dict[str, str] | None = None) -> float:
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


@pytest.fixture
def clean_collector() -> Iterator[None]:
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.mark.usefixtures("clean_collector")
def test_a_full_collection_freezes_its_survivors_and_a_thaw_collects_them_once() -> None:
    metrics = Metrics()
    watch = GcWatch(metrics, freeze=True)
    watch.install()
    try:
        survivors = [[k] for k in range(2000)]
        gc.collect()
        assert gc.get_freeze_count() >= len(survivors)
        assert sample(metrics, "chinchon_gc_pause_seconds_count", {"generation": "2"}) == 1
        survivors.append([-1])
        watch.thaw()  # handed back, collected at once, and what survives frozen again
        assert sample(metrics, "chinchon_gc_thaws_total") == 1
        assert sample(metrics, "chinchon_gc_pause_seconds_count", {"generation": "2"}) == 2
        assert gc.get_freeze_count() >= len(survivors)
        assert not any(o is survivors[-1] for g in range(3) for o in gc.get_objects(g))
    finally:
        watch.remove()


@pytest.mark.usefixtures("clean_collector")
def test_every_collection_freezes_its_survivors_and_without_freeze_nothing_is_frozen() -> None:
    metrics = Metrics()
    for freeze, generation in ((True, 0), (True, 1), (True, 2), (False, 0), (False, 2)):
        gc.unfreeze()
        survivor = [Node()]
        watch = GcWatch(metrics, freeze=freeze)
        watch.install()
        try:
            gc.collect(generation)
            assert (gc.get_freeze_count() >= 1) is freeze, (freeze, generation)
            # Frozen, the survivor is in none of the generations the collector looks at.
            seen = any(o is survivor for g in range(3) for o in gc.get_objects(g))
            assert gc.is_tracked(survivor) and seen is not freeze, (freeze, generation)
        finally:
            watch.remove()


@pytest.mark.usefixtures("clean_collector")
def test_a_cycle_frozen_and_dropped_is_collected_once_thawed() -> None:
    metrics = Metrics()
    watch = GcWatch(metrics, freeze=True)
    watch.install()
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        alive = weakref.ref(a)
        gc.collect()
        del a, b
        gc.collect()
        assert alive() is not None  # frozen: out of the collector's sight
        gc.collect(0)
        assert alive() is not None
        before = sample(metrics, "chinchon_gc_collected_objects_total", {"generation": "2"})
        watch.thaw()  # collects: the older generations never come due while every collection freezes
        assert alive() is None
        assert sample(metrics, "chinchon_gc_collected_objects_total", {"generation": "2"}) >= before + 2
    finally:
        watch.remove()


@pytest.mark.usefixtures("clean_collector")
def test_removing_the_watch_hands_back_what_it_froze() -> None:
    watch = GcWatch(Metrics(), freeze=True)
    watch.install()
    gc.collect()
    assert gc.get_freeze_count() > 0
    watch.remove()
    assert gc.get_freeze_count() == 0
    assert watch not in gc.callbacks


@pytest.mark.usefixtures("clean_collector")
def test_the_server_thaws_every_gc_thaw_seconds_and_freezes_survivors(tmp_path: Path) -> None:
    settings = ServerSettings(db=f"sqlite+aiosqlite:///{tmp_path / 'gc.db'}", gc_thaw=0.05)
    with TestClient(create_app(settings)) as client:
        deadline = time.monotonic() + 10
        thaws = 0.0
        while time.monotonic() < deadline and thaws < 2:
            time.sleep(0.05)
            text = client.get("/metrics").text
            thaws = next(
                float(line.split()[-1]) for line in text.splitlines() if line.startswith("chinchon_gc_thaws_total")
            )
        assert thaws >= 2
        gc.collect()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


@pytest.mark.usefixtures("clean_collector")
def test_with_gc_thaw_zero_the_server_freezes_only_at_start(tmp_path: Path) -> None:
    settings = ServerSettings(db=f"sqlite+aiosqlite:///{tmp_path / 'gc.db'}", gc_thaw=0)
    with TestClient(create_app(settings)):
        gc.unfreeze()
        gc.collect()
        assert gc.get_freeze_count() == 0


def test_a_scrape_of_the_metrics_does_not_count_the_frozen_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    # CPython counts the frozen objects by walking them all: with many rooms, a pause of the server at every scrape.
    def walked() -> int:
        raise AssertionError("the scrape walked the frozen objects")

    monkeypatch.setattr(gc, "get_freeze_count", walked)
    metrics = Metrics()
    text = generate_latest(metrics.registry).decode()
    assert "chinchon_gc_thaws_total" in text
