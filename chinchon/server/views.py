"""What each seat and each spectator may see: views made from observations alone.

A seat's view is made from its :class:`~chinchon.game.Observation`; a
spectator's from the observation of a seat with the hand, the legal actions
and that seat's own knowledge taken out, so that it holds public
information only. Events are public too: a close's face-down card is never
in them.
"""

from __future__ import annotations

from typing import Any

from chinchon.actions import Action, Close
from chinchon.errors import ChinchonError
from chinchon.i18n import translation
from chinchon.match import Match
from chinchon.melds import best_arrangement
from chinchon.observation import DealResult, Observation, TableMeld

__all__ = ["game_view", "public_action", "spectator_game_view", "translated"]


def _cards(cards: tuple[Any, ...] | list[Any]) -> list[str]:
    return [str(card) for card in cards]


def _meld(meld: TableMeld) -> dict[str, Any]:
    return {"owner": meld.owner, "cards": _cards(meld.cards), "open": meld.open}


def result_view(result: DealResult | None) -> dict[str, Any] | None:
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


def _arrangement(observation: Observation) -> dict[str, Any] | None:
    """The best arrangement of the seat's own hand (its own information), for the client to mark its melds."""
    if not observation.hand:
        return None
    try:
        best = best_arrangement(observation.hand, observation.rules)
    except ChinchonError:
        return None
    return {"melds": [_cards(meld) for meld in best.melds], "loose": _cards(best.loose), "points": best.points}


def game_view(observation: Observation) -> dict[str, Any]:
    """The game as the observation's seat sees it (JSON-able)."""
    o = observation
    return {
        "phase": o.phase.value,
        "to_move": o.to_move,
        "hand": _cards(o.hand),
        "arrangement": _arrangement(o),
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


def spectator_game_view(match: Match) -> dict[str, Any]:
    """The game as someone without a seat sees it: public information only."""
    deal = match.deal
    # A seat other than the closer: its history shows the close without the face-down card.
    seat = 0 if deal.closer is None else (deal.closer + 1) % match.players
    view = game_view(match.observation(seat))
    view["hand"] = []
    view["arrangement"] = None
    view["legal_actions"] = []
    return view


def public_action(match: Match, seat: int, action: Action) -> str:
    """The text of an action just applied as everyone may read it (a close without its face-down card)."""
    if not isinstance(action, Close):
        return str(action)
    for deal in reversed(match.deals):
        for who, played in reversed(deal.history):
            if who == seat and isinstance(played, Close):
                return " ".join(["close", *(str(TableMeld(seat, meld)) for meld in played.melds or ())])
    return "close"


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
