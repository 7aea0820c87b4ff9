"""Ratings and the history of finished matches: who placed where, and OpenSkill's update for rated rooms.

A finished match is ranked: the winner first, then the others by how long
they stayed in (the later a seat went over the limit for good, the better),
then by their totals (lower is better); equal seats share a rank. A person
who left the match, was removed from it, or was played by a bot at its end
(away past the grace period) is ranked last, whatever the bot made of the
seat. In a rated room every seat is a logged-in person's, and each one's
rating in the match's *pool* (its preset, or its preset with the options on
top, as ``fournier limit=50``) is updated with OpenSkill's Plackett-Luce
model, one team per seat, from these ranks.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce

from chinchon.events import DealEnded, Event, ReEntered
from chinchon.server.players import GameRow, Players, RatingRow

if TYPE_CHECKING:
    from chinchon.server.rooms import Room

__all__ = ["MODEL", "Placing", "finished_game", "pool_name", "rank_seats", "rate", "seats_out_at"]

log = logging.getLogger("chinchon.server")

MODEL = PlackettLuce()
"""OpenSkill's Plackett-Luce model with its default parameters (mu 25, sigma 25/3)."""


def pool_name(preset: str | None, options: Sequence[str]) -> str:
    """The rating pool of a room's rules: its preset's name, with its options after it."""
    return " ".join([preset or "custom", *options])


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown and ranked by: ``mu - 3 sigma`` (0 for a new player)."""
    return mu - 3 * sigma


def seats_out_at(events: Iterable[Event]) -> dict[int, int]:
    """The number of the event after which each seat that lost went out of the match for good, from a match's
    public events: a deal that puts a seat over the limit (:class:`~chinchon.events.DealEnded`) puts it out,
    a re-entry (:class:`~chinchon.events.ReEntered`) brings it back."""
    out_at: dict[int, int] = {}
    for number, event in enumerate(events, start=1):
        if isinstance(event, DealEnded):
            for seat in event.out:
                out_at[seat] = number
        elif isinstance(event, ReEntered) and event.accept:
            out_at.pop(event.seat, None)
    return out_at


@dataclass
class Placing:
    """A seat's place in a finished match."""

    seat: int
    rank: int
    left: bool
    won: bool


def rank_seats(
    scores: Sequence[int], winner: int | None, out_at: dict[int, int], left: Sequence[bool]
) -> list[Placing]:
    """Every seat's rank (1 is first; equal seats share one): the winner, then by time in, then by total;
    those who left last."""
    seats = range(len(scores))
    longest = max(out_at.values(), default=0) + 1

    def key(seat: int) -> tuple[int, int, int]:
        if left[seat]:
            return (2, 0, 0)
        if seat == winner:
            return (0, 0, 0)
        return (1, -out_at.get(seat, longest), scores[seat])

    keys = {seat: key(seat) for seat in seats}
    placings = []
    for seat in seats:
        rank = 1 + sum(1 for other in seats if keys[other] < keys[seat])
        placings.append(Placing(seat, rank, left[seat], seat == winner and not left[seat]))
    return placings


def rate(
    before: Sequence[RatingRow | None], accounts: Sequence[int], pool: str, placings: Sequence[Placing]
) -> list[RatingRow]:
    """The seats' new ratings after a match (a new player starts at OpenSkill's defaults)."""
    teams = [[MODEL.rating() if old is None else MODEL.rating(mu=old.mu, sigma=old.sigma)] for old in before]
    after = MODEL.rate(teams, ranks=[float(p.rank) for p in placings])
    rows = []
    for old, account, team, placing in zip(before, accounts, after, placings, strict=True):
        games, wins = (old.games, old.wins) if old is not None else (0, 0)
        rows.append(
            RatingRow(account, pool, float(team[0].mu), float(team[0].sigma), games + 1, wins + int(placing.won))
        )
    return rows


async def finished_game(players: Players, room: Room) -> None:
    """Keep a room's finished match as a game of its players' histories, and update the ratings of a rated one.

    Called once a match is over (and again, harmlessly, for a rebuilt room whose match had ended).
    """
    match = room.match
    if match is None or not match.over or await players.has_game(room.code, room.match_number):
        return
    start = room.match_start
    people, accounts = start.people, start.accounts
    left = [
        people[s.index]
        and (s.kind != "person" or s.bot_playing or (accounts[s.index] is not None and s.account != accounts[s.index]))
        for s in room.seats
    ]
    placings = rank_seats(match.scores, match.winner, seats_out_at(match.events()), left)
    from chinchon.server.rooms import rules_options

    options = list(rules_options(room.rules))
    pool = pool_name(room.preset, options)
    rated = room.rated and all(a is not None for a in accounts) and all(people)
    game_id = secrets.token_urlsafe(9)
    new_ratings: list[RatingRow] = []
    if rated:
        ids = [a for a in accounts if a is not None]
        known = await players.ratings_of(ids, pool)
        new_ratings = rate([known.get(a) for a in ids], ids, pool, placings)
    names = await players.account_names([a for a in accounts if a is not None])
    seats = []
    for placing in placings:
        account = accounts[placing.seat]
        entry: dict[str, Any] = {
            "seat": placing.seat,
            "name": match.names[placing.seat],
            "kind": "person" if people[placing.seat] else "bot",
            "account": account,
            "player": names.get(account) if account is not None else None,
            "score": match.scores[placing.seat],
            "rank": placing.rank,
            "left": placing.left,
            "won": placing.won,
        }
        if rated:
            new = new_ratings[placing.seat]
            entry["rating"] = round(ordinal(new.mu, new.sigma), 2)
        seats.append(entry)
    game = GameRow(
        game_id,
        room.code,
        room.match_number,
        time.time(),
        room.preset,
        options,
        rated,
        pool,
        seats,
        match.winner,
    )
    await players.add_game(game, new_ratings)
    log.info("match kept", extra={"room": room.code, "rated": rated})
