"""Many Chinchón matches stepped together: a Gymnasium vector environment for one learner against bots.

Needs the optional extra ``rl`` (``pip install 'chinchon[rl]'``).
:class:`BotOpponentsVectorEnv` is ``num_envs`` copies of
:class:`~chinchon.env.BotOpponentsEnv` in one object, with Gymnasium's
vector API: one :meth:`~BotOpponentsVectorEnv.step` takes an array of
``num_envs`` action numbers and returns the observations and masks as
``(num_envs, ...)`` arrays, written into buffers made once. A match that
ends is started again at the next step (Gymnasium's *next-step* autoreset).
With ``workers=k`` the games are split among this process and ``k``
worker processes that write into shared memory; a worker ends with the
process that made it.

>>> from chinchon.vector_env import BotOpponentsVectorEnv
>>> games = BotOpponentsVectorEnv(4, "fournier", 2, "simple", seed=7)
>>> observations, infos = games.reset(seed=7)
>>> observations["observation"].shape, observations["action_mask"].shape
((4, 650), (4, 110))
>>> games.close()
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import itertools
import multiprocessing
import multiprocessing.connection
import os
import random
import threading
import time
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, TypeVar, cast

try:
    import gymnasium
    import numpy as np
    import numpy.typing as npt
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("chinchon.vector_env needs the optional extra rl: pip install 'chinchon[rl]'") from exc

from chinchon.actions import Action, IllegalAction
from chinchon.bots import Bot, make_bot
from chinchon.bots.simple import RandomBot
from chinchon.deal import CLOSE as MOVE_CLOSE
from chinchon.deal import MOVE_DISCARD_PILE, MOVE_STOCK
from chinchon.env import (
    ACTIONS,
    ACTIONS_INTERACTIVE,
    CLOSE,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    EnvError,
    SeatEncoder,
    _numbered,
    _rules_of,
    card_kind,
    observation_layout,
    raw_env,
)
from chinchon.errors import N_
from chinchon.match import Match
from chinchon.rules import Rules
from chinchon.tables import tables_for

__all__ = ["BotOpponentsVectorEnv"]

Actions = npt.NDArray[np.int64]
_T = TypeVar("_T")

_SPIN_SECONDS = 0.002
"""How long a process polls a pipe for its next message before it sleeps on it: waking a sleeping reader costs
about a tenth of a millisecond on a virtual machine, as much as a dozen games' steps."""

_COLLECT_EVERY = 10_000
"""A worker's step calls between two collections of reference cycles (it runs without the automatic collector)."""
Batch = dict[str, npt.NDArray[Any]]


@dataclass(frozen=True)
class _Config:
    """What every game of a vector environment plays: the same in each worker."""

    rules: Rules
    players: int
    seat: int
    opponents: tuple[str, ...]
    reward: Literal["match", "hand"]
    interactive_showdown: bool
    max_turns: int | None
    fast_path: bool

    def __reduce__(self) -> tuple[type[_Config], tuple[Any, ...]]:
        # The compiled build's frozen classes refuse pickle's default, which sets the fields one by one.
        return (_Config, tuple(getattr(self, f.name) for f in fields(self)))


@dataclass
class _Buffers:
    """The arrays a step writes: one row (or item) per game."""

    observation: npt.NDArray[np.float32]
    action_mask: npt.NDArray[np.int8]
    reward: npt.NDArray[np.float64]
    terminated: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]
    action: Actions

    def rows(self, lo: int, hi: int) -> _Buffers:
        """Views of the games ``lo`` to ``hi - 1``."""
        return _Buffers(
            self.observation[lo:hi],
            self.action_mask[lo:hi],
            self.reward[lo:hi],
            self.terminated[lo:hi],
            self.truncated[lo:hi],
            self.action[lo:hi],
        )


def _choice(rng: random.Random, items: Sequence[_T]) -> _T:
    """``rng.choice(items)`` for a ``random.Random``: the same draw (CPython's rejection sampling on
    ``getrandbits``), without its two Python calls, at every move of the ``random`` bot."""
    n = len(items)
    if not n:
        raise IndexError("cannot choose from an empty sequence")
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return items[r]


class _Game:
    """One match of a vector environment: the learner's seat encoded into its row, bots at the other seats.

    This is the checked path (``fast_path=False``): every action through ``Match.apply``, every mask from
    ``Match.legal_actions``, as :class:`~chinchon.env.raw_env` plays; :class:`_FastGame` computes the same faster.
    """

    def __init__(self, config: _Config, number: int, buffers: _Buffers, row: int) -> None:
        self.config = config
        self.number = number
        self.row = row
        self.buffers = buffers
        self.encoder = SeatEncoder(config.rules, config.players, config.seat, out=buffers.observation[row])
        # As unsigned bytes: a row of zeros (bytes) is copied onto it whole.
        self.mask = cast("MutableSequence[int]", buffers.action_mask[row].data.cast("B"))
        self.size = len(self.mask)
        self.zeros = bytes(self.size)
        # Item writes through memoryviews cost less than through numpy (typeshed types their items as int).
        self.rewards = cast("MutableSequence[float]", buffers.reward.data)
        self.terminations = cast("MutableSequence[bool]", buffers.terminated.data)
        self.truncations = cast("MutableSequence[bool]", buffers.truncated.data)
        others = [s for s in range(config.players) if s != config.seat]
        self.bots: dict[int, Bot] = {s: make_bot(name) for s, name in zip(others, config.opponents, strict=True)}
        self.match: Match | None = None
        self.seed = 0
        self.rng = random.Random(0)
        self.turns = 0
        self.results = 0
        self.done = True
        self.legal: dict[int, Action] | None = {}
        self.marked: list[int] = []
        """The numbers set in the mask."""

    def reset(self, seed: int) -> None:
        """Start the match of ``seed`` and play the bots up to the learner's first decision."""
        config = self.config
        self.seed = seed
        self.match = Match(config.players, config.rules, seed=seed)
        self.rng = random.Random(seed)
        self.turns = 0
        self.results = 0
        self.done = False
        row = self.row
        self.rewards[row] = 0.0
        self.terminations[row] = False
        self.truncations[row] = False
        reward, terminated, truncated = self._play_bots(0.0)
        self._finish(reward, terminated, truncated)

    def step(self, index: int) -> None:
        """Play the learner's action number, then the bots' up to its next decision; or start again when done."""
        if self.done:
            self.reset(self.seed + self.stride)
            return
        assert self.legal is not None
        move = self.legal[index]  # the vector environment checked it against the mask
        reward, terminated, truncated = self._apply(move, 0.0)
        if not (terminated or truncated):
            reward, terminated, truncated = self._play_bots(reward)
        self._finish(reward, terminated, truncated)

    stride = 1
    """How far apart the seeds of one game's successive matches are (the number of games)."""

    def _apply(self, action: Action, reward: float) -> tuple[float, bool, bool]:
        """Play one action, as :class:`~chinchon.env.raw_env` does: the learner's reward, whether it is done."""
        config = self.config
        match = self.match
        assert match is not None
        match.apply(action)
        self.turns += 1
        if not config.interactive_showdown and not match.over and not match.reentry_pending:
            match.resolve_showdown()
        return self._settle(reward)

    def _settle(self, reward: float) -> tuple[float, bool, bool]:
        """After an action: the learner's reward (a hand's points, the match's end) and whether it is done."""
        config = self.config
        match = self.match
        assert match is not None
        seat = config.seat
        results = match.results
        if config.reward == "hand" and len(results) > self.results:
            for result in results[self.results :]:
                reward -= result.points[seat]
        self.results = len(results)
        if match.over or not (seat in match.active or seat in match.reentry_pending or seat in match.deal.seats):
            if config.reward == "match":
                reward += 1.0 if seat == match.winner else -1.0
            return reward, True, False
        if config.max_turns is not None and self.turns >= config.max_turns:
            return reward, False, True
        return reward, False, False

    def _play_bots(self, reward: float) -> tuple[float, bool, bool]:
        """The bots' turns up to the learner's next decision (or the end)."""
        match = self.match
        assert match is not None
        seat = self.config.seat
        while (mover := match.to_move) != seat:
            assert mover is not None
            reward, terminated, truncated = self._bot_turn(match, mover, reward)
            if terminated or truncated:
                return reward, terminated, truncated
        return reward, False, False

    def _bot_turn(self, match: Match, mover: int, reward: float) -> tuple[float, bool, bool]:
        """One bot's action, played."""
        bot = self.bots[mover]
        if type(bot) is RandomBot:
            # RandomBot reads nothing but the legal actions: the same choice, without building the observation.
            action = _choice(self.rng, match.legal_actions())
        else:
            view = match.observation(mover)
            action = bot.choose(view, view.legal_actions, self.rng)
        return self._apply(action, reward)

    def _finish(self, reward: float, terminated: bool, truncated: bool) -> None:
        """Write the learner's observation, mask, reward and ends into the game's row (a reward of 0 and ends
        that are not are there already: :meth:`reset` and :meth:`_Games.step` write them)."""
        match = self.match
        assert match is not None
        row = self.row
        if reward:
            self.rewards[row] = reward
        if terminated:
            self.terminations[row] = True
        if truncated:
            self.truncations[row] = True
        self.encoder.follow(match)
        mask = self.mask
        marked = self.marked
        if len(marked) > 3:
            # One copy of a row of zeros costs less than a few item writes through the memoryview.
            mask[:] = self.zeros
        else:
            for index in marked:
                mask[index] = 0
        if terminated or truncated:
            self.done = True
            self.legal = {}
            self.marked = []
            return
        self.marked = marked = self._mark(match)
        for index in marked:
            mask[index] = 1

    def _mark(self, match: Match) -> list[int]:
        """The learner's legal action numbers (kept in :attr:`legal` as needed to play them), those of the mask."""
        self.legal = legal = _numbered(match.legal_actions())
        size = self.size
        return [index for index in legal if index < size]


@functools.cache
def _move_numbers(rules: Rules) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For :class:`_FastGame`: the move (``Match.moves``) of each draw and discard number, and the number of
    each move (at ``move + 2``: the draws are -1 and -2); -3 and -1 where there is none."""
    tables = tables_for(rules)
    move_of = [-3] * CLOSE
    move_of[DRAW_STOCK] = MOVE_STOCK
    move_of[DRAW_DISCARD] = MOVE_DISCARD_PILE
    number_of = [-1] * (MOVE_CLOSE + len(tables.card_of) + 2)
    number_of[MOVE_STOCK + 2] = DRAW_STOCK
    number_of[MOVE_DISCARD_PILE + 2] = DRAW_DISCARD
    for card_id, card in enumerate(tables.card_of):
        kind = card_kind(card)
        move_of[DISCARD + kind] = card_id
        number_of[card_id + 2] = DISCARD + kind
        number_of[MOVE_CLOSE + card_id + 2] = CLOSE + kind
    return tuple(move_of), tuple(number_of)


class _FastGame(_Game):
    """A game on the engine's fast path (``fast_path=True``): the same as :class:`_Game`, computed faster.

    Draws and discards, the learner's and the ``random`` bot's, are played as integer moves
    (``Match.moves``/``Match.play``: the same history, log and events as ``Match.apply``), and the learner's
    mask comes from the move list. Everything the fast path does not reach goes the checked way: closes
    (the learner's, and the ``random`` bot's whenever a close is legal, since it chooses among every way of
    laying the melds), showdowns, re-entries and the other bots' decisions, which read an ``Observation``.
    """

    def __init__(self, config: _Config, number: int, buffers: _Buffers, row: int) -> None:
        super().__init__(config, number, buffers, row)
        self.move_of, self.number_of = _move_numbers(config.rules)
        self.random = [type(self.bots.get(s)) is RandomBot for s in range(config.players)]
        """By seat: whether the bot there is the ``random`` one (a list: read at every bot's turn)."""

    def step(self, index: int) -> None:
        """Play the learner's action number, then the bots' up to its next decision; or start again when done."""
        if self.done:
            self.reset(self.seed + self.stride)
            return
        legal = self.legal
        if legal is not None:
            reward, terminated, truncated = self._apply(legal[index], 0.0)
        elif index < CLOSE:
            reward, terminated, truncated = self._play(self.move_of[index], 0.0)
        else:
            match = self.match
            assert match is not None
            reward, terminated, truncated = self._apply(_numbered(match.legal_actions())[index], 0.0)
        if not (terminated or truncated):
            reward, terminated, truncated = self._play_bots(reward)
        self._finish(reward, terminated, truncated)

    def _play(self, move: int, reward: float) -> tuple[float, bool, bool]:
        """Play a draw or a discard as a move: what :meth:`_apply` does with its action."""
        match = self.match
        assert match is not None
        results = len(match.results)
        match.play(move)
        self.turns += 1
        # A draw or a discard leads to no showdown; only a deal's end (a void deal) changes the rest.
        if results != len(match.results) or match.over:
            return self._settle(reward)
        max_turns = self.config.max_turns
        if max_turns is not None and self.turns >= max_turns:
            return reward, False, True
        return reward, False, False

    def _bot_turn(self, match: Match, mover: int, reward: float) -> tuple[float, bool, bool]:
        if self.random[mover]:
            moves = match.moves()
            if moves and moves[-1] < MOVE_CLOSE:
                # Without a close the moves are the legal actions, in the same order: the same choice.
                return self._play(_choice(self.rng, moves), reward)
        return super()._bot_turn(match, mover, reward)

    def _mark(self, match: Match) -> list[int]:
        moves = match.moves()
        if not moves:
            # A re-entry decision or a showdown: numbered from the legal actions.
            return super()._mark(match)
        number_of = self.number_of
        self.legal = None
        return [number_of[move + 2] for move in moves]


class _Games:
    """Games ``lo`` to ``hi - 1`` of a vector environment, stepped in this process."""

    def __init__(self, config: _Config, buffers: _Buffers, lo: int, hi: int, stride: int) -> None:
        self.buffers = buffers
        kind = _FastGame if config.fast_path else _Game
        self.games = [kind(config, lo + row, buffers, row) for row in range(hi - lo)]
        for game in self.games:
            game.stride = stride

    def reset(self, seeds: Sequence[int | None]) -> None:
        """Start the games given a seed (``None``: leave that game as it is)."""
        for game, seed in zip(self.games, seeds, strict=True):
            if seed is not None:
                game.reset(seed)

    def step(self) -> None:
        """Step every game with its action in the buffers."""
        # Most steps end no game and reward nothing: the games write only what is not 0.
        buffers = self.buffers
        buffers.reward.fill(0.0)
        buffers.terminated.fill(False)
        buffers.truncated.fill(False)
        actions = buffers.action.tolist()
        for game, action in zip(self.games, actions, strict=True):
            game.step(action)


# -- worker processes ----------------------------------------------------------------------------


def _end_with_parent() -> None:
    """A worker ends when the process that made it does, even one killed outright (SIGKILL)."""
    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover - a worker always has a parent
        return

    def watch(sentinel: int) -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(0)

    threading.Thread(target=watch, args=(parent.sentinel,), name="chinchon-vector-watch", daemon=True).start()


def _await(connection: multiprocessing.connection.Connection) -> None:
    """Return once ``connection`` has a message to read, or after polling it for :data:`_SPIN_SECONDS`."""
    deadline = time.perf_counter() + _SPIN_SECONDS
    while not connection.poll() and time.perf_counter() < deadline:
        pass


def _buffers(raw: Sequence[Any], games: int, width: int, actions: int) -> _Buffers:
    """Numpy views of shared arrays (in the order :meth:`BotOpponentsVectorEnv._shared` makes them)."""
    return _Buffers(
        np.frombuffer(raw[0], dtype=np.float32).reshape(games, width),
        np.frombuffer(raw[1], dtype=np.int8).reshape(games, actions),
        np.frombuffer(raw[2], dtype=np.float64),
        np.frombuffer(raw[3], dtype=np.bool_),
        np.frombuffer(raw[4], dtype=np.bool_),
        np.frombuffer(raw[5], dtype=np.int64),
    )


def _work(
    connection: multiprocessing.connection.Connection,
    config: _Config,
    raw: Sequence[Any],
    shape: tuple[int, int, int],
    lo: int,
    hi: int,
) -> None:
    """A worker's loop: step or reset its games when told, answer ``None`` or the error."""
    _end_with_parent()
    buffers = _buffers(raw, *shape).rows(lo, hi)
    games = _Games(config, buffers, lo, hi, shape[0])
    # The engine, the encoder and the bots make no reference cycles (tests/test_vector_env.py checks every bot), so
    # reference counting frees what a step leaves. An automatic full collection here was a pause of ~20 ms that held
    # up every process's step; a collection every _COLLECT_EVERY steps still frees any cycle a user's bot makes.
    gc.freeze()
    gc.disable()
    steps = 0
    while True:
        _await(connection)
        try:
            command, argument = connection.recv()
        except (EOFError, OSError):
            return
        try:
            if command == "step":
                games.step()
                steps += 1
                if steps % _COLLECT_EVERY == 0:
                    gc.collect()
            elif command == "reset":
                games.reset(argument[lo:hi])
            else:
                connection.send(None)
                return
        except Exception as error:  # the parent raises it
            connection.send(error)
        else:
            connection.send(None)


class BotOpponentsVectorEnv(gymnasium.vector.VectorEnv[Batch, Actions, npt.NDArray[Any]]):
    """``num_envs`` matches, each one learner against bots, stepped together (Gymnasium's vector API).

    Every game plays as :class:`~chinchon.env.BotOpponentsEnv` with the same
    parameters: ``rules``, ``players``, ``opponents`` (a bot name for every
    other seat, or one per other seat), the learner's ``seat``, ``reward``,
    ``interactive_showdown``, ``max_turns``. Observations are a dict of two
    arrays, ``observation`` ``(num_envs, size)`` float32 and
    ``action_mask`` ``(num_envs, actions)`` int8; rewards, terminations and
    truncations are ``(num_envs,)`` arrays. The bots' actions are played as
    they chose them.

    ``workers``: 0 steps every game in this process; ``k`` splits them
    evenly among this process and ``k`` worker processes (spawned), which
    write into shared memory (so ``workers=1`` steps on two cores; at most
    one process per game).
    ``copy=False`` returns the buffers themselves (overwritten by the next
    step) instead of copies. ``seed`` seeds the first :meth:`reset` when it
    is given none. ``fast_path=False`` plays every action through
    ``Match.apply`` and numbers every mask from ``Match.legal_actions``, as
    :class:`~chinchon.env.raw_env` does: the same games, slower (what the
    fast path is tested against).

    Seeds: ``reset(seed=s)`` plays ``Match(players, rules, seed=s + i)`` in
    game ``i``; each game's next match (after an autoreset) takes the seed
    ``num_envs`` further on, so no two matches share one. ``reset(seed=[...])``
    gives each game its own first seed.

    Raises:
        EnvError: a bad parameter.
        BotError: an unknown bot.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 - as Gymnasium does

    def __init__(
        self,
        num_envs: int,
        rules: Rules | str = "fournier",
        players: int = 2,
        opponents: str | Sequence[str] = "simple",
        *,
        seat: int = 0,
        reward: Literal["match", "hand"] = "match",
        interactive_showdown: bool = False,
        max_turns: int | None = None,
        workers: int = 0,
        copy: bool = True,
        seed: int | None = None,
        fast_path: bool = True,
    ) -> None:
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise EnvError(N_("num_envs: expected a positive whole number, got {value}"), value=repr(num_envs))
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
            raise EnvError(N_("workers: expected a whole number, 0 or more, got {value}"), value=repr(workers))
        # One game checks the parameters as BotOpponentsEnv does (rules, players, reward, max_turns).
        probe = raw_env(rules, players, reward=reward, interactive_showdown=interactive_showdown, max_turns=max_turns)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise EnvError(
                N_("seat: expected a seat from 0 to {last}, got {value}"), last=players - 1, value=repr(seat)
            )
        names = (opponents,) * (players - 1) if isinstance(opponents, str) else tuple(opponents)
        if len(names) != players - 1:
            raise EnvError(
                N_("opponents: expected {count} bot names, got {value}"), count=players - 1, value=repr(opponents)
            )
        for name in set(names):
            make_bot(name)  # an unknown bot is refused here, not in a worker
        self.config = _Config(
            _rules_of(rules), players, seat, names, reward, bool(interactive_showdown), max_turns, bool(fast_path)
        )
        self.num_envs = num_envs
        self.workers = min(workers, num_envs - 1)
        self.copy = copy
        self.single_observation_space = probe.observation_space(probe.agent(seat))
        self.single_action_space = probe.action_space(probe.agent(seat))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        width = sum(block.stop - block.start for block in observation_layout(players).values())
        actions = ACTIONS_INTERACTIVE if interactive_showdown else ACTIONS
        self._shape = (num_envs, width, actions)
        self._first_seed = seed
        self._seeds = np.zeros(num_envs, dtype=np.int64)
        self._done = np.zeros(num_envs, dtype=np.bool_)
        self._rows = np.arange(num_envs)
        self._started = False
        self._processes: list[Any] = []
        self._connections: list[multiprocessing.connection.Connection] = []
        self._unanswered: list[multiprocessing.connection.Connection] = []
        """The workers sent a message whose reply is still to read."""
        self._gone: EnvError | None = None
        """The error of a worker that ended, raised by every call after."""
        self._games: _Games | None = None
        if self.workers:
            context = multiprocessing.get_context("spawn")
            raw = self._shared(context)
            self._buffers = _buffers(raw, *self._shape)
            # This process steps the first share while the workers step theirs: it does not wait idle, and each
            # worker's wake-up at a step overlaps with work.
            shares = self.workers + 1
            bounds = [num_envs * w // shares for w in range(shares + 1)]
            self._own = bounds[1]
            self._games = _Games(self.config, self._buffers.rows(0, self._own), 0, self._own, num_envs)
            for lo, hi in itertools.pairwise(bounds[1:]):
                mine, theirs = context.Pipe()
                process = context.Process(
                    target=_work,
                    args=(theirs, self.config, raw, self._shape, lo, hi),
                    name=f"chinchon-vector-{lo}",
                    daemon=True,
                )
                process.start()
                theirs.close()
                self._processes.append(process)
                self._connections.append(mine)
        else:
            self._buffers = _Buffers(
                np.zeros((num_envs, width), dtype=np.float32),
                np.zeros((num_envs, actions), dtype=np.int8),
                np.zeros(num_envs, dtype=np.float64),
                np.zeros(num_envs, dtype=np.bool_),
                np.zeros(num_envs, dtype=np.bool_),
                np.zeros(num_envs, dtype=np.int64),
            )
            self._own = num_envs
            self._games = _Games(self.config, self._buffers, 0, num_envs, num_envs)

    def _shared(self, context: Any) -> list[Any]:
        games, width, actions = self._shape
        sizes = (games * width * 4, games * actions, games * 8, games, games, games * 8)
        return [context.RawArray(ctypes.c_char, size) for size in sizes]

    def _run(self, command: str, argument: Any = None) -> None:
        # Replies left unread by an interrupted call (Ctrl-C) are read first: each reply answers its own message.
        self._replies()
        for connection in self._connections:
            try:
                connection.send((command, argument))
            except OSError:
                raise self._lost(connection) from None
            self._unanswered.append(connection)
        games = self._games
        assert games is not None
        mine: Exception | None = None
        try:
            if command == "step":
                games.step()
            else:
                games.reset(argument[: self._own])
        except Exception as failed:  # raised once every worker has answered: the next message finds them ready
            mine = failed
        for error in [mine, *self._replies()]:
            if error is not None:
                raise error

    def _replies(self) -> list[Exception | None]:
        """The replies of the workers still to answer (``None`` or the error each raised), read in order."""
        replies: list[Exception | None] = []
        while self._unanswered:
            connection = self._unanswered[0]
            _await(connection)
            try:
                replies.append(connection.recv())
            except (EOFError, OSError):
                # Left unanswered: every later call finds the same worker gone.
                raise self._lost(connection) from None
            self._unanswered.pop(0)
        return replies

    def _lost(self, connection: multiprocessing.connection.Connection) -> EnvError:
        """The error for a worker whose pipe closed: it has ended (kept: every later call raises it)."""
        process = self._processes[self._connections.index(connection)]
        process.join(timeout=5)
        self._gone = EnvError(
            N_(
                "worker process {pid} has ended (exit code {code}): this environment cannot go on; make a new one "
                "(a script makes its workers under if __name__ == '__main__':)"
            ),
            pid=process.pid,
            code=process.exitcode,
        )
        return self._gone

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Batch, dict[str, Any]]:
        """Start a match in every game (or in those of ``options["reset_mask"]``); the learners' first observations.

        Raises:
            EnvError: a seed or a mask that does not fit.
        """
        if self.closed:
            raise EnvError(N_("this vector environment is closed"))
        if self._gone is not None:
            raise self._gone.with_traceback(None)
        n = self.num_envs
        if seed is None and self._started:
            seeds = (self._seeds + n).tolist()
        else:
            if seed is None:
                seed = self._first_seed if self._first_seed is not None else random.SystemRandom().getrandbits(62)
            if isinstance(seed, int) and not isinstance(seed, bool):
                seeds = [seed + i for i in range(n)]
            elif (
                isinstance(seed, Sequence)
                and len(seed) == n
                and all(isinstance(s, int) and not isinstance(s, bool) for s in seed)
            ):
                seeds = list(seed)
            else:
                raise EnvError(
                    N_("seed: expected a whole number or {count} of them, got {value}"), count=n, value=repr(seed)
                )
        chosen: list[int | None] = list(seeds)
        mask = (options or {}).get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape != (n,) or mask.dtype != np.bool_:
                raise EnvError(N_("reset_mask: expected {count} booleans, got {value}"), count=n, value=mask)
            if not self._started and not mask.all():
                raise EnvError(N_("reset_mask: the first reset starts every game"))
            chosen = [s if m else None for s, m in zip(seeds, mask.tolist(), strict=True)]
        self._run("reset", chosen)
        for i, s in enumerate(chosen):
            if s is not None:
                self._seeds[i] = s
                self._done[i] = False
        self._started = True
        observation, *_rest = self._out()
        return observation, {}

    @property
    def worker_pids(self) -> tuple[int, ...]:
        """The process ids of the worker processes (none with ``workers=0``, or once closed)."""
        return tuple(process.pid for process in self._processes)

    @property
    def seeds(self) -> npt.NDArray[np.int64]:
        """The seed of each game's match (``Match(players, rules, seed)``), as of the last step."""
        return self._seeds.copy()

    def step(self, actions: Any) -> tuple[Batch, npt.NDArray[np.float64], Any, Any, dict[str, Any]]:
        """Play each learner's action number (ignored in a game that ended at the step before, which starts again).

        Raises:
            IllegalAction: an action is not legal in its game (the message names the game).
            EnvError: step before reset, or the actions do not fit.
        """
        if not self._started or self.closed:
            raise EnvError(N_("call reset() before playing"))
        if self._gone is not None:
            raise self._gone.with_traceback(None)
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise EnvError(
                N_("actions: expected {count} action numbers, got {value}"), count=self.num_envs, value=actions.shape
            )
        mask = self._buffers.action_mask
        inside = (actions >= 0) & (actions < mask.shape[1])
        legal = inside & (mask[self._rows, np.where(inside, actions, 0)] == 1)
        wrong = np.flatnonzero(~(legal | self._done))
        if len(wrong):
            game = int(wrong[0])
            # Checked before any game moves, so that a refused step changes nothing.
            raise IllegalAction(
                N_("action {index} is not legal for the learner in game {game}"), index=actions[game], game=game
            )
        np.copyto(self._buffers.action, actions, casting="unsafe")
        self._run("step")
        self._seeds[self._done] += self.num_envs
        b = self._buffers
        np.logical_or(b.terminated, b.truncated, out=self._done)
        return self._out()

    def _out(self) -> tuple[Batch, npt.NDArray[np.float64], Any, Any, dict[str, Any]]:
        b = self._buffers
        if self.copy:
            return (
                {"observation": b.observation.copy(), "action_mask": b.action_mask.copy()},
                b.reward.copy(),
                b.terminated.copy(),
                b.truncated.copy(),
                {},
            )
        return {"observation": b.observation, "action_mask": b.action_mask}, b.reward, b.terminated, b.truncated, {}

    def match(self, game: int) -> Match:
        """The :class:`~chinchon.match.Match` game number ``game`` is playing (for its record, say).

        Raises:
            EnvError: the games are in worker processes, or before :meth:`reset`, or no such game.
        """
        if self.workers:
            raise EnvError(N_("the matches are in the worker processes: make the environment with workers=0"))
        if not isinstance(game, int) or not 0 <= game < self.num_envs:
            raise EnvError(
                N_("game: expected a number from 0 to {last}, got {value}"), last=self.num_envs - 1, value=repr(game)
            )
        assert self._games is not None
        match = self._games.games[game].match
        if match is None:
            raise EnvError(N_("call reset() before playing"))
        return match

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Every learner's legal actions, as booleans ``(num_envs, actions)``."""
        return self._buffers.action_mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the worker processes."""
        for connection in self._connections:
            with contextlib.suppress(OSError):
                connection.send(("close", None))
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
        for connection in self._connections:
            connection.close()
        self._connections = []
        self._unanswered = []
        self._processes = []
