"""Chinchón, the Spanish rummy: an exact rules engine, bots and front ends.

>>> from chinchon import best_arrangement, parse_cards
>>> best_arrangement(parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦")).points
1
"""

from chinchon.actions import Action, Close, Discard, Draw, IllegalAction, LayOff, Pass, ReEnter, Show, parse_action
from chinchon.cards import JOKER, Card, Rank, Suit, parse_cards
from chinchon.deal import Deal
from chinchon.errors import ChinchonError, HandError, NotationError
from chinchon.match import Match
from chinchon.melds import (
    Arrangement,
    ClosingOption,
    best_arrangement,
    best_discard,
    closing_options,
    extend_meld,
    is_chinchon,
    is_meld,
    layoff_options,
)
from chinchon.observation import DealResult, Observation, Phase, TableMeld
from chinchon.rules import Rules, RulesError

__all__ = [
    "JOKER",
    "Action",
    "Arrangement",
    "Card",
    "ChinchonError",
    "Close",
    "ClosingOption",
    "Deal",
    "DealResult",
    "Discard",
    "Draw",
    "HandError",
    "IllegalAction",
    "LayOff",
    "Match",
    "NotationError",
    "Observation",
    "Pass",
    "Phase",
    "Rank",
    "ReEnter",
    "Rules",
    "RulesError",
    "Show",
    "Suit",
    "TableMeld",
    "best_arrangement",
    "best_discard",
    "closing_options",
    "extend_meld",
    "is_chinchon",
    "is_meld",
    "layoff_options",
    "parse_action",
    "parse_cards",
]
__version__ = "0.1.0"
