"""What happened, in words, in every language: the text every front end shows for an event.

:func:`describe` gives one event's text; :func:`tell` the lines of a list
of events (as :meth:`Match.events_for <chinchon.match.Match.events_for>` or
:meth:`Match.all_events <chinchon.match.Match.all_events>` give them), a
private event told in the same line as the public event it goes with
("You drew 5♦ from the stock" rather than two lines); :func:`tell_each`
the same lines with the event each tells. The seat ``you`` is
told as "you". The engine (:mod:`chinchon.events`) tells what happened;
this module, beside the catalogs (:mod:`chinchon.i18n`), says it in a
language.

>>> from chinchon.cards import Card
>>> from chinchon.events import Discarded, Drew, YouDrew
>>> names = ("Ana", "Bea")
>>> describe(Discarded(1, Card.parse("5♦")), "en", names=names)
'Bea discarded 5♦'
>>> describe(Discarded(1, Card.parse("5♦")), "es", names=names)
'Bea descartó 5♦'
>>> tell([Drew(0, "stock", None), YouDrew(0, Card.parse("7♣"))], "en", names=names, you=0)
['You drew 7♣ from the stock']
>>> tell([Drew(0, "stock", None)], "en", names=names)
['Ana drew from the stock']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from chinchon.cards import Card
from chinchon.errors import N_
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
from chinchon.i18n import translation

__all__ = ["Told", "cards_text", "describe", "melds_text", "tell", "tell_each"]


def cards_text(cards: Sequence[Card]) -> str:
    """Cards as text: ``3♥ 4♥ 5♥`` (``—`` for none)."""
    return " ".join(str(card) for card in cards) if cards else "—"


def melds_text(melds: Sequence[Sequence[Card]]) -> str:
    """Melds as card text in brackets: ``[3♥ 4♥ 5♥] [7♦ 7♠ 7♣]`` (``—`` for none)."""
    return " ".join(f"[{cards_text(meld)}]" for meld in melds) if melds else "—"


class _Teller:
    """The sentences of one language, each told of a seat as "you" or by its name."""

    def __init__(self, lang: str, names: Sequence[str], you: int | None) -> None:
        self.catalog = translation(lang)
        self.names = names
        self.you = you

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"#{seat}"

    def text(self, message: str, **params: Any) -> str:
        return self.catalog.gettext(message).format(**params)

    def said(self, seat: int, mine: str, theirs: str, **params: Any) -> str:
        """``mine`` when ``seat`` is you, else ``theirs`` with the seat's name."""
        if seat == self.you:
            return self.text(mine, **params)
        return self.text(theirs, name=self.name(seat), **params)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The form of a sentence the language gives the number ``n``."""
        return self.catalog.ngettext(singular, plural, n)


def describe(
    event: Event, lang: str, *, names: Sequence[str], you: int | None = None, secret: PrivateEvent | None = None
) -> str:
    """The text of an event in a language (``en``, ``es``, ``pt``, ``fr``, ``pl``, ``ar``): one line, or for the
    end of a deal several joined by newlines.

    ``names`` are the seats' names (:class:`~chinchon.events.MatchStarted` has them), ``you`` the seat told as
    "you". ``secret`` is the private event that goes with ``event`` (the card a draw from the stock took, the
    card a close put face down), told in the same sentence.
    """
    t = _Teller(lang, names, you)
    return "\n".join(_lines(t, event, secret))


class Told(NamedTuple):
    """An event, the private event told in its line (``None`` if none), and the lines that tell them."""

    event: Event
    secret: YouDrew | YouPutFaceDown | None
    lines: list[str]


def tell_each(
    events: Iterable[Event], lang: str, *, names: Sequence[str] | None = None, you: int | None = None
) -> list[Told]:
    """Each event with the lines that tell it, in order.

    A private event that goes with the public event before it (the card a draw from the stock took, the card a
    close put face down) is told in that event's line, as its ``secret``, and has no entry of its own; any other
    private event (the cards a seat was dealt) has its own. ``names`` default to those of the
    :class:`~chinchon.events.MatchStarted` among the events.

    >>> from chinchon.cards import Card
    >>> from chinchon.events import Drew, YouDrew
    >>> [told.lines for told in tell_each([Drew(0, "stock", None), YouDrew(0, Card.parse("7♣"))], "en", names=["Ana"])]
    [['Ana drew 7♣ from the stock']]
    """
    out: list[Told] = []
    told = list(events)
    if names is None:
        started = next((e for e in told if isinstance(e, MatchStarted)), None)
        names = started.names if started is not None else ()
    t = _Teller(lang, names, you)
    i = 0
    while i < len(told):
        event = told[i]
        following = told[i + 1] if i + 1 < len(told) else None
        secret: YouDrew | YouPutFaceDown | None = None
        if (
            isinstance(event, Drew | Closed)
            and isinstance(following, YouDrew | YouPutFaceDown)
            and following.seat == event.seat
        ):
            secret = following
            i += 1
        out.append(Told(event, secret, _lines(t, event, secret)))
        i += 1
    return out


def tell(
    events: Iterable[Event], lang: str, *, names: Sequence[str] | None = None, you: int | None = None
) -> list[str]:
    """The lines that tell these events, in order: each public event's text with the private event after it.

    ``names`` default to those of the :class:`~chinchon.events.MatchStarted` among the events.
    """
    return [line for told in tell_each(events, lang, names=names, you=you) for line in told.lines]


def _lines(t: _Teller, event: Event, secret: PrivateEvent | None) -> list[str]:
    if isinstance(event, MatchStarted):
        return [t.text(N_("Match: {seats}"), seats=", ".join(t.name(seat) for seat in range(len(event.names))))]
    if isinstance(event, DealStarted):
        lines = []
        if event.playoff:
            lines.append(
                t.text(
                    N_("Tied at {total}: {names} play a deciding deal"),
                    total=event.scores[event.seats[0]],
                    names=", ".join(t.name(seat) for seat in sorted(event.seats)),
                )
            )
        if event.first == t.you:
            lines.append(t.text(N_("Deal {number}: you play first"), number=event.number))
        else:
            lines.append(
                t.text(N_("Deal {number}: {first} plays first"), number=event.number, first=t.name(event.first))
            )
        return lines
    if isinstance(event, YouWereDealt):
        cards = cards_text(event.hand)
        return [t.said(event.seat, N_("You were dealt {cards}"), N_("{name} was dealt {cards}"), cards=cards)]
    if isinstance(event, Drew):
        if event.source == "discard":
            return [
                t.said(
                    event.seat,
                    N_("You took {card} from the discard pile"),
                    N_("{name} took {card} from the discard pile"),
                    card=event.card,
                )
            ]
        if isinstance(secret, YouDrew):
            return [_drew(t, secret)]
        return [t.said(event.seat, N_("You drew from the stock"), N_("{name} drew from the stock"))]
    if isinstance(event, YouDrew):
        return [_drew(t, event)]
    if isinstance(event, StockRebuilt):
        return [t.text(N_("The stock ran out: the discard pile but its top card is shuffled into a new stock."))]
    if isinstance(event, Discarded):
        return [t.said(event.seat, N_("You discarded {card}"), N_("{name} discarded {card}"), card=event.card)]
    if isinstance(event, Closed):
        melds = melds_text(event.melds)
        if isinstance(secret, YouPutFaceDown):
            return [
                t.said(
                    event.seat,
                    N_("You closed, putting {card} face down: {melds}"),
                    N_("{name} closed, putting {card} face down: {melds}"),
                    card=secret.card,
                    melds=melds,
                )
            ]
        return [t.said(event.seat, N_("You closed: {melds}"), N_("{name} closed: {melds}"), melds=melds)]
    if isinstance(event, YouPutFaceDown):
        return [
            t.said(event.seat, N_("You put {card} face down."), N_("{name} put {card} face down."), card=event.card)
        ]
    if isinstance(event, Showed):
        if not event.melds:
            return [t.said(event.seat, N_("You showed no melds"), N_("{name} showed no melds"))]
        melds = melds_text(event.melds)
        return [t.said(event.seat, N_("You showed {melds}"), N_("{name} showed {melds}"), melds=melds)]
    if isinstance(event, LaidOff):
        meld = melds_text([event.meld])
        if event.owner == t.you:
            return [
                t.said(
                    event.seat,
                    N_("You laid off {card} on your meld: {meld}"),
                    N_("{name} laid off {card} on your meld: {meld}"),
                    card=event.card,
                    meld=meld,
                )
            ]
        return [
            t.said(
                event.seat,
                N_("You laid off {card}: {meld} ({owner})"),
                N_("{name} laid off {card}: {meld} ({owner})"),
                card=event.card,
                meld=meld,
                owner=t.name(event.owner),
            )
        ]
    if isinstance(event, Passed):
        return [t.said(event.seat, N_("You passed"), N_("{name} passed"))]
    if isinstance(event, DealEnded):
        return _deal_ended(t, event)
    if isinstance(event, ReEntryAsked):
        if event.seats == (t.you,):
            return [t.text(N_("Over the limit, you may re-enter with {total} points"), total=event.score)]
        names = ", ".join(t.name(seat) for seat in event.seats)
        return [t.text(N_("Over the limit, {names} may re-enter with {total} points"), names=names, total=event.score)]
    if isinstance(event, ReEntered):
        if event.accept:
            return [
                t.said(
                    event.seat,
                    N_("You re-entered with {total} points"),
                    N_("{name} re-entered with {total} points"),
                    total=event.score,
                )
            ]
        return [t.said(event.seat, N_("You stayed out"), N_("{name} stayed out"))]
    if isinstance(event, MatchEnded):
        return [t.said(event.winner, N_("You win the match!"), N_("{name} wins the match!"))]
    raise TypeError(f"not an event: {event!r}")


def _drew(t: _Teller, event: YouDrew) -> str:
    return t.said(
        event.seat, N_("You drew {card} from the stock"), N_("{name} drew {card} from the stock"), card=event.card
    )


def _deal_ended(t: _Teller, event: DealEnded) -> list[str]:
    result = event.result
    closer = result.closer
    if closer is None:
        return [t.text(N_("The stock ran out once too often: the deal is void and nobody scores."))]
    points = result.points[closer]
    if result.clean:
        lines = [
            t.said(
                closer,
                N_("You closed with every card matched ({points})"),
                N_("{name} closed with every card matched ({points})"),
                points=points,
            )
        ]
    else:
        if closer == t.you:
            text = t.ngettext("You closed with {points} point", "You closed with {points} points", points)
        else:
            text = t.ngettext("{name} closed with {points} point", "{name} closed with {points} points", points)
        lines = [text.format(name=t.name(closer), points=points)]
    if result.chinchon:
        lines.append(t.said(closer, N_("You made a chinchón!"), N_("{name} made a chinchón!")))
    scored = ", ".join(f"{t.name(seat)} {result.points[seat]:+d}" for seat in event.seats)
    lines.append(t.text(N_("Points: {points}"), points=scored))
    for seat in event.out:
        lines.append(
            t.said(
                seat,
                N_("You are out with {total} points"),
                N_("{name} is out with {total} points"),
                total=event.scores[seat],
            )
        )
    return lines
