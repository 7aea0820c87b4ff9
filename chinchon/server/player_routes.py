"""The players' HTTP routes: accounts, the account's seats, player pages, leaderboards, finished matches.

Every answer with an error is a typed error in the language of
``Accept-Language``, as the rooms' routes answer (see ``docs/protocol.md``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from chinchon.errors import N_
from chinchon.server.accounts import Accounts, account_summary, clear_cookies, name_key, set_cookies
from chinchon.server.players import Account, GameRow, Players
from chinchon.server.protocol import Login, PasswordChange, Register, SeatClaim
from chinchon.server.ratings import finished_game, ordinal
from chinchon.server.replays import replay_steps
from chinchon.server.rooms import Manager, Refused, Room, normal_code

__all__ = ["add_player_routes", "game_summary"]

log = logging.getLogger("chinchon.server")

STATUS = {
    "rate_limited": 429,
    "bad_login": 401,
    "login_needed": 401,
    "forbidden": 403,
    "name_taken": 409,
    "no_player": 404,
    "no_game": 404,
    "not_over": 404,
}
"""The HTTP status of each error code these routes answer with (400 for the others)."""


def game_summary(game: GameRow) -> dict[str, Any]:
    """A finished match as the history lists it (account ids left out)."""
    return {
        "id": game.id,
        "finished": game.finished,
        "preset": game.preset,
        "options": game.options,
        "rated": game.rated,
        "pool": game.pool,
        "players": [{k: v for k, v in p.items() if k != "account"} for p in game.players],
        "winner": game.winner,
    }


def add_player_routes(
    app: FastAPI,
    manager: Manager,
    accounts: Accounts,
    players: Players,
    refused: Callable[[Refused, Request, int], JSONResponse],
    body: Callable[[Request, type[Any]], Awaitable[Any]],
    language: Callable[[str | None], str],
) -> None:
    """Add the players' routes to the application; a finished match is kept in its players' histories."""

    async def match_over(room: Room) -> None:
        await finished_game(players, room)

    manager.on_match_over = match_over

    def address(request: Request) -> str:
        return request.client.host if request.client else "?"

    def failed(exc: Refused, request: Request) -> JSONResponse:
        return refused(exc, request, STATUS.get(exc.code, 400))

    async def claim(account: Account, claims: list[SeatClaim]) -> None:
        """The guest seats a browser holds become the account's (in open rooms, seats no account holds)."""
        for one in claims:
            room = manager.rooms.get(normal_code(one.code))
            if room is None:
                continue
            async with room.lock:
                seat = room.seat_for(one.token)
                if seat is None or room.seats[seat].account is not None or room.closed:
                    continue
                if room.seat_of_account(account.id) is not None:
                    continue
                try:
                    await players.bind_seat(room.code, seat, account.id)
                except Exception:
                    log.exception("storage failed", extra={"room": room.code, "kind": "bind"})
                    continue
                room.seats[seat].account = account.id

    def logged_in(login: Any, request: Request, status: int) -> JSONResponse:
        response = JSONResponse({"account": account_summary(login.account)}, status_code=status)
        set_cookies(response, request, login, accounts.https)
        return response

    @app.get("/api/account")
    async def account(request: Request) -> Any:
        found = await accounts.session(request)
        return {"account": account_summary(found[0].account) if found else None}

    @app.post("/api/account/register", status_code=201)
    async def register(request: Request) -> Any:
        try:
            accounts.check_origin(request)
            payload: Register = await body(request, Register)
            login = await accounts.register(payload.name, payload.password, address(request))
            old = request.cookies.get("chinchon_session")
            if old:
                await accounts.logout(old)
            await claim(login.account, payload.seats)
        except Refused as exc:
            return failed(exc, request)
        return logged_in(login, request, 201)

    @app.post("/api/account/login")
    async def login(request: Request) -> Any:
        try:
            accounts.check_origin(request)
            payload: Login = await body(request, Login)
            login = await accounts.login(payload.name, payload.password, address(request))
            # A new session id at each login: a session id planted before it is worth nothing after.
            old = request.cookies.get("chinchon_session")
            if old:
                await accounts.logout(old)
            await claim(login.account, payload.seats)
        except Refused as exc:
            return failed(exc, request)
        return logged_in(login, request, 200)

    @app.post("/api/account/logout")
    async def logout(request: Request) -> Any:
        try:
            found = await accounts.changing(request)
        except Refused as exc:
            return failed(exc, request)
        if found is not None:
            await accounts.logout(found[1])
        response = JSONResponse({"account": None})
        clear_cookies(response, request, accounts.https)
        return response

    @app.post("/api/account/logout-everywhere")
    async def logout_everywhere(request: Request) -> Any:
        try:
            session, _session_id = await accounts.required(request)
        except Refused as exc:
            return failed(exc, request)
        ended = await accounts.logout_everywhere(session)
        response = JSONResponse({"account": None, "ended": ended})
        clear_cookies(response, request, accounts.https)
        return response

    @app.post("/api/account/password")
    async def change_password(request: Request) -> Any:
        try:
            session, session_id = await accounts.required(request)
            payload: PasswordChange = await body(request, PasswordChange)
            login = await accounts.change_password(session, session_id, payload.old, payload.new)
        except Refused as exc:
            return failed(exc, request)
        return logged_in(login, request, 200)

    @app.get("/api/account/seats")
    async def account_seats(request: Request, room: str | None = None) -> Any:
        found = await accounts.session(request)
        if found is None:
            return failed(Refused("login_needed", N_("log in first")), request)
        code = normal_code(room)[:16] if room else None
        return {"seats": await players.seats_of(found[0].account.id, code)}

    async def account_named(name: str) -> Account:
        found = await players.account_by_key(name_key(name))
        if found is None:
            raise Refused("no_player", N_("there is no player {name}"), name=name[:64])
        return found

    @app.get("/api/players/{name}")
    async def player(name: str, request: Request) -> Any:
        try:
            found = await account_named(name)
        except Refused as exc:
            return failed(exc, request)
        games, wins = await players.counts(found.id)
        return {
            "name": found.name,
            "games": games,
            "wins": wins,
            "ratings": [
                {
                    "pool": r.pool,
                    "rating": round(ordinal(r.mu, r.sigma), 2),
                    "mu": r.mu,
                    "sigma": r.sigma,
                    "games": r.games,
                    "wins": r.wins,
                }
                for r in await players.player_ratings(found.id)
            ],
            "history": [
                {"pool": h["pool"], "time": h["time"], "rating": round(ordinal(h["mu"], h["sigma"]), 2)}
                for h in await players.history(found.id)
            ],
        }

    @app.get("/api/players/{name}/games")
    async def player_games(name: str, request: Request, before: float | None = None) -> Any:
        try:
            found = await account_named(name)
        except Refused as exc:
            return failed(exc, request)
        return {"games": [game_summary(g) for g in await players.games_of(found.id, before)]}

    @app.get("/api/leaderboard")
    async def pools() -> Any:
        return {"pools": [[pool, count] for pool, count in await players.pools()]}

    @app.get("/api/leaderboard/{pool}")
    async def leaderboard(pool: str) -> Any:
        rows = await players.leaderboard(pool[:160])
        return {
            "pool": pool,
            "players": [
                {
                    "rank": i + 1,
                    "name": name,
                    "rating": round(ordinal(r.mu, r.sigma), 2),
                    "mu": r.mu,
                    "sigma": r.sigma,
                    "games": r.games,
                    "wins": r.wins,
                }
                for i, (name, r) in enumerate(rows)
            ],
        }

    async def game_and_record(game_id: str) -> tuple[GameRow, dict[str, Any]]:
        found = await players.game(game_id[:16])
        if found is None or found[1] is None:
            raise Refused("no_game", N_("there is no finished match {game}"), game=game_id[:16])
        return found[0], found[1]

    @app.get("/api/games/{game_id}")
    async def game(game_id: str, request: Request) -> Any:
        try:
            found, _record = await game_and_record(game_id)
        except Refused as exc:
            return failed(exc, request)
        return game_summary(found)

    @app.get("/api/games/{game_id}/record")
    async def game_record(game_id: str, request: Request) -> Any:
        try:
            found, record = await game_and_record(game_id)
        except Refused as exc:
            return failed(exc, request)
        return JSONResponse(record, headers={"Content-Disposition": f'attachment; filename="chinchon-{found.id}.json"'})

    @app.get("/api/games/{game_id}/replay")
    async def game_replay(game_id: str, request: Request, lang: str | None = None) -> Any:
        try:
            found, record = await game_and_record(game_id)
        except Refused as exc:
            return failed(exc, request)
        code = language(lang or request.headers.get("accept-language"))
        try:
            steps = replay_steps(record, code)
        except ValueError:
            log.exception("replay failed", extra={"room": found.room})
            return failed(Refused("no_game", N_("there is no finished match {game}"), game=found.id), request)
        return Response(
            content=json.dumps({"game": game_summary(found), **steps}, ensure_ascii=False),
            media_type="application/json",
        )
