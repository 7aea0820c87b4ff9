"""The engine's names as they were when it was one module; new code imports them from their own modules.

``Deal`` and the fast path's move numbers are in :mod:`chinchon.deal`;
``Match`` in :mod:`chinchon.match`; ``Observation``, ``Phase``,
``DealResult`` and ``TableMeld`` in :mod:`chinchon.observation`; the
showdown search in :mod:`chinchon.showdown_search`. Kept so that
``from chinchon.game import Match`` (in older code and documents) still works.

>>> from chinchon.game import Match
>>> from chinchon.match import Match as M
>>> Match is M
True
"""

from chinchon.actions import Action, Close, Discard, Draw, IllegalAction, LayOff, Pass, ReEnter, Show
from chinchon.cards import Card
from chinchon.deal import CLOSE, MOVE_DISCARD_PILE, MOVE_STOCK, Deal, stack_deck
from chinchon.match import Match
from chinchon.observation import DealResult, Observation, Phase, TableMeld
from chinchon.rules import Rules
from chinchon.showdown_search import SHOWDOWN_SEARCH_NODES

__all__ = [
    "CLOSE",
    "MOVE_DISCARD_PILE",
    "MOVE_STOCK",
    "SHOWDOWN_SEARCH_NODES",
    "Action",
    "Card",
    "Close",
    "Deal",
    "DealResult",
    "Discard",
    "Draw",
    "IllegalAction",
    "LayOff",
    "Match",
    "Observation",
    "Pass",
    "Phase",
    "ReEnter",
    "Rules",
    "Show",
    "TableMeld",
    "stack_deck",
]
