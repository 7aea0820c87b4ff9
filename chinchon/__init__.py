"""Chinchón, the Spanish rummy: an exact rules engine, bots and front ends."""

from chinchon.cards import JOKER, Card, Rank, Suit, parse_cards
from chinchon.rules import Rules, RulesError

__all__ = ["JOKER", "Card", "Rank", "Rules", "RulesError", "Suit", "parse_cards"]
__version__ = "0.1.0"
