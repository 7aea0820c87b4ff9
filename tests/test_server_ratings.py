"""Ratings, match history and replays on the server: a rated match of three accounts, a leaver, the pages' data."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openskill.models import PlackettLuce
from typer.testing import CliRunner

from chinchon.cli import app as cli_app
from chinchon.events import DealEnded, Event, MatchEnded, ReEntered, ReEntryAsked
from chinchon.observation import DealResult
from chinchon.record import replay
from chinchon.server.protocol import Replay
from chinchon.server.ratings import rank_seats, seats_out_at
from tests.players_support import create_room, join_room, play_to_the_end, register, socket_for
from tests.server_support import Running, database_url, running_server, start_match

RULES = {"preset": "fournier", "options": {"limit": 30, "close_on_first_turn": False}}
POOL = "fournier close_on_first_turn=false limit=30"


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Running]:
    with running_server(database_url(request.param, tmp_path), rooms_per_minute=1000.0) as running:
        yield running


def test_the_ranks_put_the_winner_first_those_in_longest_next_and_leavers_last() -> None:
    # Seat 2 won; seat 0 went out after seat 1 (action 40 against 12); seat 3 stayed in longest, but left.
    ranks = rank_seats([35, 31, 12, 20], 2, {0: 40, 1: 12, 3: 50}, [False, False, False, True])
    assert [(p.seat, p.rank, p.won, p.left) for p in ranks] == [
        (0, 2, False, False),
        (1, 3, False, False),
        (2, 1, True, False),
        (3, 4, False, True),
    ]
    # The winner who left is last, and wins nothing; two out at once are ordered by their totals, equal ones tie.
    ranks = rank_seats([10, 40, 35, 35], 0, {1: 9, 2: 9, 3: 9}, [True, False, False, False])
    assert [(p.rank, p.won) for p in ranks] == [(4, False), (3, False), (1, False), (1, False)]


async def _rated_match(server: Running, names: list[str], leaver: int | None = None) -> tuple[list[Any], str]:
    """Three accounts play a rated match to its end; their http clients and the room's code."""
    https = [httpx.AsyncClient(base_url=server.base, timeout=30) for _ in names]
    for http, name in zip(https, names, strict=True):
        await register(http, name)
    room = await create_room(https[0], seats=len(names), rated=True, rules=RULES, bot_level="easy")
    for http in https[1:]:
        await join_room(http, room["code"])
    clients = [socket_for(server.ws, http) for http in https]
    for client in clients:
        welcome = await client.connect(room=room["code"])
        assert welcome["role"] == "seat", welcome
    await start_match(clients[0])
    await play_to_the_end(clients, random.Random(7), clients[leaver] if leaver is not None else None)
    for client in clients:
        await client.close()
    return https, room["code"]


async def _game(http: httpx.AsyncClient, name: str) -> dict[str, Any]:
    for _ in range(100):
        games = (await http.get(f"/api/players/{name}/games")).json()["games"]
        if games:
            return dict(games[0])
        await asyncio.sleep(0.1)
    raise AssertionError("the match was not kept")


def _ended(number: int, out: tuple[int, ...]) -> DealEnded:
    result = DealResult(closer=0, points=(0,) * 4, table=(), loose=((),) * 4, chinchon=False, clean=False)
    return DealEnded(number, (0, 1, 2, 3), result, (0,) * 4, out)


def test_the_seats_go_out_at_the_deal_that_puts_them_over_and_come_back_when_they_re_enter() -> None:
    events: list[Event] = [
        _ended(1, (1, 3)),  # 1: seats 1 and 3 over the limit...
        ReEntryAsked((1, 3), 20),
        ReEntered(1, True, 20, 5),  # ...and both back in
        ReEntered(3, True, 20, 6),
        _ended(2, (2,)),  # 5: seat 2 out
        ReEntryAsked((2,), 25),
        ReEntered(2, False, 31, 6),  # it stays out: out since event 5
        _ended(3, (1,)),  # 8: seat 1 out again, for good
        MatchEnded(0, (10, 33, 31, 30), 6),
    ]
    assert seats_out_at(events) == {2: 5, 1: 8}
    # Seat 3 stayed in to the end, seat 1 longer than seat 2 (whose total is lower).
    assert [p.rank for p in rank_seats([10, 33, 31, 30], 0, seats_out_at(events), [False] * 4)] == [1, 3, 4, 2]


def test_a_rated_match_of_three_moves_each_rating_as_openskill_does(server: Running, tmp_path: Path) -> None:
    names = ["Ana", "Bea", "Cid"]

    async def run() -> None:
        https, _code = await _rated_match(server, names)
        http = https[0]
        game = await _game(http, "Ana")
        assert game["rated"] and game["pool"] == POOL and game["preset"] == "fournier"
        assert game["options"] == ["close_on_first_turn=false", "limit=30"]
        record = (await http.get(f"/api/games/{game['id']}/record")).json()
        match = replay(record)
        assert match.over and [p["score"] for p in game["players"]] == match.scores
        assert [p["player"] for p in game["players"]] == names and game["winner"] == match.winner
        ranks = [p["rank"] for p in game["players"]]
        assert (
            match.winner is not None
            and ranks[match.winner] == 1
            and sorted(ranks)[0] == 1
            and not any(p["left"] for p in game["players"])
        )
        # OpenSkill's own update for these ranks, from new players' ratings.
        model = PlackettLuce()
        expected = model.rate([[model.rating()] for _ in names], ranks=[float(r) for r in ranks])
        for seat, name in enumerate(names):
            page = (await http.get(f"/api/players/{name}")).json()
            assert page["games"] == 1 and page["wins"] == int(seat == match.winner)
            (rating,) = page["ratings"]
            assert rating["pool"] == POOL and rating["games"] == 1
            assert rating["mu"] == pytest.approx(expected[seat][0].mu, abs=1e-9)
            assert rating["sigma"] == pytest.approx(expected[seat][0].sigma, abs=1e-9)
            assert rating["rating"] == pytest.approx(expected[seat][0].ordinal(), abs=0.01)
            assert [h["rating"] for h in page["history"]] == [rating["rating"]]
        board = (await http.get(f"/api/leaderboard/{POOL}")).json()
        assert [row["name"] for row in board["players"]] == sorted(
            names, key=lambda n: -expected[names.index(n)][0].ordinal()
        )
        assert (await http.get("/api/leaderboard")).json() == {"pools": [[POOL, 3]]}
        # The replay: a step for each event after the match's start, told, every hand shown, ending on the
        # record's totals.
        steps = (await http.get(f"/api/games/{game['id']}/replay", params={"lang": "es"})).json()
        Replay.model_validate(steps)  # the documented form
        assert steps["seats"] == names and steps["scores"] == match.scores and steps["winner"] == match.winner
        assert [s["event"] for s in steps["steps"]] == [e.to_dict() for e in match.events()[1:]]
        assert steps["steps"][0]["kind"] == "deal_started" and steps["steps"][-1]["scores"] == match.scores
        assert all(len(s["hands"]) == 3 for s in steps["steps"])
        assert any("robó" in s["text"] for s in steps["steps"] if s["kind"] == "drew")
        # The record downloads for `chinchon replay`.
        answer = await http.get(f"/api/games/{game['id']}/record")
        assert "attachment" in answer.headers["content-disposition"]
        path = tmp_path / "match.json"
        path.write_text(answer.text, encoding="utf-8")
        printed = CliRunner().invoke(cli_app, ["replay", str(path), "--lang", "en"])
        assert printed.exit_code == 0, printed.output
        assert "Ana" in printed.output and f"{names[match.winner]} wins the match!" in printed.output
        missing = await http.get("/api/games/nosuchgame/replay")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_game"
        assert (await http.get("/api/players/Nobody")).status_code == 404
        for h in https:
            await h.aclose()

    asyncio.run(run())


def test_a_player_who_leaves_a_rated_match_is_ranked_last(server: Running) -> None:
    names = ["Dan", "Eva", "Fer"]

    async def run() -> None:
        https, _code = await _rated_match(server, names, leaver=1)
        game = await _game(https[0], "Dan")
        eva = game["players"][1]
        assert eva["left"] and eva["rank"] == 3 and not eva["won"], game
        assert all(p["rank"] < 3 for p in game["players"] if p["seat"] != 1)
        model = PlackettLuce()
        ranks = [float(p["rank"]) for p in game["players"]]
        expected = model.rate([[model.rating()] for _ in names], ranks=ranks)
        page = (await https[0].get("/api/players/Eva")).json()
        assert page["ratings"][0]["mu"] == pytest.approx(expected[1][0].mu, abs=1e-9)
        assert page["ratings"][0]["mu"] < 25 and page["wins"] == 0
        for h in https:
            await h.aclose()

    asyncio.run(run())


def test_an_unrated_match_with_a_bot_is_kept_in_the_history_without_ratings(server: Running) -> None:
    async def run() -> None:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
            await register(http, "Gil")
            room = await create_room(http, seats=2, rules=RULES, bot_level="easy")
            client = socket_for(server.ws, http)
            await client.connect(room=room["code"])
            await start_match(client)
            await play_to_the_end([client], random.Random(3))
            await client.close()
            game = await _game(http, "Gil")
            assert not game["rated"] and [p["kind"] for p in game["players"]] == ["person", "bot"]
            assert game["players"][1]["player"] is None and "rating" not in game["players"][0]
            page = (await http.get("/api/players/gil")).json()
            assert page["name"] == "Gil" and page["games"] == 1 and page["ratings"] == [] and page["history"] == []
            json.dumps(page)

    asyncio.run(run())
