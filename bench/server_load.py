"""The server under load: rooms of people and bots on loopback, and how fast it answers them.

The script starts ``python -m chinchon serve`` on a free port of 127.0.0.1
with a temporary SQLite database (``--db`` gives another URL), opens
``--rooms`` rooms of ``--seats`` seats at ``--open-rate`` rooms a second,
half of the seats people and the rest ``strong`` bots (greedy, the room's
bot level), and starts every match. Each person is a WebSocket client
(:class:`chinchon.server.client.Client`) that, on its turn, waits a think
time (uniform between 0.75 and 1.25 times ``--think`` seconds) and plays a
random legal action, a close whenever it may close; a finished match gets a
rematch. The clients run in ``--clients`` processes, each with one event
loop (uvloop's, as the server's). Once every room is open, everyone plays;
the first turns of all rooms come due together, so the measure starts after
``--warmup`` seconds of play and lasts ``--seconds``; then the script
prints:

- actions a second: the people's (acks received) and all of them (the
  server's ``chinchon_actions_total``, bots included);
- the round trip of a person's action, from sending it to receiving its ack
  (``time.perf_counter`` in the client): median, 99th percentile, largest,
  how many took over 50 ms and in how many of the seconds they were sent
  (``--trips FILE`` writes them all), and the server's own histogram of the
  time from reading an action to queueing its ack;
- the server's memory: its resident set (``VmRSS``) before the rooms were
  opened and at its largest during the run, and the difference per room;
  the bot worker processes (the server's children) apart;
- CPU used during the measured seconds (``utime + stime`` from
  ``/proc/PID/stat``) by the server process, by its bot workers and by the
  client processes, in percent of one core, and the whole machine's, with
  the time its host (a virtual machine's) took from it (``steal`` in
  ``/proc/stat``); and the client loops' lag (how
  late a 50 ms sleep wakes: a saturated client shows it) and the pauses of
  their garbage collectors (each client freezes the survivors of every
  collection, as the server does, so that its own pauses stay short);
- the errors: typed errors and lost connections seen by the clients, and
  the server's ``chinchon_errors_total``;
- the server's garbage collector: how many collections of each generation
  stopped it during the measured seconds, their total, and the longest
  pause of the run (``chinchon_gc_pause_seconds``, timed with
  ``gc.callbacks``);
- how long the server took to answer ``/metrics`` at the start and at the
  end (a scrape holds the event loop while it is made).

``--server-cpus 0`` runs the server on the first core alone (``taskset``):
how many rooms one process on one core holds. The clients speak protocol
version 2 (they fold each event into the view they keep, as the browser
does).

Everything stays on 127.0.0.1, is bounded in rooms and seconds, and stops by
itself: the server is stopped at the end whatever happens. Run it on an
idle machine: the figures are times.

Run: ``python bench/server_load.py [--rooms 100] [--seats 4] [--seconds 60] [--warmup 10] [--think 2] [--clients 2]
[--server-cpus 0] [--serve-option=--gc-thaw=0]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import multiprocessing
import os
import queue
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chinchon.processes import end_with_parent
from chinchon.server.client import Client, create_room, join_room

HOST = "127.0.0.1"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


# -- the server's process, seen from outside ----------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _get(url: str, timeout: float = 10.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return str(answer.read().decode())


def _children(pid: int) -> list[int]:
    """Every descendant of a process (the bot workers and multiprocessing's helpers)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _cpu_ticks(pid: int) -> int:
    """A process's user and system time so far, in clock ticks (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _rss(pid: int) -> int:
    """A process's resident set in bytes (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _machine_ticks() -> tuple[int, int]:
    """The machine's CPU time so far, in clock ticks: busy, and stolen (the host ran something else while this
    machine had work: ``steal`` in ``/proc/stat``)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return user + nice + system + irq + softirq, steal


def _metric(text: str, name: str) -> float:
    """The sum of a Prometheus metric's samples (every label) in ``/metrics`` text."""
    total = 0.0
    for match in re.finditer(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+-]+)$", text, re.MULTILINE):
        total += float(match.group(1))
    return total


@dataclass
class Snapshot:
    """The server's counters and processes at one moment."""

    when: float
    scrape: float
    server_ticks: int
    machine_ticks: tuple[int, int]
    worker_ticks: dict[int, int]
    actions: float
    errors: float
    handled: dict[str, float]
    gc_counts: dict[str, float]
    gc_seconds: dict[str, float]
    gc_longest: float

    @classmethod
    def take(cls, pid: int, base: str) -> Snapshot:
        asked = time.perf_counter()
        text = _get(f"{base}/metrics")
        answered = time.perf_counter()
        return cls(
            time.monotonic(),
            answered - asked,
            _cpu_ticks(pid),
            _machine_ticks(),
            {child: _cpu_ticks(child) for child in _children(pid)},
            _metric(text, "chinchon_actions_total"),
            _metric(text, "chinchon_errors_total"),
            {
                bound: float(count)
                for bound, count in re.findall(
                    r'^chinchon_action_round_trip_seconds_bucket{le="([^"]+)"} ([0-9.e+-]+)$', text, re.MULTILINE
                )
            },
            {
                generation: float(count)
                for generation, count in re.findall(
                    r'^chinchon_gc_pause_seconds_count{generation="([^"]+)"} ([0-9.e+-]+)$', text, re.MULTILINE
                )
            },
            {
                generation: float(total)
                for generation, total in re.findall(
                    r'^chinchon_gc_pause_seconds_sum{generation="([^"]+)"} ([0-9.e+-]+)$', text, re.MULTILINE
                )
            },
            _metric(text, "chinchon_gc_pause_longest_seconds"),
        )


# -- the clients (in their own processes) -------------------------------------------------


@dataclass
class Person:
    """One person's seat and socket."""

    room: str
    seat: int
    token: str
    creator: bool
    client: Client
    rng: random.Random


@dataclass
class Tally:
    """What one client process measured."""

    round_trips: list[float] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    rematches: int = 0
    lags: list[float] = field(default_factory=list)
    cpu: float = 0.0
    gc_paused: float = 0.0
    gc_longest: float = 0.0
    rooms: int = 0
    closed: int = 0

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


def _choose(rng: random.Random, legal: list[str]) -> str:
    """A random legal action, a close whenever one is legal (so that deals end)."""
    closes = [text for text in legal if text.startswith("close")]
    return rng.choice(closes or legal)


async def _open_room(base: str, ws: str, index: int, seats: int, people: int, seed: int) -> list[Person]:
    """A room with its people connected and its match started."""
    created = await create_room(base, name="P0", seats=seats, bot_level="strong", public=False)
    tokens = [(0, created["token"])]
    for k in range(1, people):
        joined = await join_room(base, created["code"], f"P{k}")
        tokens.append((int(joined["seat"]), joined["token"]))
    members = []
    for seat, token in tokens:
        client = Client(ws, snapshots=False)
        welcome = await client.connect(room=created["code"], token=token)
        if welcome["type"] != "welcome":
            raise RuntimeError(f"hello refused: {welcome}")
        rng = random.Random(f"{seed}-{index}-{seat}")
        members.append(Person(created["code"], seat, token, seat == 0, client, rng))
    creator = members[0].client
    await creator.send({"type": "start"})
    await creator.wait_view(lambda v: v["status"] == "playing" and bool(v["game"]) and "phase" in v["game"], 60)
    return members


async def _play(person: Person, think: float, start: float, end: float, tally: Tally) -> None:
    """Play this person's turns (and ask for rematches) until ``end`` (``time.monotonic``)."""
    client = person.client
    while time.monotonic() < end and client.closed is None:
        client.messages.clear()
        view = client.view
        assert view is not None
        if view["status"] == "over" and person.creator:
            await asyncio.sleep(think * person.rng.uniform(0.75, 1.25))
            if time.monotonic() >= end:
                break
            match = view["match"]
            await client.send({"type": "rematch"})

            def rematched(m: dict[str, Any], match: int = match) -> bool:
                return bool(m["type"] == "error" or (m["type"] == "event" and m["event"].get("match", match) != match))

            answer = await client.wait(rematched, 0, 60)
            if answer["type"] == "error":
                tally.error(str(answer.get("code")))
            else:
                tally.rematches += 1
                await client.wait_view(lambda v: v["status"] == "playing" and "phase" in (v["game"] or {}), 60)
            continue
        if not client.my_turn():
            with contextlib.suppress(TimeoutError):
                await client.wait(
                    lambda m: m["type"] in ("view", "event"), 0, timeout=max(0.1, min(5.0, end - time.monotonic()))
                )
            continue
        await asyncio.sleep(think * person.rng.uniform(0.75, 1.25))
        if time.monotonic() >= end:
            break
        text = _choose(person.rng, view["game"]["legal_actions"])
        sent_at = time.monotonic()
        sent = time.perf_counter()
        answer = await client.act(text)
        took = time.perf_counter() - sent
        if answer["type"] != "ack":
            tally.error(str(answer.get("code")))
            continue
        if sent_at >= start:
            tally.round_trips.append(took)
            tally.sent.append(sent_at - start)
        await client.wait_state(int(answer["state"]), timeout=60)


async def _keep_playing(person: Person, think: float, start: float, end: float, tally: Tally) -> None:
    """Play until ``end``, counting a wait that timed out or a lost socket as an error and going on."""
    while time.monotonic() < end and person.client.closed is None:
        try:
            await _play(person, think, start, end, tally)
        except (TimeoutError, ConnectionError) as exc:
            tally.error(type(exc).__name__)


async def _measure(start: float, end: float, tally: Tally) -> None:
    """From ``start`` to ``end``: how late a 50 ms sleep wakes (the loop's own delay), the CPU the process used
    and the pauses of its garbage collector, which freezes every collection's survivors from now on."""
    pauses: list[float] = []
    began = 0.0

    def collecting(phase: str, _info: dict[str, int]) -> None:
        nonlocal began
        if phase == "start":
            began = time.perf_counter()
            return
        if time.monotonic() >= start:
            pauses.append(time.perf_counter() - began)
        gc.freeze()  # as the server does (chinchon.server.metrics.GcWatch): the next collection stays young

    gc.callbacks.append(collecting)
    try:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        cpu_before = time.process_time()
        while time.monotonic() < end:
            before = time.perf_counter()
            await asyncio.sleep(0.05)
            tally.lags.append(time.perf_counter() - before - 0.05)
        tally.cpu = time.process_time() - cpu_before
    finally:
        gc.callbacks.remove(collecting)
    tally.gc_paused = sum(pauses)
    tally.gc_longest = max(pauses, default=0.0)


async def _client_main(
    base: str, ws: str, rooms: list[int], args: dict[str, Any], ready: Any, go: Any, go_at: Any
) -> Tally:
    tally = Tally()
    people = max(1, args["seats"] // 2)
    everyone: list[Person] = []
    gap = args["clients"] / args["open_rate"]
    try:
        for index in rooms:
            started = time.monotonic()
            try:
                everyone += await _open_room(base, ws, index, args["seats"], people, args["seed"])
                tally.rooms += 1
            except (RuntimeError, OSError, TimeoutError, ConnectionError) as exc:
                tally.error(f"open: {type(exc).__name__}")
            await asyncio.sleep(max(0.0, gap - (time.monotonic() - started)))
        ready.put(os.getpid())
        if not await asyncio.to_thread(go.wait, args["open_timeout"]):
            return tally
        # Everyone plays from go_at and is measured from start (monotonic clocks are shared by the processes of
        # one machine): the first turns, due together once the rooms are open, are not a steady load.
        start = go_at.value + args["warmup"]
        end = start + args["seconds"]
        # What the rooms' opening left behind stays for the run: the collector need not look at it again.
        gc.collect()
        gc.freeze()
        measuring = asyncio.create_task(_measure(start, end, tally))
        await asyncio.gather(*(_keep_playing(p, args["think"], start, end, tally) for p in everyone))
        tally.closed = sum(1 for p in everyone if p.client.closed is not None)
        await measuring
        return tally
    finally:
        await asyncio.gather(*(p.client.close() for p in everyone), return_exceptions=True)


def _client_process(
    base: str, ws: str, rooms: list[int], args: dict[str, Any], ready: Any, go: Any, go_at: Any, out: Any
) -> None:
    end_with_parent()  # a killed benchmark leaves no client behind
    try:
        import uvloop  # the server's loop too (Uvicorn's default when it is installed)

        loop_factory: Any = uvloop.new_event_loop
    except ImportError:
        loop_factory = None
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        tally = runner.run(_client_main(base, ws, rooms, args, ready, go, go_at))
    out.put(dataclasses.asdict(tally))


# -- the run ------------------------------------------------------------------------------


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rooms", type=int, default=100, help="rooms open at once (1 to 2000)")
    parser.add_argument("--seats", type=int, default=4, help="seats a room (2 to 8); half of them people")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds measured once every room is open (≤ 600)")
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds played before measuring (the first turns come together)"
    )
    parser.add_argument("--think", type=float, default=2.0, help="a person's think time, in seconds (0.75-1.25×)")
    parser.add_argument("--clients", type=int, default=2, help="client processes (1 to 8)")
    parser.add_argument("--open-rate", type=float, default=20.0, help="rooms opened a second")
    parser.add_argument("--bot-workers", type=int, default=2, help="the server's bot processes")
    parser.add_argument("--db", default=None, help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server-log", default=None, help="file for the server's output (default: discarded)")
    parser.add_argument("--trips", default=None, help="CSV file for every round trip (seconds in, milliseconds)")
    parser.add_argument("--server-cpus", default=None, help="the server's CPUs, as taskset -c takes them (0: one core)")
    parser.add_argument(
        "--serve-option",
        action="append",
        default=[],
        metavar="OPTION",
        help="one more option for chinchon serve, as one word (--serve-option=--gc-thaw=0); may be repeated",
    )
    args = parser.parse_args()
    if not 1 <= args.rooms <= 2000 or not 2 <= args.seats <= 8 or not 0 < args.seconds <= 600:
        parser.error("--rooms must be 1 to 2000, --seats 2 to 8 and --seconds above 0 and at most 600")
    if not 1 <= args.clients <= 8 or not 0 < args.open_rate <= 200 or not 0 <= args.think <= 60:
        parser.error("--clients must be 1 to 8, --open-rate above 0 and at most 200, --think 0 to 60")
    if not 0 <= args.warmup <= 120:
        parser.error("--warmup must be 0 to 120 seconds")
    clients = min(args.clients, args.rooms)
    port = _free_port()
    base, ws = f"http://{HOST}:{port}", f"ws://{HOST}:{port}/ws"
    folder = tempfile.TemporaryDirectory(prefix="chinchon-load-")
    db = args.db or f"sqlite+aiosqlite:///{Path(folder.name) / 'load.db'}"
    log = open(args.server_log, "wb") if args.server_log else subprocess.DEVNULL  # noqa: SIM115
    command = [
        sys.executable,
        "-m",
        "chinchon",
        "serve",
        "--host",
        HOST,
        "--port",
        str(port),
        "--db",
        db,
        "--rooms-per-minute",
        "1000000",
        "--lookups-per-minute",
        "1000000",
        "--connections-per-address",
        "0",
        "--grace",
        "600",
        "--bot-workers",
        str(args.bot_workers),
        "--log-level",
        "warning",
        *args.serve_option,
    ]
    if args.server_cpus is not None:
        command = ["taskset", "-c", args.server_cpus, *command]
    print("server:", " ".join(command[1:]).replace(folder.name, "$TMP"), flush=True)
    server = subprocess.Popen(command, stdout=log, stderr=log)
    print(f"server pid {server.pid} (for py-spy)", flush=True)
    context = multiprocessing.get_context("spawn")
    workers: list[Any] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(f"{base}/healthz", 2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        rss_empty = _rss(server.pid)
        ready, out, go = context.Queue(), context.Queue(), context.Event()
        go_at = context.Value("d", 0.0)
        open_timeout = args.rooms / args.open_rate * 3 + 120
        shared = {
            "seats": args.seats,
            "think": args.think,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "clients": clients,
            "open_rate": args.open_rate,
            "seed": args.seed,
            "open_timeout": open_timeout,
        }
        for k in range(clients):
            rooms = list(range(k, args.rooms, clients))
            process = context.Process(
                target=_client_process, args=(base, ws, rooms, shared, ready, go, go_at, out), daemon=True
            )
            process.start()
            workers.append(process)
        opening = time.monotonic()
        waiting = len(workers)
        while waiting:
            try:
                ready.get(timeout=1)
                waiting -= 1
            except queue.Empty:
                if any(not p.is_alive() for p in workers) or time.monotonic() - opening > open_timeout:
                    raise SystemExit("a client process failed while opening rooms") from None
        opened = time.monotonic() - opening
        # A little time for the first actions' bots and sockets to settle before measuring.
        go_at.value = time.monotonic() + 1.0
        go.set()
        rss_open = _rss(server.pid)
        start = go_at.value + args.warmup
        time.sleep(max(0.0, start - time.monotonic()))
        before = Snapshot.take(server.pid, base)
        peak = rss_open
        workers_rss = 0
        while time.monotonic() < start + args.seconds:
            time.sleep(min(1.0, max(0.0, start + args.seconds - time.monotonic())))
            peak = max(peak, _rss(server.pid))
            workers_rss = max(workers_rss, sum(_rss(child) for child in _children(server.pid)))
        after = Snapshot.take(server.pid, base)
        tallies: list[Tally] = []
        for _ in workers:
            try:
                tallies.append(Tally(**out.get(timeout=120)))
            except queue.Empty:
                print("a client process gave no figures")
        for process in workers:
            process.join(30)
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
        _stop(server)
        folder.cleanup()
    wall = after.when - before.when
    trips = sorted(t for tally in tallies for t in tally.round_trips)
    lags = sorted(t for tally in tallies for t in tally.lags)
    errors: dict[str, int] = {}
    for tally in tallies:
        for code, count in tally.errors.items():
            errors[code] = errors.get(code, 0) + count
    closed = sum(tally.closed for tally in tallies)
    rooms_open = sum(tally.rooms for tally in tallies)
    worker_ticks = sum(after.worker_ticks.get(pid, 0) - before.worker_ticks.get(pid, 0) for pid in after.worker_ticks)
    people = max(1, args.seats // 2) * rooms_open
    busy, stolen = (a - b for a, b in zip(after.machine_ticks, before.machine_ticks, strict=True))
    print(f"rooms {rooms_open} of {args.rooms} opened in {opened:.1f} s; {args.seats} seats, {people} people")
    print(
        f"measured {wall:.1f} s after {args.warmup:g} s of play; think {args.think} s; {clients} client processes;"
        " bots strong (greedy)"
    )
    print(
        f"actions/s: people {len(trips) / wall:.1f}, all {(after.actions - before.actions) / wall:.1f}"
        f" (server's chinchon_actions_total); rematches {sum(t.rematches for t in tallies)}"
    )
    if trips:
        print(
            f"round trip ms: p50 {statistics.median(trips) * 1000:.1f}  p99 {_percentile(trips, 0.99) * 1000:.1f}"
            f"  max {trips[-1] * 1000:.1f}  ({len(trips)} actions)"
        )
    print(
        f"server RSS MB: empty {rss_empty / 2**20:.1f}, rooms open {rss_open / 2**20:.1f}, peak {peak / 2**20:.1f};"
        f" per room {(peak - rss_empty) / max(1, rooms_open) / 2**20:.3f} MB;"
        f" bot workers ({len(after.worker_ticks)} processes) {workers_rss / 2**20:.1f} MB"
    )
    print(
        f"CPU % of one core: server {(after.server_ticks - before.server_ticks) / TICK / wall * 100:.0f},"
        f" bot workers {worker_ticks / TICK / wall * 100:.0f},"
        f" clients {sum(t.cpu for t in tallies) / wall * 100:.0f};"
        f" the machine's {os.cpu_count()} cores busy {busy / TICK / wall * 100:.0f}, stolen by its host"
        f" {stolen / TICK / wall * 100:.0f}"
    )
    pairs = [(at, t) for tally in tallies for at, t in zip(tally.sent, tally.round_trips, strict=True)]
    slow = {int(at) for at, t in pairs if t > 0.05}
    print(f"round trips over 50 ms: {sum(1 for t in trips if t > 0.05)}, sent in {len(slow)} of {int(wall)} seconds")
    if args.trips:
        with open(args.trips, "w") as file:
            file.write("seconds,ms\n")
            file.writelines(f"{at:.3f},{t * 1000:.2f}\n" for at, t in sorted(pairs))
    handled = {bound: after.handled.get(bound, 0.0) - count for bound, count in before.handled.items()}
    if handled.get("+Inf"):
        shares = ", ".join(
            f"{float(bound) * 1000:g} ms {handled[bound] / handled['+Inf'] * 100:.1f}%"
            for bound in ("0.01", "0.05", "0.25", "1.0")
            if bound in handled
        )
        print(f"in the server (chinchon_action_round_trip_seconds, action read to ack queued), at most: {shares}")
    if lags:
        print(
            f"client loop lag ms: p50 {statistics.median(lags) * 1000:.1f}  p99 {_percentile(lags, 0.99) * 1000:.1f}"
            f"  max {lags[-1] * 1000:.1f}; client GC paused {sum(t.gc_paused for t in tallies) * 1000:.0f} ms"
            f" in all, longest pause {max(t.gc_longest for t in tallies) * 1000:.1f} ms"
        )
    collections = {g: after.gc_counts.get(g, 0.0) - before.gc_counts.get(g, 0.0) for g in ("0", "1", "2")}
    paused = {g: (after.gc_seconds.get(g, 0.0) - before.gc_seconds.get(g, 0.0)) * 1000 for g in ("0", "1", "2")}
    print(
        f"server GC: collections gen0 {collections['0']:.0f}, gen1 {collections['1']:.0f},"
        f" gen2 {collections['2']:.0f}; paused {sum(paused.values()):.0f} ms in all (gen0 {paused['0']:.0f},"
        f" gen1 {paused['1']:.0f}, gen2 {paused['2']:.0f}), longest pause {after.gc_longest * 1000:.1f} ms"
    )
    print(f"a scrape of /metrics took {before.scrape * 1000:.1f} ms before and {after.scrape * 1000:.1f} ms after")
    shown = ", ".join(f"{code} {count}" for code, count in sorted(errors.items())) or "none"
    print(
        f"errors: clients {sum(errors.values())} ({shown}); sockets closed {closed};"
        f" server chinchon_errors_total +{after.errors - before.errors:.0f}"
    )


if __name__ == "__main__":
    main()
