"""A reinforcement-learning environment for Chinchón: PettingZoo's AEC API over a :class:`~chinchon.match.Match`.

Needs the optional extra ``rl``: ``pip install 'chinchon[rl]'`` (pettingzoo,
gymnasium, numpy). One episode is one whole match; the agents are the seats,
``player_0`` ... ``player_{N-1}``, taking turns as the engine says.

>>> from chinchon.env import env
>>> game = env(rules="fournier", players=2)
>>> game.reset(seed=1)
>>> observation, reward, terminated, truncated, info = game.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((650,), 2)

**Cards** are numbered by kind, whatever the rules: the index of the card's
rank and suit in the ``french52`` deck (``rules.cards(decks=1)`` of
``Rules(deck="french52", jokers=1)``): ``13 * suit + rank - 1`` with the
suits oros ♦, copas ♥, espadas ♠, bastos ♣ and the ranks A = 1 ... K = 13;
the joker is 52. A Spanish deck leaves the kinds of its missing ranks
unused, and the copies of a card in a two-deck game share one number.
:data:`CARD_KINDS` is 53.

**Actions** are one ``Discrete`` space, the same for every rule set and
number of players:

======================  ==================================================
index                   action
======================  ==================================================
0                       draw from the stock
1                       draw from the discard pile
2 + k (2-54)            discard card kind ``k``
55 + k (55-107)         close, putting kind ``k`` face down and showing
                        the best arrangement of the rest (``Close(card)``)
108, 109                re-entry: yes, no
======================  ==================================================

With ``interactive_showdown=True`` the seats also play the showdown after a
close, and 1274 actions follow (1384 in all):

======================  ==================================================
110                     pass (no more lay-offs this turn)
111                     show the best arrangement of the hand (the first
                        ``Show`` of the legal actions: fewest loose points)
112 + 24 k + j          lay off card kind ``k`` onto table meld ``j``
                        (``0 <= j < 24``: :data:`MAX_TABLE_MELDS`, the most
                        melds a table can hold: 8 seats with 10-card hands)
======================  ==================================================

Without it the engine plays every showdown decision
(:meth:`~chinchon.match.Match.resolve_showdown`: each seat leaves itself the
fewest loose points); that search grows fast with the seats, so tables of
more than four with lay-offs are better played with it. ``action_mask``
marks the legal actions; :func:`env`'s ``TerminateIllegalWrapper`` ends the
episode on an illegal one (reward -1), and :class:`raw_env` raises
:class:`~chinchon.actions.IllegalAction`.

**Observations** are a ``Dict``: ``observation``, a float32 vector encoding
the seat's :class:`~chinchon.observation.Observation` and nothing else (see
:func:`encode_observation` and :func:`observation_layout` for every block),
and ``action_mask``, an int8 vector over the actions.

**Agents** ``player_0`` ... act when the engine says (draws and discards,
re-entry decisions, showdown decisions); a seat out of the match for good is
terminated at once, the others when the match ends.

**Rewards**: ``reward="match"`` (the default) gives +1 to the winner and -1
to every other seat when the match is decided for it; ``reward="hand"`` gives
each seat, at the end of every hand, minus the points that hand adds to its
total (−10 for a clean close gives +10). ``max_turns`` truncates an episode
after that many actions. ``reset(seed=s)`` plays ``Match(players, rules,
seed=s)``; a later ``reset()`` without a seed plays seed ``s + 1``, and so on.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Iterable, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

try:
    import gymnasium
    import numpy as np
    import numpy.typing as npt
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("chinchon.env needs the optional extra rl: pip install 'chinchon[rl]'") from exc

from chinchon.actions import Action, Close, Discard, Draw, IllegalAction, LayOff, Pass, ReEnter, Show
from chinchon.cards import Card
from chinchon.errors import N_, ChinchonError
from chinchon.events import (
    Closed,
    DealEnded,
    DealStarted,
    Discarded,
    Drew,
    Event,
    LaidOff,
    MatchEnded,
    MatchStarted,
    Passed,
    PrivateEvent,
    ReEntered,
    ReEntryAsked,
    Showed,
    StockRebuilt,
    YouDrew,
    YouPutFaceDown,
    YouWereDealt,
)
from chinchon.i18n import _, ngettext
from chinchon.match import Match
from chinchon.observation import Observation, Phase, TableMeld
from chinchon.rules import Rules

__all__ = [
    "ACTIONS",
    "ACTIONS_INTERACTIVE",
    "CARD_KINDS",
    "CLOSE",
    "DISCARD",
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "LAYOFF",
    "MAX_TABLE_MELDS",
    "PASS",
    "REENTER_NO",
    "REENTER_YES",
    "SHOW",
    "BotOpponentsEnv",
    "EnvError",
    "SeatEncoder",
    "action_index",
    "action_mask",
    "card_kind",
    "encode_observation",
    "env",
    "kind_card",
    "observation_layout",
    "raw_env",
]

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]
ObservationDict = dict[str, Any]
ActionNumber = int | np.integer[Any] | None


class EnvError(ChinchonError):
    """A bad parameter of the environment, or an action that is not legal."""


# -- card kinds ------------------------------------------------------------------------------

_KINDS: Final[tuple[Card, ...]] = tuple(dict.fromkeys(Rules(deck="french52", jokers=1).cards(decks=1)))
_KIND_OF: Final[dict[Card, int]] = {card: i for i, card in enumerate(_KINDS)}

CARD_KINDS: Final = len(_KINDS)
"""The number of card kinds: 52 ranks and suits, and the joker (53)."""


# Cards are interned (one object for each rank and suit, kept for good), so their ids name them: looking an id
# up skips Card.__hash__, a Python call, in the encoder's innermost loops.
_KIND_OF_ID: Final[dict[int, int]] = {id(card): i for i, card in enumerate(_KINDS)}


# Compiled, a Final name is a C constant, where any other module-level name is looked up in the module's dict at
# each use: the commonest events, as the encoder tells them apart.
_DREW: Final = Drew
_DISCARDED: Final = Discarded
_YOU_DREW: Final = YouDrew


def card_kind(card: Card) -> int:
    """The number of a card's kind (0-52), the same under every rule set."""
    kind = _KIND_OF_ID.get(id(card))
    return _KIND_OF[card] if kind is None else kind


def _kinds(cards: Iterable[Card]) -> list[int]:
    """The kinds of cards, in order."""
    by_id = _KIND_OF_ID
    try:
        return [by_id[id(card)] for card in cards]
    except KeyError:
        return [_KIND_OF[card] for card in cards]


def kind_card(kind: int) -> Card:
    """The card of a kind number."""
    return _KINDS[kind]


# -- actions ----------------------------------------------------------------------------------

DRAW_STOCK: Final = 0
"""Draw from the stock."""
DRAW_DISCARD: Final = 1
"""Draw from the discard pile."""
DISCARD: Final = 2
"""``DISCARD + k`` discards card kind ``k``."""
CLOSE: Final = DISCARD + CARD_KINDS
"""``CLOSE + k`` closes, putting kind ``k`` face down, with the best arrangement of the rest."""
REENTER_YES: Final = CLOSE + CARD_KINDS
"""Re-enter the match."""
REENTER_NO: Final = REENTER_YES + 1
"""Stay out of the match."""
ACTIONS: Final = REENTER_NO + 1
"""The number of actions without an interactive showdown (110)."""
PASS: Final = ACTIONS
"""Make no more lay-offs in this turn of the showdown."""
SHOW: Final = PASS + 1
"""Show the best arrangement of the hand in the showdown."""
LAYOFF: Final = SHOW + 1
"""``LAYOFF + MAX_TABLE_MELDS * k + j`` lays off card kind ``k`` onto table meld ``j``."""
MAX_TABLE_MELDS: Final = 24
"""The most melds on the table after a close: 8 seats with 10-card hands, 3 melds each."""
ACTIONS_INTERACTIVE: Final = LAYOFF + CARD_KINDS * MAX_TABLE_MELDS
"""The number of actions with an interactive showdown (1384)."""

_STOCK = Draw("stock")
_PILE = Draw("discard")


def action_index(action: Action) -> int:
    """The number of an action; every ``Close`` of a discard, and every ``Show``, share one number.

    Raises:
        EnvError: a lay-off onto a meld beyond :data:`MAX_TABLE_MELDS`, or not an action.
    """
    kind = type(action)
    # The exact types first: a learner's mask numbers every legal action at every step.
    if kind is Discard:
        return DISCARD + card_kind(cast(Discard, action).card)
    if kind is Draw:
        return DRAW_STOCK if cast(Draw, action).source == "stock" else DRAW_DISCARD
    if kind is Close:
        return CLOSE + card_kind(cast(Close, action).discard)
    if isinstance(action, Draw):
        return DRAW_STOCK if action.source == "stock" else DRAW_DISCARD
    if isinstance(action, Discard):
        return DISCARD + _KIND_OF[action.card]
    if isinstance(action, Close):
        return CLOSE + _KIND_OF[action.discard]
    if isinstance(action, ReEnter):
        return REENTER_YES if action.accept else REENTER_NO
    if isinstance(action, Pass):
        return PASS
    if isinstance(action, Show):
        return SHOW
    if isinstance(action, LayOff) and 0 <= action.meld_index < MAX_TABLE_MELDS:
        return LAYOFF + MAX_TABLE_MELDS * _KIND_OF[action.card] + action.meld_index
    raise EnvError(N_("no action number for {action}"), action=action)


def _numbered(actions: Iterable[Action]) -> dict[int, Action]:
    """Legal actions by number: the first close of a discard (the best arrangement), the first show."""
    numbered: dict[int, Action] = {}
    for action in actions:
        kind = type(action)
        # action_index, its two commonest cases written out: this runs for every legal action at every step.
        if kind is Discard:
            index = DISCARD + card_kind(cast(Discard, action).card)
        elif kind is Draw:
            index = DRAW_STOCK if cast(Draw, action).source == "stock" else DRAW_DISCARD
        else:
            index = action_index(action)
        if index not in numbered:
            numbered[index] = action
    return numbered


def action_mask(observation: Observation, interactive_showdown: bool = False) -> Mask:
    """The legal actions of the observing seat (none unless it is to move), as 0/1 over the action numbers."""
    size = ACTIONS_INTERACTIVE if interactive_showdown else ACTIONS
    mask = np.zeros(size, dtype=np.int8)
    for action in observation.legal_actions:
        index = action_index(action)
        if index < size:
            mask[index] = 1
    return mask


# -- observations -----------------------------------------------------------------------------

MAX_COPIES: Final = 8
"""The most copies of one card kind in a game: 4 jokers a deck, two decks."""


@dataclass(frozen=True)
class _Layout:
    blocks: dict[str, slice]
    size: int
    low: Vector
    high: Vector


_CARD_BLOCKS: tuple[tuple[str, bool, float], ...] = (
    # name, one row per seat, highest value
    ("hand", False, MAX_COPIES),
    ("top_discard", False, 1),
    ("discard_pile", False, MAX_COPIES),
    ("discarded", True, MAX_COPIES),
    ("known", True, MAX_COPIES),
    ("table", True, MAX_COPIES),
    ("unseen", False, MAX_COPIES),
    ("deck", False, MAX_COPIES),
    ("values", False, 40),
)
_SEAT_BLOCKS: tuple[tuple[str, float, float], ...] = (
    ("hand_sizes", 0, 1),
    ("scores", -10, 10),
    ("in_deal", 0, 1),
    ("to_move", 0, 1),
)
_PHASES: Final = (Phase.DRAW, Phase.DISCARD, Phase.SHOWDOWN, Phase.OVER)
# The phases as module names: looking a member up on the enum class costs more, at every event.
_DRAW_PHASE: Final = Phase.DRAW
_DISCARD_PHASE: Final = Phase.DISCARD
_OVER: Final = Phase.OVER
_SHOWDOWN_PHASE: Final = Phase.SHOWDOWN


def _phase_index(phase: Phase) -> int:
    """``_PHASES.index(phase)``, by identity: no ``Enum.__hash__`` (a Python call), no method call."""
    if phase is _DRAW_PHASE:
        return 0
    if phase is _DISCARD_PHASE:
        return 1
    return 2 if phase is _SHOWDOWN_PHASE else 3


@functools.cache
def _layout(players: int) -> _Layout:
    blocks: dict[str, slice] = {}
    low: list[float] = []
    high: list[float] = []
    at = 0

    def add(name: str, length: int, lo: float, hi: float) -> None:
        nonlocal at
        blocks[name] = slice(at, at + length)
        low.extend([lo] * length)
        high.extend([hi] * length)
        at += length

    for name, per_seat, most in _CARD_BLOCKS:
        add(name, CARD_KINDS * (players if per_seat else 1), 0, most)
    for name, lo, hi in _SEAT_BLOCKS:
        add(name, players, lo, hi)
    add("phase", len(_PHASES) + 1, 0, 1)
    add("stock", 1, 0, 1)
    return _Layout(blocks, at, np.array(low, dtype=np.float32), np.array(high, dtype=np.float32))


def observation_layout(players: int) -> dict[str, slice]:
    """Where each block of the observation vector lies, by name, for a number of seats.

    Card blocks hold one value per card kind (:func:`card_kind`); the blocks
    marked *per seat* hold one row of kinds per seat, and seat blocks one
    value per seat, both in *relative* order: row 0 is the observing seat,
    row ``i`` the seat ``i`` places after it in playing order.

    ==============  =========  ==========================================================
    block           size       values
    ==============  =========  ==========================================================
    hand            53         copies of each kind in the seat's hand
    top_discard     53         1 for the kind on top of the discard pile
    discard_pile    53         copies of each kind in the face-up discard pile
    discarded       53 × N     per seat: times it discarded each kind this deal
                               (at most 8), whatever became of the card
    known           53 × N     per seat: copies known to all to be in its hand, the
                               cards it took from the discard pile and holds; every
                               hand once the deal is over
    table           53 × N     per seat: copies in the melds it owns on the table
    unseen          53         copies the seat has not seen where they are: the game's
                               cards less its hand, the discard pile, the table and
                               the other seats' known cards
    deck            53         copies of each kind in the game (the rules' deck)
    values          53         each kind's loose value under the rules / 25 (0 off
                               the deck)
    hand_sizes      N          cards in each seat's hand / 11
    scores          N          each total / the rules' limit, within -10 ... 10
    in_deal         N          1 if the seat plays the current deal
    to_move         N          1 for the seat to act
    phase           5          one-hot draw, discard, showdown, over; then 1 while a
                               re-entry is being decided
    stock           1          cards in the stock / cards in the game
    ==============  =========  ==========================================================
    """
    return dict(_layout(players).blocks)


@functools.cache
def _rule_planes(rules: Rules, decks: int) -> tuple[npt.NDArray[np.int64], Vector]:
    copies = np.zeros(CARD_KINDS, dtype=np.int64)
    for card in rules.cards(decks=decks):
        copies[_KIND_OF[card]] += 1
    values = np.zeros(CARD_KINDS, dtype=np.float32)
    for kind, card in enumerate(_KINDS):
        if rules.has_card(card):
            values[kind] = min(rules.value(card) / 25, 40)
    return copies, values


def encode_observation(observation: Observation) -> Vector:
    """The observation as a fixed-size float32 vector (the blocks of :func:`observation_layout`).

    Built from the :class:`~chinchon.observation.Observation` alone, so it holds
    only what the seat may know.
    """
    obs = observation
    players = obs.players
    me = obs.seat
    layout = _layout(players)
    blocks = layout.blocks
    kinds = _KIND_OF
    K = CARD_KINDS
    over = obs.phase is Phase.OVER

    hand = blocks["hand"].start
    indices = [hand + kinds[card] for card in obs.hand]
    pile = blocks["discard_pile"].start
    indices.extend(pile + kinds[card] for card in obs.discard_pile)
    top = obs.top_discard
    if top is not None:
        indices.append(blocks["top_discard"].start + kinds[top])
    discarded = blocks["discarded"].start
    for (seat, card), times in Counter(obs.discards).items():
        indices.extend([discarded + (seat - me) % players * K + kinds[card]] * min(times, MAX_COPIES))
    known = blocks["known"].start
    held: Iterable[tuple[int, Sequence[Card]]] = enumerate(obs.revealed if over and obs.revealed else obs.taken)
    for seat, cards in held:
        row = known + (seat - me) % players * K
        indices.extend(row + kinds[card] for card in cards)
    table = blocks["table"].start
    for meld in obs.table:
        row = table + (meld.owner - me) % players * K
        indices.extend(row + kinds[card] for card in meld.cards)

    counts = np.bincount(np.array(indices, dtype=np.int64), minlength=layout.size)
    np.minimum(counts, MAX_COPIES, out=counts)
    copies, values = _rule_planes(obs.rules, obs.decks)
    others_known = counts[blocks["known"]].reshape(players, K)[1:].sum(axis=0)
    on_table = counts[blocks["table"]].reshape(players, K).sum(axis=0)
    unseen = copies - counts[blocks["hand"]] - counts[blocks["discard_pile"]] - on_table - others_known
    out = counts.astype(np.float32)
    out[blocks["unseen"]] = np.maximum(unseen, 0)
    out[blocks["deck"]] = copies
    out[blocks["values"]] = values

    sizes = blocks["hand_sizes"].start
    scores = blocks["scores"].start
    in_deal = blocks["in_deal"].start
    limit = obs.rules.limit
    for seat in range(players):
        rel = (seat - me) % players
        out[sizes + rel] = min(obs.hand_sizes[seat] / 11, 1.0)
        if obs.scores:
            out[scores + rel] = min(max(obs.scores[seat] / limit, -10.0), 10.0)
    for seat in obs.seats:
        out[in_deal + (seat - me) % players] = 1
    if obs.to_move is not None:
        out[blocks["to_move"].start + (obs.to_move - me) % players] = 1
    phase = blocks["phase"].start
    out[phase + _PHASES.index(obs.phase)] = 1
    if obs.reentry_pending:
        out[phase + len(_PHASES)] = 1
    cards_in_game = int(copies.sum())
    out[blocks["stock"].start] = min(obs.stock_size / cards_in_game, 1.0)
    return out


_Held = set[int] | list[int]
"""The cards of a block as an encoder remembers them: their ids, or their kinds where two may be alike."""


class SeatEncoder:
    """One seat's observation vector, kept in a preallocated array and updated in place.

    :meth:`follow` updates it from the events a match told the seat since
    the last call (:meth:`feed` from the events themselves), without
    building an :class:`~chinchon.observation.Observation`; :meth:`observe` from
    the seat's successive observations, rewriting only what changed since
    the one before. Both give exactly :func:`encode_observation`'s values.
    ``out`` is where the vector lives (a row of a batch, say: a
    C-contiguous float32 array of :func:`observation_layout`'s size); by
    default the encoder makes its own. The array is overwritten at each
    call: copy it to keep it.

    Observations come in the order of the game: a new deal is told by
    ``Observation.deal_number``. :meth:`reset` forgets everything (a new
    match); so does a switch between events and observations.

    Raises:
        EnvError: ``out`` does not fit, or the seat is not one of the seats.
    """

    def __init__(self, rules: Rules | str, players: int, seat: int, out: Vector | None = None) -> None:
        self.rules = _rules_of(rules)
        self.decks = self.rules.decks_for(players)
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise EnvError(
                N_("seat: expected a seat from 0 to {last}, got {value}"), last=players - 1, value=repr(seat)
            )
        layout = _layout(players)
        if out is None:
            out = np.zeros(layout.size, dtype=np.float32)
        elif out.shape != (layout.size,) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise EnvError(
                N_("out: expected a C-contiguous float32 array of shape ({size},), got {value}"),
                size=layout.size,
                value=f"{out.dtype} {out.shape}",
            )
        self.players = players
        self.seat = seat
        self.vector: Vector = out
        """The seat's observation vector, as of the last :meth:`observe`."""
        # Item writes through a memoryview cost less than through numpy (typeshed types its items as int).
        self._mv = cast("MutableSequence[float | int]", out.data)
        blocks = layout.blocks
        self._hand: int = blocks["hand"].start
        self._top: int = blocks["top_discard"].start
        self._pile: int = blocks["discard_pile"].start
        self._discarded: int = blocks["discarded"].start
        self._known: int = blocks["known"].start
        self._table: int = blocks["table"].start
        self._unseen: int = blocks["unseen"].start
        # Views of blocks past the 256th number, written at most steps: an index above 256 is a new int object
        # at each write, an index into a block's view is not.
        tail = min(blocks[name].start for name in ("hand_sizes", "scores", "in_deal", "to_move", "phase", "stock"))
        self._tail_mv = cast("MutableSequence[float | int]", out.data[tail:])
        self._known_mv = cast("MutableSequence[float | int]", out.data[self._known : blocks["known"].stop])
        self._unseen_mv = cast("MutableSequence[float | int]", out.data[self._unseen : blocks["unseen"].stop])
        self._discarded_mv = cast("MutableSequence[float | int]", out.data[self._discarded : blocks["discarded"].stop])
        # In the view of the last blocks:
        self._sizes: int = blocks["hand_sizes"].start - tail
        self._scores: int = blocks["scores"].start - tail
        self._in_deal: int = blocks["in_deal"].start - tail
        self._to_move: int = blocks["to_move"].start - tail
        self._phase: int = blocks["phase"].start - tail
        self._stock: int = blocks["stock"].start - tail
        self._row = [(s - seat) % players * CARD_KINDS for s in range(players)]
        self._rel = [(s - seat) % players for s in range(players)]
        copies, values = _rule_planes(self.rules, self.decks)
        blank = np.zeros(layout.size, dtype=np.float32)
        blank[blocks["deck"]] = copies
        blank[blocks["values"]] = values
        blank[blocks["unseen"]] = copies
        self._blank = blank
        """The vector before a match: every card unseen, the deck's copies and the cards' values, the rest 0."""
        # The blocks a new deal empties (all before the deck's), in the vector and in the blank one.
        deal_end = blocks["deck"].start
        self._deal_blocks = out[:deal_end]
        self._blank_deal_blocks = blank[:deal_end]
        self._copies = [int(c) for c in copies]
        self._unique = int(copies.max()) <= 1
        self._in_game = float(copies.sum())
        self._limit = self.rules.limit
        self.reset()

    def reset(self) -> None:
        """Forget every observation: the next one is encoded whole."""
        np.copyto(self.vector, self._blank)
        self._clear_card_counts()
        self._seen_sizes: list[int] = []
        self._seen_scores: list[int] | None = None
        self._seen_seats: tuple[int, ...] | None = None
        self._seen_mover: int | None = None
        self._seen_phase: Phase | None = None
        self._seen_deciding = False
        self._seen_stock = -1
        self._followed: Match | None = None
        self._since = 0
        self._mode: str | None = None
        self._scores_now: list[int] = []
        self._pending_now: list[int] = []
        self._clear_deal()

    def _clear_deal(self) -> None:
        """The event-fed state of a deal, before its start."""
        self._sizes_now = [0] * self.players
        self._seats_now: tuple[int, ...] = ()
        self._next_of: dict[int, int] = {}
        self._pile_now: list[int] = []
        self._stock_now = 0
        self._phase_now = Phase.OVER
        self._mover_now: int | None = None

    def _clear_cards(self) -> None:
        """Empty the card blocks for a new deal."""
        np.copyto(self._deal_blocks, self._blank_deal_blocks)
        self._clear_card_counts()

    def _clear_card_counts(self) -> None:
        """The card counts of a new deal (:meth:`_clear_cards` without the vector)."""
        K = CARD_KINDS
        P = self.players
        self._deal: int | None = None
        self._n_hand = [0] * K
        self._n_pile = [0] * K
        self._n_discarded = [0] * (K * P)
        self._n_unseen = list(self._copies)
        self._known_rows = [[0] * K for _ in range(P)]
        empty: _Held = set() if self._unique else []
        self._known_state: list[_Held] = [empty] * P
        self._hand_state = empty
        self._n_table = [0] * (K * P)
        self._on_table = [0] * K
        self._others_known = [0] * K
        self._seen_hand: tuple[Card, ...] = ()
        self._seen_pile: tuple[Card, ...] = ()
        self._seen_discards = 0
        self._seen_known: tuple[tuple[Card, ...], ...] = ((),) * P
        self._seen_table: tuple[TableMeld, ...] = ()

    def observe(self, observation: Observation) -> Vector:
        """The vector of the seat's latest observation: :func:`encode_observation`'s values, in :attr:`vector`.

        Raises:
            EnvError: the observation is another seat's, or of another number of seats.
        """
        obs = observation
        return self._observe(obs, obs.deal_number, obs.scores, obs.to_move, obs.reentry_pending)

    def _observe(
        self,
        obs: Observation,
        deal_number: int,
        scores: Sequence[int],
        to_move: int | None,
        pending: Sequence[int],
    ) -> Vector:
        """:meth:`observe` with the match's part given apart: a deal's observation (``Deal.observation``)
        and the match's deal number, totals, seat to move and pending re-entries, as ``Match.observation``
        would put them in."""
        if obs.seat != self.seat or obs.players != self.players:
            raise EnvError(
                N_("this encoder is seat {seat}'s of {players}, not seat {other}'s of {count}"),
                seat=self.seat,
                players=self.players,
                other=obs.seat,
                count=obs.players,
            )
        if self._mode != "observe":
            if self._mode is not None:
                self.reset()
            self._mode = "observe"
        if deal_number != self._deal or len(obs.discards) < self._seen_discards:
            self._clear_cards()
            self._deal = deal_number
        self._cards(obs)
        self._public(obs, scores, to_move, pending)
        return self.vector

    # -- what changed between two observations -------------------------------------------------
    # The vector changes only through _move/_replace (cards leaving and entering one card block: the hand,
    # the pile, a seat's known cards, the table), the count of discards (in _cards) and _scalars (the seat
    # blocks, phase and stock), each also noting the kinds whose unseen count must be recounted.

    def _cards(self, obs: Observation) -> None:
        changed: list[int] = []
        hand = obs.hand
        if hand != self._seen_hand:
            self._hand_state = self._replace(self._hand, self._n_hand, self._hand_state, hand, changed)
            self._seen_hand = hand
        pile = obs.discard_pile
        old = self._seen_pile
        if pile != old:
            # The pile is a stack: find how deep it changed, then move only the cards above.
            depth = min(len(old), len(pile))
            while depth and old[:depth] != pile[:depth]:
                depth -= 1
            self._move(self._pile, self._n_pile, _kinds(old[depth:]), _kinds(pile[depth:]), changed)
            mv = self._mv
            if old:
                mv[self._top + card_kind(old[-1])] = 0.0
            if pile:
                mv[self._top + card_kind(pile[-1])] = 1.0
            self._seen_pile = pile
        discards = obs.discards
        seen = self._seen_discards
        if len(discards) > seen:
            row = self._row
            counts = self._n_discarded
            mv = self._mv
            start = self._discarded
            for seat, card in discards[seen:]:
                index = row[seat] + card_kind(card)
                times = counts[index] = counts[index] + 1
                if times <= MAX_COPIES:
                    mv[start + index] = float(times)
            self._seen_discards = len(discards)
        known = obs.revealed if obs.phase is _OVER and obs.revealed else obs.taken
        if known != self._seen_known:
            self._known_cards(known, changed)
        table = obs.table
        if table != self._seen_table:
            self._table_cards(table, changed)
        if changed:
            self._recount_unseen(changed)

    def _replace(
        self,
        start: int,
        counts: list[int],
        state: _Held,
        new: Sequence[Card],
        changed: list[int],
        total: list[int] | None = None,
    ) -> _Held:
        """The cards of a block (held as ``state``) are now ``new``: count what differs (in ``total`` too,
        the sum over rows the unseen count reads, when given); the new state.

        Without two cards alike (one deck, at most one joker) the state is the set of the cards' ids (see
        ``_KIND_OF_ID``) and what left and what came are set differences; otherwise it is the list of kinds.
        """
        if self._unique:
            by_id = _KIND_OF_ID
            after = set(map(id, new))
            self._move(
                start,
                counts,
                [by_id[i] for i in state - after],  # type: ignore[operator]
                [by_id[i] for i in after - state],  # type: ignore[operator]
                changed,
                total,
            )
            return after
        kinds = _kinds(new)
        self._move(start, counts, state, kinds, changed, total)  # type: ignore[arg-type]
        return kinds

    def _move(
        self,
        start: int,
        counts: list[int],
        old: list[int],
        new: list[int],
        changed: list[int],
        total: list[int] | None = None,
    ) -> None:
        """Cards of kinds ``old`` left the block at ``start`` (counted in ``counts``, and in ``total`` when
        given), cards of kinds ``new`` came."""
        mv = self._mv
        for k in old:
            counts[k] -= 1
            mv[start + k] = counts[k]
        for k in new:
            counts[k] += 1
            mv[start + k] = counts[k]
        if total is not None:
            for k in old:
                total[k] -= 1
            for k in new:
                total[k] += 1
        changed += old
        changed += new

    def _known_cards(self, known: tuple[tuple[Card, ...], ...], changed: list[int]) -> None:
        rows = self._known_rows
        states = self._known_state
        for seat, (old, new) in enumerate(zip(self._seen_known, known, strict=True)):
            if old == new:
                continue
            relative = self._rel[seat]
            # The other seats' known cards count in the unseen block (through their total); the seat's own do not.
            others, moved = (self._others_known, changed) if relative else (None, [])
            start = self._known + self._row[seat]
            states[seat] = self._replace(start, rows[relative], states[seat], new, moved, others)
        self._seen_known = known

    def _table_cards(self, table: tuple[TableMeld, ...], changed: list[int]) -> None:
        K = CARD_KINDS
        kind = card_kind
        counts = self._n_table
        moved: list[int] = []
        for sign, melds in ((-1, self._seen_table), (1, table)):
            for meld in melds:
                row = self._row[meld.owner]
                for card in meld.cards:
                    k = kind(card)
                    counts[row + k] += sign
                    moved.append(row + k)
        mv = self._mv
        on_table = self._on_table
        for index in set(moved):
            mv[self._table + index] = counts[index]
            k = index % K
            on_table[k] = sum(counts[r + k] for r in self._row)
            changed.append(k)
        self._seen_table = table

    def _recount_unseen(self, changed: list[int]) -> None:
        unseen_mv = self._unseen_mv
        copies, hand, pile = self._copies, self._n_hand, self._n_pile
        on_table, others = self._on_table, self._others_known
        unseen = self._n_unseen
        kinds = changed if len(changed) <= 3 else list(set(changed))
        for k in kinds:
            left = copies[k] - hand[k] - pile[k] - on_table[k] - others[k]
            if left < 0:
                left = 0
            # A card that changed hands in sight (a draw from the pile) leaves its count unseen as it was.
            if left != unseen[k]:
                unseen[k] = left
                unseen_mv[k] = left

    def _public(self, obs: Observation, scores: Sequence[int], to_move: int | None, pending: Sequence[int]) -> None:
        """The seat blocks, the phase and the stock of an observation: rewritten when they changed."""
        self._scalars(list(obs.hand_sizes), list(scores), obs.seats, to_move, obs.phase, bool(pending), obs.stock_size)

    def _scalars(
        self,
        sizes: list[int],
        scores: list[int],
        seats: tuple[int, ...],
        to_move: int | None,
        phase: Phase,
        deciding: bool,
        stock: int,
    ) -> None:
        """The seat blocks, the phase and the stock: rewritten when they changed."""
        mv = self._tail_mv
        rel = self._rel
        seen = self._seen_sizes
        at = self._sizes
        if len(seen) != len(sizes):
            for seat, size in enumerate(sizes):
                mv[at + rel[seat]] = min(size / 11, 1.0)
            self._seen_sizes = list(sizes)
        else:
            # Most steps change one seat's hand; compared in place, as nothing is made at every step.
            for seat in range(len(sizes)):
                size = sizes[seat]
                if size != seen[seat]:
                    mv[at + rel[seat]] = min(size / 11, 1.0)
                    seen[seat] = size
        if scores != self._seen_scores:
            limit = self._limit
            for seat in range(self.players):
                mv[self._scores + rel[seat]] = min(max(scores[seat] / limit, -10.0), 10.0) if scores else 0.0
            self._seen_scores = list(scores)
        if seats != self._seen_seats:
            for seat in range(self.players):
                mv[self._in_deal + rel[seat]] = 0.0
            for seat in seats:
                mv[self._in_deal + rel[seat]] = 1.0
            self._seen_seats = seats
        if to_move != self._seen_mover:
            if self._seen_mover is not None:
                mv[self._to_move + rel[self._seen_mover]] = 0.0
            if to_move is not None:
                mv[self._to_move + rel[to_move]] = 1.0
            self._seen_mover = to_move
        if phase is not self._seen_phase:
            start = self._phase
            if self._seen_phase is not None:  # else reset() left the block at 0
                mv[start + _phase_index(self._seen_phase)] = 0.0
            mv[start + _phase_index(phase)] = 1.0
            self._seen_phase = phase
        if deciding is not self._seen_deciding:
            mv[self._phase + len(_PHASES)] = 1.0 if deciding else 0.0
            self._seen_deciding = deciding
        if stock != self._seen_stock:
            mv[self._stock] = min(stock / self._in_game, 1.0)
            self._seen_stock = stock

    # -- fed the engine's events -------------------------------------------------------------

    def follow(self, match: Match) -> Vector:
        """The seat's vector in ``match`` now, as :func:`encode_observation` gives it for
        ``match.observation(seat)``: updated from the events told since the last call
        (:meth:`Match.events_for <chinchon.match.Match.events_for>`), without building an observation.

        A match other than the last one followed starts the encoder again.

        Raises:
            EnvError: the match has another number of seats, or other rules, than the encoder.
        """
        if match is not self._followed:
            if match.players != self.players:
                raise EnvError(
                    N_("this encoder is for {players} seats, not {count}"), players=self.players, count=match.players
                )
            self.reset()
            self._followed = match
        return self.feed(match.events_for(self.seat, self._since))

    def feed(self, events: Iterable[Event]) -> Vector:
        """The seat's vector after these events: the next ones the seat is told, in order, from a match's
        :class:`~chinchon.events.MatchStarted` on (what ``match.events_for(seat, since)`` gives).

        Raises:
            EnvError: a private event of another seat, or a match of other rules or seats than the encoder's.
        """
        if self._mode != "events":
            if self._mode is not None:
                followed = self._followed
                self.reset()
                self._followed = followed
            self._mode = "events"
        me = self.seat
        mv = self._mv
        row = self._row
        rel = self._rel
        by_id = _KIND_OF_ID
        hand = self._n_hand
        pile_counts = self._n_pile
        known = self._known_rows
        others = self._others_known
        sizes = self._sizes_now
        pile = self._pile_now
        hand_at, pile_at, top_at = self._hand, self._pile, self._top
        known_mv = self._known_mv
        changed: list[int] = []
        public = 0
        # A list is walked by index when compiled, with no iterator to make. Its items' counts are updated as
        # a[i] = a[i] + 1: compiled, an augmented assignment to a list item is a generic Python addition.
        told: list[Event] = events if type(events) is list else list(events)
        for event in told:
            if type(event) is _DREW:
                public += 1
                seat = event.seat
                self._phase_now = _DISCARD_PHASE
                self._mover_now = seat
                sizes[seat] = sizes[seat] + 1
                card = event.card
                if card is None:
                    self._stock_now -= 1
                    continue
                k = by_id.get(id(card), -1)
                if k < 0:
                    k = _KIND_OF[card]
                pile.pop()
                pile_counts[k] = pile_counts[k] - 1
                mv[pile_at + k] = pile_counts[k]
                mv[top_at + k] = 0.0
                if pile:
                    mv[top_at + pile[-1]] = 1.0
                r = rel[seat]
                taken = known[r]
                taken[k] = taken[k] + 1
                known_mv[row[seat] + k] = taken[k]
                if r:
                    others[k] = others[k] + 1
                else:
                    hand[k] = hand[k] + 1
                    mv[hand_at + k] = hand[k]
                changed.append(k)
            elif type(event) is _DISCARDED:
                public += 1
                seat = event.seat
                card = event.card
                k = by_id.get(id(card), -1)
                if k < 0:
                    k = _KIND_OF[card]
                # _lose, written out: a discard is the commonest event.
                sizes[seat] = sizes[seat] - 1
                r = rel[seat]
                taken = known[r]
                if taken[k] > 0:
                    taken[k] = taken[k] - 1
                    known_mv[row[seat] + k] = taken[k]
                    if r:
                        others[k] = others[k] - 1
                if not r:
                    hand[k] = hand[k] - 1
                    mv[hand_at + k] = hand[k]
                if pile:
                    mv[top_at + pile[-1]] = 0.0
                pile.append(k)
                pile_counts[k] = pile_counts[k] + 1
                mv[pile_at + k] = pile_counts[k]
                mv[top_at + k] = 1.0
                index = row[seat] + k
                times = self._n_discarded[index] = self._n_discarded[index] + 1
                if times <= MAX_COPIES:
                    self._discarded_mv[index] = float(times)
                self._phase_now = _DRAW_PHASE
                self._mover_now = self._next_of[seat]
                changed.append(k)
            elif type(event) is _YOU_DREW:
                if event.seat != me:
                    self._not_mine(event)
                k = card_kind(event.card)
                hand[k] = hand[k] + 1
                mv[hand_at + k] = hand[k]
                changed.append(k)
            elif type(event) is DealStarted:
                public += 1
                self._deal_started(event, changed)
                pile = self._pile_now
                sizes = self._sizes_now
                hand, pile_counts, known, others = self._n_hand, self._n_pile, self._known_rows, self._others_known
            elif type(event) is MatchStarted:
                public += 1
                self._match_started(event)
            elif type(event) is YouWereDealt:
                if event.seat != me:
                    self._not_mine(event)
                for k in _kinds(event.hand):
                    hand[k] += 1
                    mv[hand_at + k] = hand[k]
                    changed.append(k)
            elif type(event) is StockRebuilt:
                public += 1
                self._stock_now = event.stock
                for k in pile[:-1]:
                    pile_counts[k] -= 1
                    mv[pile_at + k] = pile_counts[k]
                    changed.append(k)
                del pile[:-1]
            elif type(event) is Closed or type(event) is Showed:
                public += 1
                seat = event.seat
                for meld in event.melds:
                    kinds = _kinds(meld)
                    for k in kinds:
                        self._lose(seat, k)
                    self._lay(seat, kinds)
                    changed += kinds
                if type(event) is Closed:
                    sizes[seat] -= 1  # the card put face down
                    self._phase_now = Phase.SHOWDOWN
                self._mover_now = event.to_move
            elif type(event) is YouPutFaceDown:
                if event.seat != me:
                    self._not_mine(event)
                k = card_kind(event.card)
                hand[k] -= 1
                mv[hand_at + k] = hand[k]
                changed.append(k)
            elif type(event) is LaidOff:
                public += 1
                k = card_kind(event.card)
                self._lose(event.seat, k)
                self._lay(event.owner, [k])
                changed.append(k)
                self._mover_now = event.to_move
            elif type(event) is Passed:
                public += 1
                self._mover_now = event.to_move
            elif type(event) is DealEnded:
                public += 1
                self._deal_ended(event, changed)
            elif type(event) is ReEntryAsked:
                public += 1
                self._pending_now = list(event.seats)
                self._mover_now = self._pending_now[0]
            elif type(event) is ReEntered:
                public += 1
                pending = self._pending_now
                pending.pop(0)
                self._scores_now[event.seat] = event.score
                self._mover_now = pending[0] if pending else None
            elif type(event) is MatchEnded:
                public += 1
                self._scores_now = list(event.scores)
                self._pending_now = []
                self._mover_now = None
            elif isinstance(event, PrivateEvent):  # pragma: no cover - every type(event) is above
                self._not_mine(event)
            else:  # pragma: no cover - every type(event) is above
                raise EnvError(N_("the encoder does not know the event {event}"), event=event)
        self._since += public
        if changed:
            self._recount_unseen(changed)
        self._scalars(
            self._sizes_now,
            self._scores_now,
            self._seats_now,
            self._mover_now,
            self._phase_now,
            bool(self._pending_now),
            self._stock_now,
        )
        return self.vector

    def _not_mine(self, event: Event) -> None:
        raise EnvError(N_("this encoder is seat {seat}'s, not told {event}"), seat=self.seat, event=event.kind)

    def _match_started(self, event: MatchStarted) -> None:
        if event.rules != self.rules or len(event.names) != self.players:
            raise EnvError(
                N_("this encoder is for {players} seats under other rules, not this match"), players=self.players
            )
        self._scores_now = list(event.scores)
        self._pending_now = []

    def _deal_started(self, event: DealStarted, changed: list[int]) -> None:
        self._clear_cards()
        self._clear_deal()
        self._deal = event.number
        seats = event.seats
        self._seats_now = seats
        self._next_of = {seat: seats[(i + 1) % len(seats)] for i, seat in enumerate(seats)}
        size = self.rules.hand_size
        self._sizes_now = [size if seat in seats else 0 for seat in range(self.players)]
        self._stock_now = event.stock
        self._phase_now = Phase.DRAW
        self._mover_now = event.first
        self._pending_now = []
        self._scores_now = list(event.scores)
        k = card_kind(event.discard)
        self._pile_now = [k]
        self._n_pile[k] = 1
        self._mv[self._pile + k] = 1.0
        self._mv[self._top + k] = 1.0
        changed.append(k)

    def _lose(self, seat: int, k: int) -> None:
        """A card of kind ``k`` left ``seat``'s hand (no longer known to be there, if it was)."""
        self._sizes_now[seat] -= 1
        r = self._rel[seat]
        taken = self._known_rows[r]
        if taken[k] > 0:
            taken[k] -= 1
            self._mv[self._known + self._row[seat] + k] = taken[k]
            if r:
                self._others_known[k] -= 1
        if not r:
            self._n_hand[k] -= 1
            self._mv[self._hand + k] = self._n_hand[k]

    def _lay(self, owner: int, kinds: list[int]) -> None:
        """Cards of these kinds joined ``owner``'s melds on the table."""
        counts = self._n_table
        start = self._table + self._row[owner]
        at = self._row[owner]
        for k in kinds:
            counts[at + k] += 1
            self._mv[start + k] = counts[at + k]
            self._on_table[k] += 1

    def _deal_ended(self, event: DealEnded, changed: list[int]) -> None:
        """Every hand is shown: the known rows hold them; the table is the result's."""
        result = event.result
        self._phase_now = Phase.OVER
        self._mover_now = None
        self._scores_now = list(event.scores)
        K = CARD_KINDS
        if result.closer is not None:
            counts = self._n_table
            on_table = self._on_table
            new = [0] * (K * self.players)
            for meld in result.table:
                at = self._row[meld.owner]
                for k in _kinds(meld.cards):
                    new[at + k] += 1
            for index, value in enumerate(new):
                if value != counts[index]:
                    k = index % K
                    on_table[k] += value - counts[index]
                    counts[index] = value
                    self._mv[self._table + index] = value
                    changed.append(k)
        self._sizes_now = [len(loose) for loose in result.loose]
        for seat, loose in enumerate(result.loose):
            r = self._rel[seat]
            now = [0] * K
            for k in _kinds(loose):
                now[k] += 1
            self._set_row(
                self._known + self._row[seat], self._known_rows[r], now, changed, self._others_known if r else None
            )
            if not r:
                self._set_row(self._hand, self._n_hand, now, changed, None)

    def _set_row(
        self, start: int, counts: list[int], now: list[int], changed: list[int], total: list[int] | None
    ) -> None:
        """A card block's counts are now ``now`` (the sum over rows ``total`` follows, when given)."""
        mv = self._mv
        for k, value in enumerate(now):
            if value != counts[k]:
                if total is not None:
                    total[k] += value - counts[k]
                counts[k] = value
                mv[start + k] = value
                changed.append(k)


# -- the AEC environment ----------------------------------------------------------------------


def _rules_of(rules: Rules | str) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    raise EnvError(N_("rules: expected a Rules value or a preset name, got {value}"), value=repr(rules))


class raw_env(AECEnv[str, ObservationDict, ActionNumber]):
    """Chinchón as a PettingZoo AEC environment: one episode is one match.

    ``rules`` is a :class:`~chinchon.rules.Rules` value or a preset name;
    ``players`` the number of seats (2-8, as the rules allow); ``reward``
    ``"match"`` or ``"hand"``; ``interactive_showdown`` lets the seats play the
    showdown; ``max_turns`` truncates an episode after that many actions;
    ``render_mode`` is ``"human"`` (print), ``"ansi"`` (return the text) or
    ``None``. See the module documentation for the spaces.

    Raises:
        EnvError: a bad parameter.
        RulesError: the rules do not allow this many players.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo declares it an instance variable
        "name": "chinchon_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "fournier",
        players: int = 2,
        *,
        reward: Literal["match", "hand"] = "match",
        interactive_showdown: bool = False,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.rules = _rules_of(rules)
        if not isinstance(players, int) or isinstance(players, bool):
            raise EnvError(N_("players: expected a number of seats, got {value}"), value=repr(players))
        self.rules.decks_for(players)
        if reward not in ("match", "hand"):
            raise EnvError(N_("reward: expected 'match' or 'hand', got {value}"), value=repr(reward))
        if max_turns is not None and (not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1):
            raise EnvError(
                N_("max_turns: expected a positive whole number or none, got {value}"), value=repr(max_turns)
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(
                N_("render_mode: expected one of {known}, got {value}"),
                known=", ".join(self.metadata["render_modes"]),
                value=repr(render_mode),
            )
        self.players = players
        self.reward: Literal["match", "hand"] = reward
        self.interactive_showdown = bool(interactive_showdown)
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        layout = _layout(players)
        size = ACTIONS_INTERACTIVE if self.interactive_showdown else ACTIONS
        self._observation_spaces = {
            agent: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(layout.low, layout.high, dtype=np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (size,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._action_spaces = {agent: gymnasium.spaces.Discrete(size) for agent in self.possible_agents}
        self._next_seed: int | None = None
        self.seed: int | None = None
        """The seed of the current match."""
        self._results = 0
        self._cut_short = False
        self._rewarded = True
        """Whether rewards or ends were given since the rewards were last cleared (PettingZoo's helpers run then)."""
        self.match: Match | None = None
        self.turns = 0
        self.agents = []
        self._views: dict[int, Observation] = {}
        self._legal: dict[int, Action] | None = None
        self._encoders = [SeatEncoder(self.rules, players, seat) for seat in range(players)]
        self._size = size

    # -- spaces --------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[ObservationDict]:
        """The ``Dict`` space of an agent's observations (the same object on every call)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[ActionNumber]:
        """The ``Discrete`` space of an agent's actions (the same object on every call)."""
        return self._action_spaces[agent]

    # -- seats -----------------------------------------------------------------------------------

    def seat(self, agent: str) -> int:
        """The seat of an agent."""
        return self._seat_of[agent]

    def agent(self, seat: int) -> str:
        """The agent of a seat."""
        return self.possible_agents[seat]

    def _match(self) -> Match:
        if self.match is None:
            raise EnvError(N_("call reset() before playing"))
        return self.match

    def view(self, agent: str) -> Observation:
        """What an agent's seat observes now, as the engine's :class:`~chinchon.observation.Observation` (for bots)."""
        seat = self._seat_of[agent]
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self._match().observation(seat)
        return view

    # -- the episode -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match: ``Match(players, rules, seed)``, the seed following on from the last one given."""
        if seed is None:
            seed = self._next_seed if self._next_seed is not None else random.SystemRandom().getrandbits(63)
        self._next_seed = seed + 1
        self.seed = seed
        self.match = Match(self.players, self.rules, seed=seed)
        self.turns = 0
        self._results = 0
        self._cut_short = False
        self._rewarded = True
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        vars(self).pop("_skip_agent_selection", None)
        for encoder in self._encoders:
            encoder.reset()
        self._changed()
        self.agent_selection = self._mover()

    def _mover(self) -> str:
        seat = self._match().to_move
        return self.possible_agents[seat if seat is not None else 0]

    def _changed(self) -> None:
        self._views.clear()
        self._legal = None

    def _mover_legal(self) -> dict[int, Action]:
        """The legal actions of the seat the engine waits for, by number."""
        if self._legal is None:
            match = self._match()
            self._legal = _numbered(match.legal_actions()) if not match.over else {}
        return self._legal

    def legal_actions(self) -> dict[int, Action]:
        """The legal actions of the agent to move, by number: what each number plays."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent] or self._match().over or agent != self._mover():
            return {}
        return self._mover_legal()

    def observe(self, agent: str) -> ObservationDict:
        """An agent's observation: ``{"observation": vector, "action_mask": mask}`` (new arrays)."""
        return {"observation": self.encode(agent).copy(), "action_mask": self.mask(agent)}

    def encode(self, agent: str) -> Vector:
        """An agent's observation vector, as :func:`encode_observation` makes it, from its seat's
        :class:`SeatEncoder` fed the match's events: the encoder's own array, overwritten as the match goes on."""
        return self._encoders[self._seat_of[agent]].follow(self._match())

    def mask(self, agent: str) -> Mask:
        """An agent's legal actions (see :func:`action_mask`); none once its episode has ended."""
        mask = np.zeros(self._size, dtype=np.int8)
        if self.terminations.get(agent) or self.truncations.get(agent):
            # It acts no more, even where the engine still waits for its seat (an episode cut short).
            return mask
        match = self._match()
        if not match.over and self._seat_of[agent] == match.to_move:
            size = self._size
            mask[[index for index in self._mover_legal() if index < size]] = 1
        return mask

    def step(self, action: ActionNumber) -> None:
        """Play the agent to move's action (``None`` for an agent whose episode has ended).

        Raises:
            IllegalAction: the action is not legal for the agent to move.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self._match()
        index = int(action) if action is not None else -1
        move = self.legal_actions().get(index)
        if move is None:
            raise IllegalAction(N_("action {index} is not legal for {agent} here"), index=action, agent=agent)
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        match.apply(move)
        self.turns += 1
        if not self.interactive_showdown and not match.over and not match.reentry_pending:
            match.resolve_showdown()
        self._changed()
        self._score(match, type(move) is ReEnter)
        if self.max_turns is not None and self.turns >= self.max_turns and not match.over:
            self._cut_short = self._rewarded = True
            for other in self.agents:
                if not self.terminations[other]:
                    self.truncations[other] = True
        if not match.over:
            self.agent_selection = self._mover()
        # Rewards and ends come only with the end of a hand, a re-entry decision or a cut: not at most steps.
        if self._rewarded:
            self._accumulate_rewards()
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _score(self, match: Match, decided: bool) -> None:
        """Rewards and terminations after an action (``decided``: a re-entry decision)."""
        hands = len(match.results)
        if hands == self._results and not match.over and not decided:
            return  # a seat leaves the match only at the end of a hand or by declining re-entry
        self._rewarded = True
        if self.reward == "hand":
            for result in match.results[self._results :]:
                for agent in self.agents:
                    self.rewards[agent] += float(-result.points[self._seat_of[agent]])
        self._results = hands
        playing = set(match.active) | set(match.reentry_pending) | set(match.deal.seats)
        for agent in self.agents:
            if self.terminations[agent] or self.truncations[agent]:
                continue
            seat = self._seat_of[agent]
            if match.over or seat not in playing:
                self.terminations[agent] = True
                if self.reward == "match":
                    self.rewards[agent] += 1.0 if seat == match.winner else -1.0

    # -- showing ---------------------------------------------------------------------------------

    def render(self) -> str | None:
        """The table as the agent to move sees it: printed (``"human"``) or returned (``"ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        match = self._match()
        agent = self.agent_selection
        view = self.view(agent)
        names = self.possible_agents
        lines = [_("Deal {number}: {player} to move").format(number=len(match.deals), player=agent)]
        lines.append(
            _("Totals: {totals}").format(totals=", ".join(f"{names[s]} {match.scores[s]}" for s in range(self.players)))
        )
        pile = len(view.discard_pile)
        if view.top_discard is None:
            lines.append(_("Discard pile: empty"))
        else:
            lines.append(
                ngettext(
                    "Discard pile: {card} on top, {count} card", "Discard pile: {card} on top, {count} cards", pile
                ).format(card=view.top_discard, count=pile)
            )
        stock = view.stock_size
        lines.append(ngettext("Stock: {count} card", "Stock: {count} cards", stock).format(count=stock))
        sizes = ", ".join(f"{names[s]} {view.hand_sizes[s]}" for s in view.seats)
        lines.append(_("Cards in hand: {sizes}").format(sizes=sizes))
        if view.table:
            lines.append(_("Melds: {melds}").format(melds=" ".join(str(meld) for meld in view.table)))
        lines.append(_("Hand of {player}: {cards}").format(player=agent, cards=" ".join(map(str, view.hand))))
        if match.over and match.winner is not None:
            lines.append(_("Winner: {name}").format(name=names[match.winner]))
        elif self._cut_short:
            lines.append(
                ngettext(
                    "The match was cut short after {count} action.",
                    "The match was cut short after {count} actions.",
                    self.turns,
                ).format(count=self.turns)
            )
        return "\n".join(lines)

    def close(self) -> None:
        """Release nothing: the environment holds no outside resources."""


def env(
    rules: Rules | str = "fournier",
    players: int = 2,
    *,
    reward: Literal["match", "hand"] = "match",
    interactive_showdown: bool = False,
    max_turns: int | None = None,
    render_mode: str | None = None,
) -> AECEnv[str, ObservationDict, ActionNumber]:
    """The environment with PettingZoo's usual wrappers: an illegal action ends the episode (reward -1
    to the agent that played it), actions out of the space and calls out of order are refused.

    Raises:
        EnvError: a bad parameter.
        RulesError: the rules do not allow this many players.
    """
    game: AECEnv[str, ObservationDict, ActionNumber] = raw_env(
        rules,
        players,
        reward=reward,
        interactive_showdown=interactive_showdown,
        max_turns=max_turns,
        render_mode=render_mode,
    )
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


# -- one learner against bots -----------------------------------------------------------------


class BotOpponentsEnv(gymnasium.Env[ObservationDict, ActionNumber]):
    """A single-agent Gymnasium environment: one seat learns, bots play the others.

    ``opponents`` is a bot name for every other seat (see
    :func:`chinchon.bots.make_bot`) or one name per other seat; ``seat`` is
    the learner's seat. The other parameters are those of :class:`raw_env`.
    An episode ends when the match is over for the learner. ``action_masks()``
    gives the legal actions (as ``sb3_contrib``'s ``MaskablePPO`` asks).

    Raises:
        EnvError: a bad parameter.
        BotError: an unknown bot.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"]}  # noqa: RUF012 - as Gymnasium declares it

    def __init__(
        self,
        rules: Rules | str = "fournier",
        players: int = 2,
        opponents: str | Sequence[str] = "simple",
        *,
        seat: int = 0,
        reward: Literal["match", "hand"] = "match",
        interactive_showdown: bool = False,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        from chinchon.bots import make_bot

        self.game = raw_env(
            rules,
            players,
            reward=reward,
            interactive_showdown=interactive_showdown,
            max_turns=max_turns,
            render_mode=render_mode,
        )
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise EnvError(
                N_("seat: expected a seat from 0 to {last}, got {value}"), last=players - 1, value=repr(seat)
            )
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise EnvError(
                N_("opponents: expected {count} bot names, got {value}"), count=players - 1, value=repr(opponents)
            )
        others = [s for s in range(players) if s != seat]
        self.bots = {self.game.agent(s): make_bot(name) for s, name in zip(others, names, strict=True)}
        self.learner = self.game.agent(seat)
        self.observation_space = self.game.observation_space(self.learner)
        self.action_space = self.game.action_space(self.learner)
        self.render_mode = render_mode
        self._bot_rng = random.Random(0)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObservationDict, dict[str, Any]]:
        """Start a match and play the bots up to the learner's first decision."""
        super().reset(seed=seed)
        self.game.reset(seed=seed)
        self._bot_rng = random.Random(self.game.seed)
        observation, _reward, _terminated, _truncated, info = self._play_bots()
        return observation, info

    def _play_bots(self) -> tuple[ObservationDict, float, bool, bool, dict[str, Any]]:
        """Play the bots until the learner is to move or its episode has ended; then the learner's ``last()``."""
        game = self.game
        while game.agent_selection != self.learner:
            agent = game.agent_selection
            if game.terminations[agent] or game.truncations[agent]:
                game.step(None)
            else:
                view = game.view(agent)
                game.step(action_index(self.bots[agent].choose(view, view.legal_actions, self._bot_rng)))
        observation, reward, terminated, truncated, info = game.last()
        assert observation is not None
        return observation, float(reward), terminated, truncated, info

    def step(self, action: ActionNumber) -> tuple[ObservationDict, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the bots' up to its next decision."""
        self.game.step(action)
        return self._play_bots()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learner's legal actions, as booleans."""
        return self.game.mask(self.learner).astype(bool)

    def render(self) -> str | None:
        """The table, as :meth:`raw_env.render` shows it."""
        return self.game.render()


def env_steps_per_second(players: int = 2, seconds: float = 2.0, seed: int = 2026) -> float:
    """Steps per second of random masked play (``last()`` and ``step()``), episodes cut at 400 actions."""
    import time

    game = raw_env(players=players, max_turns=400)
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game.reset(seed=seed + episode)
        episode += 1
        for _agent in game.agent_iter():
            observation, _reward, terminated, truncated, _info = game.last()
            if terminated or truncated or observation is None:
                game.step(None)
            else:
                game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
            if time.process_time() - start >= seconds:
                break
    return steps / max(time.process_time() - start, 1e-9)
