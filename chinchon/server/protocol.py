"""The messages of the server's protocol, in and out, as pydantic models.

Every WebSocket frame is one JSON object with a ``type``. The JSON schemas
in ``chinchon/schemas/protocol-*.schema.json`` are generated from these models
(``python -m chinchon.server.protocol``); ``docs/protocol.md`` shows an
example of each message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "ClientMessage",
    "CreateRoom",
    "ErrorCode",
    "JoinRoom",
    "RoomCreated",
    "RulesChoice",
    "client_adapter",
    "schemas",
]

NAME_MAX = 24
"""The longest player name, in characters."""

CHAT_MAX = 300
"""The longest chat line, in characters."""

ErrorCode = Literal[
    "bad_json",
    "bad_message",
    "too_large",
    "rate_limited",
    "not_joined",
    "bad_token",
    "no_room",
    "bad_name",
    "bad_rules",
    "bad_request",
    "room_full",
    "not_creator",
    "not_seated",
    "wrong_status",
    "stale_state",
    "duplicate",
    "bad_action",
    "not_your_turn",
    "illegal_action",
    "bad_seat",
    "chat_refused",
    "not_over",
    "server_busy",
    "login_needed",
    "already_seated",
    "rated_seats",
    "bad_login",
    "bad_password",
    "name_taken",
    "forbidden",
    "no_player",
    "no_game",
    "bad_origin",
    "unsupported_media_type",
    "analysis_running",
    "bad_version",
]
"""The codes of typed errors; the message beside a code is in the seat's language."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- HTTP bodies ------------------------------------------------------------------------


class RulesChoice(_Message):
    """A preset and options of ``Rules`` on top of it (``{"limit": 50}``)."""

    preset: str = "fournier"
    options: dict[str, Any] = Field(default_factory=dict)


class CreateRoom(_Message):
    """``POST /api/rooms``: a new room, its creator in seat 0 (no ``rules``: those of ``serve --rules/--rule``)."""

    name: str
    rules: RulesChoice | None = None
    seats: int = Field(default=2, ge=2, le=8)
    bot_level: str = "strong"
    public: bool = True
    turn_seconds: float | None = Field(default=None, ge=5, le=600)
    lang: str | None = Field(default=None, max_length=8)
    rated: bool = False
    """A rated room: only logged-in players take its seats, and their ratings change at each match's end."""


class JoinRoom(_Message):
    """``POST /api/rooms/{code}/join``: a seat in a room that has not started."""

    name: str


class AnalysisRequest(_Message):
    """``POST /api/rooms/{code}/analysis`` or ``/api/games/{id}/analysis``: the seat whose decisions are rated."""

    seat: int = Field(default=0, ge=0, le=7)


class AnalysisStatus(_Message):
    """The answer to ``POST`` and ``GET`` of an analysis: how far it is, and once done the analysis
    (``chinchon/schemas/analysis.schema.json``); ``room`` is the code of the match's room, ``game`` its id in the
    history (``/api/games/{id}``), if kept there."""

    room: str
    game: str | None
    seat: int
    status: Literal["none", "queued", "running", "done", "failed", "cancelled"]
    done: int
    total: int
    analysis: dict[str, Any] | None
    error: str | None


class RoomCreated(_Message):
    """The answer to a creation or a join: the seat's token, for this client alone."""

    code: str
    seat: int
    token: str


# -- players: accounts, ratings, finished matches (HTTP) -------------------------------


class SeatClaim(_Message):
    """A guest seat the browser holds (its room's code and token), to become the account's."""

    code: str = Field(max_length=32)
    token: str = Field(max_length=128)


class Register(_Message):
    """``POST /api/account/register``: a new account; ``seats`` are the guest seats that become its own."""

    name: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    seats: list[SeatClaim] = Field(default_factory=list, max_length=50)


class Login(_Message):
    """``POST /api/account/login``: a new session; ``seats`` are the guest seats that become the account's."""

    name: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    seats: list[SeatClaim] = Field(default_factory=list, max_length=50)


class PasswordChange(_Message):
    """``POST /api/account/password``: the password now and the new one (every other session ends)."""

    old: str = Field(max_length=1024)
    new: str = Field(max_length=1024)


class AccountInfo(_Message):
    """The logged-in player, as the page is told."""

    name: str


class AccountAnswer(_Message):
    """``GET /api/account`` and the answers to register and login: the account, or null for a guest."""

    account: AccountInfo | None


class AccountSeat(_Message):
    """A room where the account holds a seat."""

    code: str
    seat: int
    status: str


class AccountSeats(_Message):
    """``GET /api/account/seats``: the account's seats in rooms not closed (or in the one ``?room=`` asked for)."""

    seats: list[AccountSeat]


class GamePlayer(_Message):
    """A seat of a finished match: its name at the table, the account's name (``player``), total and rank."""

    seat: int
    name: str
    kind: Literal["person", "bot"]
    player: str | None
    score: int
    rank: int
    left: bool
    won: bool
    rating: float | None = None


class GameSummary(_Message):
    """A finished match as a history lists it; ``pool`` is its rating pool (preset and options)."""

    id: str
    finished: float
    preset: str | None
    options: list[str]
    rated: bool
    pool: str
    players: list[GamePlayer]
    winner: int | None


class Games(_Message):
    """``GET /api/players/{name}/games``: a player's finished matches, newest first (``?before=`` pages)."""

    games: list[GameSummary]


class RatingView(_Message):
    """A rating in a pool: ``rating`` is OpenSkill's ordinal, ``mu - 3 sigma``."""

    pool: str
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int


class RatingPoint(_Message):
    """A rating after one rated match."""

    pool: str
    time: float
    rating: float


class PlayerPage(_Message):
    """``GET /api/players/{name}``: a player's ratings, their history, and the matches played and won."""

    name: str
    games: int
    wins: int
    ratings: list[RatingView]
    history: list[RatingPoint]


class LeaderboardRow(_Message):
    """A player's place in a pool."""

    rank: int
    name: str
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int


class Leaderboard(_Message):
    """``GET /api/leaderboard/{pool}``: the best players of a pool."""

    pool: str
    players: list[LeaderboardRow]


class Pools(_Message):
    """``GET /api/leaderboard``: the rating pools (a preset, or a preset with options), with their players."""

    pools: list[tuple[str, int]]


class ReplayStep(_Message):
    """A step of a replay: an event of the match (its ``kind``, its JSON form, the private event told with it), its
    text, and the table after it, every hand shown."""

    kind: Literal[
        "deal_started",
        "drew",
        "discarded",
        "stock_rebuilt",
        "closed",
        "showed",
        "laid_off",
        "passed",
        "deal_ended",
        "reentry_asked",
        "reentered",
        "match_ended",
    ]
    event: dict[str, Any]
    secret: dict[str, Any] | None
    deal: int
    seat: int | None
    text: str
    hands: list[list[str]]
    stock: int
    pile: list[str]
    table: list[dict[str, Any]]
    face_down: str | None
    scores: list[int]
    active: list[int]
    result: ResultView | None


class Replay(_Message):
    """``GET /api/games/{id}/replay``: a finished match, step by step, described in the asked language."""

    game: GameSummary
    seats: list[str]
    rules: dict[str, Any]
    scores: list[int]
    winner: int | None
    steps: list[ReplayStep]


# -- client messages (WebSocket) --------------------------------------------------------


PROTOCOL_VERSION = 2
"""The protocol's version: a ``hello`` names it; another is refused (``bad_version``)."""


class Hello(_Message):
    """The first message: a seat's token, a room to watch, or neither (the lobby).

    ``last_event``: the number of the last event the client folded into its state; the events after it follow
    (the whole view instead when the server no longer keeps them). Without it the whole view comes.
    """

    type: Literal["hello"]
    version: int | None = None
    room: str | None = None
    token: str | None = None
    last_event: int | None = Field(default=None, ge=0)
    lang: str | None = None
    name: str | None = None


class ActionMessage(_Message):
    """An action of the client's seat, in the text form of ``parse_action``, chosen in state ``state``."""

    type: Literal["action"]
    id: str = Field(min_length=1, max_length=64)
    state: int = Field(ge=0)
    action: str = Field(max_length=200)


class Chat(_Message):
    """A chat line, to the room (a seat's) or to the lobby."""

    type: Literal["chat"]
    text: str = Field(max_length=CHAT_MAX * 4)


class Ping(_Message):
    """Asks for a pong; ``t`` comes back as it was sent."""

    type: Literal["ping"]
    t: float | int | str | None = None


class Start(_Message):
    """The creator starts the match; empty seats get bots."""

    type: Literal["start"]


class Rematch(_Message):
    """A new match in the same room, once the match is over."""

    type: Literal["rematch"]


class Leave(_Message):
    """The seat's player leaves the room (a bot takes the seat in a match)."""

    type: Literal["leave"]


class Kick(_Message):
    """The creator removes a seat's player (a bot takes the seat in a match)."""

    type: Literal["kick"]
    seat: int = Field(ge=0, le=7)


ClientMessage = Annotated[
    Hello | ActionMessage | Chat | Ping | Start | Rematch | Leave | Kick, Field(discriminator="type")
]
client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# -- server messages (the server's messages are made from these models) -----------------


class SeatInfo(_Message):
    """A seat as everyone sees it."""

    seat: int
    name: str | None
    kind: Literal["open", "person", "bot"]
    level: str | None
    presence: Literal["open", "connected", "away", "bot"]
    away_seconds: float | None = None
    creator: bool = False


class TableMeldView(_Message):
    """A meld on the table."""

    owner: int
    cards: list[str]
    open: bool


class ResultView(_Message):
    """How a deal ended (once every hand is shown); a ``void`` deal has no closer and scores nothing."""

    closer: int | None
    points: list[int]
    loose: list[list[str]]
    table: list[TableMeldView]
    chinchon: bool
    clean: bool
    void: bool = False


class ArrangementView(_Message):
    """The best arrangement of the seat's own hand: its melds, loose cards and loose points."""

    melds: list[list[str]]
    loose: list[str]
    points: int


class GameView(_Message):
    """A match as one seat (or a spectator, ``seat`` null) may see it."""

    phase: Literal["draw", "discard", "showdown", "over"]
    to_move: int | None
    seats: list[int]
    """The seats that play the deal, in playing order."""
    hand: list[str]
    arrangement: ArrangementView | None = None
    hand_sizes: list[int]
    stock_size: int
    discard_pile: list[str]
    discards: list[tuple[int, str]]
    taken: list[list[str]]
    last_draw: str | None
    closer: int | None
    table: list[TableMeldView]
    revealed: list[list[str]]
    result: ResultView | None
    previous_result: ResultView | None
    history: list[tuple[int, str]]
    legal_actions: list[str]
    scores: list[int]
    active: list[int]
    dealer: int | None
    deal_number: int
    turn: int
    reentry_pending: list[int]
    match_over: bool
    winner: int | None
    pot: int


class RoomView(_Message):
    """``view``: the whole state a client needs, at event number ``state``."""

    type: Literal["view"]
    room: str
    seat: int | None
    state: int
    status: Literal["waiting", "playing", "over", "closed"]
    match: int
    rules: dict[str, Any]
    preset: str | None
    options: list[str] = Field(default_factory=list)
    seats: list[SeatInfo]
    watchers: int
    turn_seconds: float | None
    turn_deadline: float | None
    game: GameView | None
    rated: bool = False


# -- what happened: the engine's events and the room's, as the wire carries them ----------


class MatchStartedEvent(_Message):
    """A match begins: the seats' names, the rules (every option), the starting totals, the seats in it."""

    kind: Literal["match_started"]
    names: list[str]
    rules: dict[str, Any]
    scores: list[int]
    active: list[int]
    decks: int
    pot: int


class DealStartedEvent(_Message):
    """A deal is dealt: its number, dealer, first player, the seats that play in playing order, the face-up card,
    the stock's size, the totals; ``playoff``: the tied seats play on to decide the match."""

    kind: Literal["deal_started"]
    number: int
    dealer: int
    first: int
    seats: list[int]
    discard: str
    stock: int
    scores: list[int]
    playoff: bool


class DrewEvent(_Message):
    """A seat drew; ``card`` only when it came from the discard pile."""

    kind: Literal["drew"]
    seat: int
    source: Literal["stock", "discard"]
    card: str | None


class DiscardedEvent(_Message):
    """A seat discarded a card, ending its turn."""

    kind: Literal["discarded"]
    seat: int
    card: str


class StockRebuiltEvent(_Message):
    """The stock ran out: the discard pile but its top card became a new stock of ``stock`` cards."""

    kind: Literal["stock_rebuilt"]
    stock: int


class ClosedEvent(_Message):
    """A seat closed (its face-down card is never told here) and laid ``melds``; ``to_move`` acts next."""

    kind: Literal["closed"]
    seat: int
    melds: list[list[str]]
    open: bool
    to_move: int | None


class ShowedEvent(_Message):
    """A seat showed its melds in the showdown."""

    kind: Literal["showed"]
    seat: int
    melds: list[list[str]]
    to_move: int | None


class LaidOffEvent(_Message):
    """A seat laid off ``card`` on the table's meld ``meld_index`` (of ``owner``), which is now ``meld``."""

    kind: Literal["laid_off"]
    seat: int
    card: str
    meld_index: int
    meld: list[str]
    owner: int
    to_move: int | None


class PassedEvent(_Message):
    """A seat made no more lay-offs in this round of the showdown."""

    kind: Literal["passed"]
    seat: int
    to_move: int | None


class DealEndedEvent(_Message):
    """A deal is over: its result, the seats that played it, the totals, the seats it put over the limit."""

    kind: Literal["deal_ended"]
    number: int
    seats: list[int]
    result: ResultView
    scores: list[int]
    out: list[int]


class ReEntryAskedEvent(_Message):
    """These seats, over the limit, decide one by one whether to re-enter at the total ``score``."""

    kind: Literal["reentry_asked"]
    seats: list[int]
    score: int


class ReEnteredEvent(_Message):
    """A seat's answer to re-entry; ``score`` is its total now, ``pot`` the pot."""

    kind: Literal["reentered"]
    seat: int
    accept: bool
    score: int
    pot: int


class MatchEndedEvent(_Message):
    """The match is over: its winner, the final totals and the pot."""

    kind: Literal["match_ended"]
    winner: int
    scores: list[int]
    pot: int


class JoinEvent(_Message):
    """A person took seat ``seat`` (the room is waiting)."""

    kind: Literal["join"]
    seat: int
    name: str


class LeaveEvent(_Message):
    """Seat ``seat``'s player left (``leave``) or was removed by the creator (``kick``); a bot or nobody sits."""

    kind: Literal["leave", "kick"]
    seat: int


class StartEvent(_Message):
    """Match number ``match`` starts (``start``: the first; ``rematch``: another); open seats got bots."""

    kind: Literal["start", "rematch"]
    match: int


class YouWereDealtEvent(_Message):
    """The cards your seat was dealt (after ``deal_started``)."""

    kind: Literal["you_were_dealt"]
    seat: int
    hand: list[str]


class YouDrewEvent(_Message):
    """The card your seat drew from the stock (with its ``drew``)."""

    kind: Literal["you_drew"]
    seat: int
    card: str


class YouPutFaceDownEvent(_Message):
    """The card your seat put face down when it closed (with its ``closed``)."""

    kind: Literal["you_put_face_down"]
    seat: int
    card: str


PublicEventModel = Annotated[
    MatchStartedEvent
    | DealStartedEvent
    | DrewEvent
    | DiscardedEvent
    | StockRebuiltEvent
    | ClosedEvent
    | ShowedEvent
    | LaidOffEvent
    | PassedEvent
    | DealEndedEvent
    | ReEntryAskedEvent
    | ReEnteredEvent
    | MatchEndedEvent
    | JoinEvent
    | LeaveEvent
    | StartEvent,
    Field(discriminator="kind"),
]
"""A public event: the engine's (``chinchon.events``, in their ``to_dict`` form) or the room's."""

PrivateEventModel = Annotated[YouWereDealtEvent | YouDrewEvent | YouPutFaceDownEvent, Field(discriminator="kind")]
"""What one seat alone learns with a public event."""


class Event(_Message):
    """``event``: what happened at event number ``n`` (consecutive per room, the same for everyone).

    ``event`` is public; ``text`` tells it in the client's language (``null`` for the room's own events);
    ``private`` holds what the client's seat alone learns with it. ``settled``: the room waits in the state
    after this event (the last event of an action): ``legal_actions`` are the seat's when it is to move,
    ``arrangement`` the best arrangement of its hand when the hand changed, ``turn_deadline`` the mover's.
    """

    type: Literal["event"]
    n: int
    event: PublicEventModel
    text: str | None = None
    private: list[PrivateEventModel] = Field(default_factory=list)
    settled: bool = False
    legal_actions: list[str] = Field(default_factory=list)
    arrangement: ArrangementView | None = None
    turn_deadline: float | None = None


class Welcome(_Message):
    """The answer to ``hello``: the client's role in the room or the lobby."""

    type: Literal["welcome"]
    room: str | None
    seat: int | None
    role: Literal["seat", "spectator", "lobby"]
    lang: str


class Ack(_Message):
    """An action was applied; ``state`` is the event number it made."""

    type: Literal["ack"]
    id: str
    state: int


class ErrorMessage(_Message):
    """A typed error; ``id`` names the action it answers, if it answers one."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    id: str | None = None


class ChatLine(_Message):
    """A chat line, to everyone in the room or the lobby."""

    type: Literal["chat"]
    room: str | None
    name: str
    seat: int | None
    text: str
    time: float


class Presence(_Message):
    """Who is connected, away (with the seconds left before a bot plays) or played by a bot."""

    type: Literal["presence"]
    room: str
    seats: list[SeatInfo]
    watchers: int


class Pong(_Message):
    """The answer to ``ping``."""

    type: Literal["pong"]
    t: float | int | str | None = None
    time: float


class LobbyRoom(_Message):
    """A public room in the lobby."""

    code: str
    preset: str | None
    options: list[str] = Field(default_factory=list)
    rules: dict[str, Any]
    seats: int
    taken: int
    status: Literal["waiting", "playing", "over"]
    names: list[str]
    turn_seconds: float | None = None
    rated: bool = False


class Lobby(_Message):
    """``lobby``: the open public rooms."""

    type: Literal["lobby"]
    rooms: list[LobbyRoom]


class Closing(_Message):
    """The server is going away (the close code follows): reconnect to go on."""

    type: Literal["closing"]
    reason: str


ServerMessage = Annotated[
    RoomView | Event | Welcome | Ack | ErrorMessage | ChatLine | Presence | Pong | Lobby | Closing,
    Field(discriminator="type"),
]
server_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


def schemas() -> dict[str, dict[str, Any]]:
    """The JSON schemas of the protocol, by file name."""
    return {
        "protocol-client.schema.json": client_adapter.json_schema(),
        "protocol-server.schema.json": server_adapter.json_schema(),
        "protocol-http.schema.json": {
            "$defs": {
                model.__name__: model.model_json_schema()
                for model in (
                    CreateRoom,
                    JoinRoom,
                    RoomCreated,
                    LobbyRoom,
                    Register,
                    Login,
                    PasswordChange,
                    AccountAnswer,
                    AccountSeats,
                    PlayerPage,
                    Games,
                    Pools,
                    Leaderboard,
                    Replay,
                    AnalysisRequest,
                    AnalysisStatus,
                )
            }
        },
    }


def write_schemas(folder: Path = SCHEMA_DIR) -> list[Path]:
    """Write the protocol's schemas into ``folder``; the paths written."""
    written = []
    for name, schema in schemas().items():
        path = folder / name
        path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintenance entry point
    for path in write_schemas():
        sys.stdout.write(f"{path}\n")
