"""Replays of finished matches: each deal and move in order, with every hand shown (the match is over).

The server rebuilds the match from its record and describes each step in
the reader's language; the browser's replay page only draws what it gets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from chinchon.actions import Action, Close, Discard, Draw, LayOff, Pass, ReEnter, Show
from chinchon.cards import Card
from chinchon.deal import Deal
from chinchon.i18n import translation
from chinchon.match import Match
from chinchon.server.views import result_view

__all__ = ["replay_steps"]


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


def _melds(melds: Sequence[Sequence[Card]]) -> str:
    return " ".join("[" + " ".join(map(str, meld)) + "]" for meld in melds) if melds else "—"


class _Stepping(Match):
    """A match being replayed that keeps a picture of the table after each action."""

    lang: str = "en"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.steps: list[dict[str, Any]] = []

    def _say(self, template: str, **params: object) -> str:
        return translation(self.lang).gettext(template).format(**params)

    def _picture(self, deal: Deal, seat: int | None, text: str, kind: str) -> dict[str, Any]:
        result = deal.result
        return {
            "kind": kind,
            "deal": self.deals.index(deal) + 1,
            "seat": seat,
            "text": text,
            "hands": [_cards(deal.hand(s)) for s in range(self.players)],
            "stock": len(deal.stock),
            "pile": _cards(deal.discard_pile),
            "table": [{"owner": m.owner, "cards": _cards(m.cards)} for m in deal.table],
            "face_down": str(deal.face_down) if deal.face_down is not None else None,
            "scores": list(self.scores),
            "active": list(self.active),
            "result": result_view(result),
        }

    def _deal_started(self) -> None:
        deal = self.deal
        first = self.names[deal.first]
        text = self._say("Deal {number}: {first} plays first", number=len(self.deals), first=first)
        self.steps.append(self._picture(deal, None, text, "deal"))

    def apply(self, action: Action, seat: int | None = None) -> None:
        if not self.steps:
            self._deal_started()
        deal = self.deal
        mover = self.to_move if seat is None else seat
        assert mover is not None
        before = Counter(deal.hand(mover))
        table = [(m.owner, m.cards) for m in deal.table]
        ended = deal.result is not None
        super().apply(action, seat)
        text = self._describe(deal, mover, action, before, table)
        self.steps.append(self._picture(deal, mover, text, "action"))
        if not ended and deal.result is not None:
            self.steps.append(self._picture(deal, None, self._deal_end(deal), "result"))
        if self.deal is not deal:
            self._deal_started()

    def _deal_end(self, deal: Deal) -> str:
        result = deal.result
        assert result is not None
        if result.closer is None:
            return self._say("The stock ran out once too often: the deal is void and nobody scores.")
        points = ", ".join(f"{self.names[s]} {result.points[s]:+d}" for s in deal.seats)
        text = self._say("Points: {points}", points=points)
        if result.chinchon:
            text += " " + self._say("{name} made a chinchón!", name=self.names[result.closer])
        return text

    def _describe(
        self, deal: Deal, seat: int, action: Action, before: Counter[Card], table: list[tuple[int, tuple[Card, ...]]]
    ) -> str:
        name = self.names[seat]
        if isinstance(action, Draw):
            gained = list((Counter(deal.hand(seat)) - before).elements())
            card = str(gained[0]) if gained else "?"
            if action.source == "discard":
                return self._say("{name} took {card} from the discard pile", name=name, card=card)
            return self._say("{name} drew {card} from the stock", name=name, card=card)
        if isinstance(action, Discard):
            return self._say("{name} discarded {card}", name=name, card=action.card)
        if isinstance(action, Close):
            melds = [m.cards for m in deal.table if m.owner == seat]
            return self._say(
                "{name} closed, putting {card} face down: {melds}", name=name, card=action.discard, melds=_melds(melds)
            )
        if isinstance(action, Show):
            if not action.melds:
                return self._say("{name} showed no melds", name=name)
            return self._say("{name} showed {melds}", name=name, melds=_melds(action.melds))
        if isinstance(action, LayOff):
            if 0 <= action.meld_index < len(table):
                owner, meld = table[action.meld_index]
                return self._say(
                    "{name} laid off {card} on {meld} ({owner})",
                    name=name,
                    card=action.card,
                    meld=_melds([meld]),
                    owner=self.names[owner],
                )
            return self._say("{name} laid off {card}", name=name, card=action.card)
        if isinstance(action, Pass):
            return self._say("{name} passed", name=name)
        if isinstance(action, ReEnter):
            return self._say("{name} re-entered" if action.accept else "{name} stayed out", name=name)
        return f"{name}: {action}"


def replay_steps(record: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    """A finished match's replay: its seats, rules and every step (a deal's start, each action, a deal's end).

    Raises:
        ValueError: the record is malformed or tampered with.
    """

    class _InLanguage(_Stepping):
        pass

    _InLanguage.lang = lang
    match = _InLanguage.replay(record)
    assert isinstance(match, _Stepping)
    return {
        "seats": list(match.names),
        "rules": match.rules.to_dict(),
        "scores": list(match.scores),
        "winner": match.winner,
        "steps": match.steps,
    }
