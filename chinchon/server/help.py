"""The rules of a room in words, for the browser's "How to play": the engine's rules text and the cards' values.

>>> from chinchon.rules import Rules
>>> answer = rules_help(Rules.preset("clasico", limit=50), "clasico", "es")
>>> answer["rules"]["limit"], answer["values"]["K♦"], answer["paragraphs"][0][:25]
(50, 10, 'Se juega con la baraja es')
"""

from __future__ import annotations

from typing import Any

from chinchon.rules import Rules
from chinchon.tui.rules_text import rules_paragraphs, rules_title

__all__ = ["rules_help"]


def rules_help(rules: Rules, preset: str | None, lang: str) -> dict[str, Any]:
    """The rules in a language: a title, the paragraphs ``chinchon rules`` prints, every option, each card's value."""
    return {
        "lang": lang,
        "preset": preset,
        "title": rules_title(preset or "custom", lang),
        "paragraphs": rules_paragraphs(rules, lang),
        "rules": rules.to_dict(),
        "values": {str(card): rules.value(card) for card in rules.cards()},
    }
