"""A match of the player against bots, apart from any screen: the moves, a log of them, and saving.

The session applies the player's actions and the bots' choices to a
:class:`~chinchon.match.Match`, writes in its log, in the player's language,
the text of each event the player's seat is told
(:meth:`~chinchon.match.Match.events_for`, :func:`chinchon.narration.tell`),
and saves the match record after every action. Everything it tells the
player comes from what the player's seat is told and observes.

>>> from chinchon.i18n import set_language
>>> _ = set_language("en")
>>> settings = Settings(preset="fournier", bots=("simple",), seed=3, speed=0)
>>> session = Session.start(settings, ["Ana", "Bot 1"], Rules())
>>> session.log[0]
'Deal 1: you play first'
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from chinchon.actions import Action
from chinchon.bots import Bot, make_bot
from chinchon.bots.showdown import own_showdown_choice
from chinchon.cards import Card
from chinchon.errors import N_, ChinchonError
from chinchon.events import DealEnded, DealStarted, Event, MatchStarted, YouWereDealt
from chinchon.i18n import LANGUAGES, _, get_language, ngettext, translate_error, translation
from chinchon.match import Match
from chinchon.narration import tell
from chinchon.observation import DealResult, Observation, Phase
from chinchon.record import RecordError, replay
from chinchon.rules import Rules
from chinchon.tui.storage import LOG_KEPT, Settings, StorageError, Store

__all__ = ["Session", "SessionError", "shown_names", "void_line"]


class SessionError(ChinchonError):
    """Settings that do not make a match of the player against bots."""


def void_line() -> str:
    """What a void deal is, in the current language."""
    return _("The stock ran out once too often: the deal is void and nobody scores.")


def shown_names(names: Sequence[str], human: int | None = None) -> tuple[str, ...]:
    """The seats' names, in the current language where they are the names ``chinchon play`` gives.

    It names the player "You" and the others "Bot 1", "Bot 2"… in the language it is played in; a
    match resumed or replayed in another language shows them in that one. Other names are as given.
    """
    yous = {translation(lang).gettext("You") for lang in LANGUAGES}
    shown = []
    for seat, name in enumerate(names):
        if seat == human and name in yous:
            name = _("You")
        elif seat != human:
            for number in range(1, len(names)):
                if name in {translation(lang).gettext("Bot {number}").format(number=number) for lang in LANGUAGES}:
                    name = _("Bot {number}").format(number=number)
                    break
        shown.append(name)
    return tuple(shown)


class Session:
    """A match between the player (``settings.human``) and one bot at every other seat."""

    def __init__(self, match: Match, settings: Settings, store: Store | None = None) -> None:
        others = [seat for seat in range(match.players) if seat != settings.human]
        if len(settings.bots) != len(others):
            raise SessionError(
                N_("expected one bot per opponent (opponents: {count}, bots: {given})"),
                count=len(others),
                given=len(settings.bots),
            )
        self.match = match
        self.settings = settings
        self.human = settings.human
        self._names = shown_names(match.names, settings.human)
        self.bots: dict[int, Bot] = {seat: make_bot(spec) for seat, spec in zip(others, settings.bots, strict=True)}
        self.store = store
        self.log: list[str] = []
        self.save_error: str | None = None
        self.told = len(match.events())
        """The number of the last public event the log tells."""
        # The table as the player leaves it, saved with the match (see Settings).
        self.sort = settings.sort
        self.own: list[Card] = []
        self.picked: Card | None = None
        finished = self.finished_deals()
        observation = self.observation()
        # A match saved while the last deal's results were open (its re-entries asked, or the next
        # deal not begun) shows that deal's results again.
        again = observation.phase is Phase.OVER or (finished > 0 and not observation.history)
        self.results_seen = finished - 1 if again else finished

    # -- making and resuming ----------------------------------------------------------

    @classmethod
    def start(
        cls,
        settings: Settings,
        names: Sequence[str],
        rules: Rules,
        store: Store | None = None,
        *,
        scores: Sequence[int] | None = None,
        first: int | None = None,
        decks: Sequence[Sequence[Card]] | None = None,
    ) -> Session:
        """A new match with these seats (the player's name at ``settings.human``), saved at once.

        Raises:
            ChinchonError: the rules, seats, scores or bots do not fit together.
        """
        match = Match(list(names), rules, settings.seed, scores=scores, first=first, decks=decks)
        session = cls(match, settings, store)
        session.log = session.lines(match.events_for(session.human))
        session.save()
        return session

    @classmethod
    def resume(cls, store: Store) -> Session | None:
        """The last saved match, if it is unfinished.

        Raises:
            ChinchonError: the saved match cannot be read or replayed.
        """
        loaded = store.load()
        if loaded is None:
            return None
        record, settings = loaded
        try:
            match = replay(record, go_on=True)
        except RecordError as error:
            raise StorageError(
                N_("{file}: the saved match is damaged ({error})"), file=store.record_path, error=translate_error(error)
            ) from None
        if match.over:
            return None
        if not 0 <= settings.human < match.players:
            raise StorageError(N_("the saved settings are damaged"))
        for name in match.names:
            if any("\ud800" <= char <= "\udfff" or char < " " or "\x7f" <= char < "\xa0" for char in name):
                raise StorageError(
                    N_("{file}: the seat name {name} is not text that can be shown"),
                    file=store.record_path,
                    name=ascii(name),
                )
        # The session's settings are how the match is played; the table's state is the session's own.
        session = cls(match, settings.played(), store)
        session.sort = settings.sort
        try:
            session.own = [Card.parse(text) for text in settings.own]
            session.picked = None if settings.picked is None else Card.parse(settings.picked)
        except ChinchonError:
            raise StorageError(N_("{file}: the saved settings are damaged"), file=store.settings_path) from None
        if settings.lang is not None and settings.lang != get_language():
            # A log written in another language is written anew, from the events, in this one.
            session.log = session.lines(match.events_for(session.human))[-LOG_KEPT:]
        else:
            session.log = list(settings.log)
        session.log.append(_("The match goes on where it was left."))
        if not session.log[:-1]:
            # No log was saved: the current deal's.
            events = match.events_for(session.human)
            start = max(i for i, event in enumerate(events) if isinstance(event, DealStarted))
            session.log += session.lines(events[start:])
        return session

    def again(self) -> Session:
        """A new match with the same seats, rules and bots, and the next seed."""
        settings = Settings(
            preset=self.settings.preset,
            bots=self.settings.bots,
            seed=self.settings.seed + 1,
            human=self.human,
            speed=self.settings.speed,
        )
        return Session.start(settings, self.names, self.match.rules, self.store)

    # -- what the player knows ---------------------------------------------------------

    def observation(self) -> Observation:
        """What the player's seat observes now."""
        return self.match.observation(self.human)

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the seats, as the player reads them (see :func:`shown_names`)."""
        return self._names

    def finished_deals(self) -> int:
        """How many deals have been played to the end."""
        observation = self.observation()
        return observation.deal_number if observation.phase is Phase.OVER else observation.deal_number - 1

    def deal_results(self) -> list[DealResult]:
        """The result of every finished deal, as the player saw it, in order."""
        results = []
        for deal in self.match.deals[: self.finished_deals()]:
            result = deal.observation(self.human).result
            if result is not None:
                results.append(result)
        return results

    def human_to_move(self) -> bool:
        """Whether the match waits for the player."""
        return not self.match.over and self.match.to_move == self.human

    def bot_to_move(self) -> int | None:
        """The seat of the bot to act, if a bot is to act."""
        seat = self.match.to_move
        return seat if seat is not None and seat != self.human and not self.match.over else None

    # -- playing ------------------------------------------------------------------------

    def choose(self, seat: int, observation: Observation) -> Action:
        """The bot's choice at ``seat`` from its observation (safe to call in a worker thread)."""
        rng = random.Random(f"{self.settings.seed}:{len(self.match.log)}")
        return self.bots[seat].choose(observation, list(observation.legal_actions), rng)

    def helper_choice(self) -> Action:
        """A showdown decision for the player, from the player's observation alone.

        It searches the player's own moves (:func:`~chinchon.bots.showdown.own_showdown_choice`); not the
        engine's :meth:`~chinchon.match.Match.best_showdown_action`, which reads every hand.
        """
        return own_showdown_choice(self.observation())

    def play(self, action: Action, seat: int) -> None:
        """Apply an action of ``seat``, log what happened (what the player's seat is told), and save the match.

        Raises:
            IllegalAction: the action is not legal now; the message says why, and nothing is written.
        """
        self.match.apply(action, seat=seat)
        events = self.match.events_for(self.human, self.told)
        self.told += sum(1 for event in events if not event.private)
        self.log += self.lines(events)
        self.save()

    def save(self) -> None:
        """Save the match record and settings, remembering the error if they cannot be written."""
        if self.store is None:
            return
        table = dataclasses.replace(
            self.settings,
            lang=get_language(),
            log=tuple(self.log[-LOG_KEPT:]),
            sort=self.sort,
            own=tuple(str(card) for card in self.own),
            picked=None if self.picked is None else str(self.picked),
        )
        try:
            self.store.save(self.match.record(), table)
            self.save_error = None
        except OSError as error:
            self.save_error = _("cannot write {path}: {error}").format(
                path=self.store.record_path, error=error.strerror or error
            )

    # -- the log ------------------------------------------------------------------------

    def you_or(self, seat: int, you: str, other: str, **params: Any) -> str:
        """``you`` when ``seat`` is the player's, else ``other`` with the seat's name, filled in."""
        template = you if seat == self.human else other
        return template.format(name=self.names[seat], **params)

    def lines(self, events: Sequence[Event]) -> list[str]:
        """The log's lines for these events of the player's seat, in the current language.

        The match's start and the cards dealt are not logged: the table shows them.
        """
        told = [event for event in events if not isinstance(event, MatchStarted | YouWereDealt)]
        return tell(told, get_language(), names=self.names, you=self.human)

    def deal_events(self, number: int) -> list[Event]:
        """What the player's seat was told of deal ``number`` (from 1): its start to its end."""
        events = self.match.events_for(self.human)
        start = next(i for i, e in enumerate(events) if isinstance(e, DealStarted) and e.number == number)
        end = next((i for i, e in enumerate(events) if i > start and isinstance(e, DealEnded)), len(events) - 1)
        return events[start : end + 1]

    def closing_line(self, result: DealResult) -> str:
        """How the deal's closer closed: ``Bot 2 closed with 2 points`` (or that the deal was void)."""
        closer = result.closer
        if closer is None:
            return void_line()
        points = result.points[closer]
        if result.clean:
            return self.you_or(
                closer,
                _("You closed with every card matched ({points})"),
                _("{name} closed with every card matched ({points})"),
                points=points,
            )
        return self.you_or(
            closer,
            ngettext("You closed with {points} point", "You closed with {points} points", points),
            ngettext("{name} closed with {points} point", "{name} closed with {points} points", points),
            points=points,
        )
