"""Game records: a whole match as a JSON document, and its replay.

A record holds a format name and version, the rules, the seats, the
starting totals, and the match's log in order (``log``): the chance events
(the draw for the first player, each deal's deck order, each reshuffle of
the stock), every action with its seat, and the winner; then the results.
The log is not the match's events (:meth:`~chinchon.match.Match.events`,
what happened as the players saw it): a replayed match tells them again.
:func:`replay` rebuilds the identical match and checks every step: a
malformed or tampered record raises ``ValueError`` saying where and why,
and nothing is half-loaded.

>>> from chinchon.cards import parse_cards
>>> from chinchon import Card, Close, Match, Rules
>>> from chinchon.deal import stack_deck
>>> hands = [parse_cards("3♥ 4♥ 5♥ 6♥ 7♣ 7♦ 7♠"), parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")]
>>> deck = stack_deck(Rules(), hands, discard=Card.parse("A♦"))
>>> match = Match(["Ana", "Bot"], seed=7, first=0, decks=[deck])
>>> match.apply(match.legal_actions()[1])  # take A♦ from the discard pile
>>> match.apply(Close(Card.parse("A♦")))
>>> match.scores, len(match.deals)
([-10, 45], 2)
>>> record = match.record()
>>> record["format"], record["version"], record["seats"]
('chinchon-record', 3, ['Ana', 'Bot'])
>>> replay(loads(dumps(record))).record() == record
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chinchon.match import Match
from chinchon.record_format import FORMAT, VERSION, RecordError, dumps, loads, match_record

__all__ = ["FORMAT", "VERSION", "RecordError", "dumps", "loads", "match_record", "replay"]


def replay(record: Mapping[str, Any], *, go_on: bool = False) -> Match:
    """Rebuild the match a record describes, checking every event.

    The rebuilt match has no chance events past the record's, so it cannot
    deal again: unless ``go_on``, when its later chance comes from the
    record's seed, drawn as if the record's events had come from it too. For
    a match made with a seed alone (no deck orders given), that goes on
    exactly as the recorded match would have.

    Raises:
        RecordError: the record is malformed, of an unknown version, or tampered with.
    """
    return Match.replay(record, go_on=go_on)
