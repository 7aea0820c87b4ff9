"""What each seat and each spectator may see: views made from observations alone.

A seat's view is made from its :class:`~chinchon.observation.Observation`; a
spectator's from the public observation (``match.observation(None)``),
built by the engine from public facts only. What happened is the engine's
to tell (:mod:`chinchon.events`): the server sends its events, and makes a
whole view only for a client that joins or falls behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chinchon.cards import Card
from chinchon.errors import ChinchonError
from chinchon.i18n import translation
from chinchon.melds import best_arrangement
from chinchon.observation import DealResult, PublicObservation, TableMeld
from chinchon.rules import Rules

__all__ = ["arrangement_view", "game_view", "result_view", "translated", "translated_error"]


def _cards(cards: Sequence[Any]) -> list[str]:
    return [str(card) for card in cards]


def _meld(meld: TableMeld) -> dict[str, Any]:
    return {"owner": meld.owner, "cards": _cards(meld.cards), "open": meld.open}


def result_view(result: DealResult | None) -> dict[str, Any] | None:
    """How a deal ended, as JSON-able data (``ResultView``)."""
    if result is None:
        return None
    return {
        "closer": result.closer,
        "points": list(result.points),
        "loose": [_cards(loose) for loose in result.loose],
        "table": [_meld(meld) for meld in result.table],
        "chinchon": result.chinchon,
        "clean": result.clean,
        "void": result.void,
    }


def arrangement_view(hand: Sequence[Card], rules: Rules) -> dict[str, Any] | None:
    """The best arrangement of a seat's own hand (its own information), for the client to mark its melds;
    ``None`` for an empty hand."""
    if not hand:
        return None
    try:
        best = best_arrangement(hand, rules)
    except ChinchonError:
        return None
    return {"melds": [_cards(meld) for meld in best.melds], "loose": _cards(best.loose), "points": best.points}


def game_view(observation: PublicObservation) -> dict[str, Any]:
    """The game as the observation's seat (or, from the public observation, a spectator) sees it (JSON-able)."""
    o = observation
    return {
        "phase": o.phase.value,
        "to_move": o.to_move,
        "seats": list(o.seats),
        "hand": _cards(o.hand),
        "arrangement": arrangement_view(o.hand, o.rules),
        "hand_sizes": list(o.hand_sizes),
        "stock_size": o.stock_size,
        "discard_pile": _cards(o.discard_pile),
        "discards": [[seat, str(card)] for seat, card in o.discards],
        "taken": [_cards(taken) for taken in o.taken],
        "last_draw": o.last_draw,
        "closer": o.closer,
        "table": [_meld(meld) for meld in o.table],
        "revealed": [_cards(hand) for hand in o.revealed],
        "result": result_view(o.result),
        "previous_result": result_view(o.previous_result),
        "history": [[seat, text] for seat, text in o.history],
        "legal_actions": [str(action) for action in o.legal_actions],
        "scores": list(o.scores),
        "active": list(o.active),
        "dealer": o.dealer,
        "deal_number": o.deal_number,
        "turn": o.turn,
        "reentry_pending": list(o.reentry_pending),
        "match_over": o.match_over,
        "winner": o.winner,
        "pot": o.pot,
    }


def translated(lang: str, template: str, **params: object) -> str:
    """A message template in a language, its parameters filled in."""
    text = translation(lang).gettext(template)
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        return template.format(**params)


def translated_error(lang: str, error: ChinchonError) -> str:
    """An engine error's message in a language."""
    return translated(lang, error.template, **error.params)
