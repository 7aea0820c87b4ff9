"""A wild card at a run's end: a close and a show list it at either end, the layout changes what the others lay
off, the showdown chooses among the layouts, and no layout reaches past the deck's ranks (found by differential
testing)."""

from __future__ import annotations

from chinchon.actions import Close, Draw, Show
from chinchon.cards import Card, parse_cards
from chinchon.deal import Deal, stack_deck
from chinchon.melds import run_layouts
from chinchon.observation import Phase
from chinchon.rules import Rules

RULES = Rules(jokers=1, wild_ace_of_oros=True)
CLOSER = "2♥ 3♥ 🃏 7♣ 7♦ 7♠ 4♣"
OTHER = "A♥ 7♥ 5♣ 6♣ A♦ Q♠ J♠"


def c(text: str) -> Card:
    return Card.parse(text)


def closing_deal() -> Deal:
    """Seat 0 holds 2♥ 3♥ and a joker, draws K♣ and may close putting it face down."""
    deck = stack_deck(RULES, [parse_cards(CLOSER), parse_cards(OTHER)], discard=c("2♣"), stock=[c("K♣")])
    deal = Deal.new(RULES, 2, deck=deck)
    deal.apply(Draw("stock"))
    return deal


def runs_of_closes(deal: Deal, discard: str) -> set[tuple[Card, ...]]:
    return {
        meld
        for action in deal.legal_actions()
        if isinstance(action, Close) and action.discard == c(discard)
        for meld in action.melds or ()
        if c("2♥") in meld
    }


# -- every layout of the wild card --------------------------------------------------------


def test_a_close_lists_the_wild_card_at_either_end_of_the_run() -> None:
    deal = closing_deal()
    assert runs_of_closes(deal, "K♣") == {tuple(parse_cards("2♥ 3♥ 🃏")), tuple(parse_cards("🃏 2♥ 3♥"))}
    assert all(deal.is_legal(a) for a in deal.legal_actions())


def test_the_layout_changes_what_the_others_lay_off() -> None:
    points = {}
    for run in ("2♥ 3♥ 🃏", "🃏 2♥ 3♥"):
        deal = closing_deal()
        deal.apply(Close(c("K♣"), (tuple(parse_cards(run)), tuple(parse_cards("7♦ 7♠ 7♣")))))
        deal.resolve_showdown()
        assert deal.result is not None
        points[run] = deal.result.points[1]
        loose = deal.result.loose[1]
        # The joker as 4♥ leaves the ace of cups room below; as the ace it takes that place.
        assert (c("A♥") in loose) == (run == "🃏 2♥ 3♥")
    assert points["🃏 2♥ 3♥"] == points["2♥ 3♥ 🃏"] + 1


def test_a_show_lists_every_layout_and_the_showdown_chooses_among_them() -> None:
    deal = closing_deal()
    deal.apply(Close(c("K♣"), (tuple(parse_cards("🃏 2♥ 3♥")), tuple(parse_cards("7♦ 7♠ 7♣")))))
    assert deal.phase is Phase.SHOWDOWN and deal.to_move == 1
    shows = [a for a in deal.legal_actions() if isinstance(a, Show)]
    clubs = {meld for show in shows for meld in show.melds if c("5♣") in meld}
    assert {tuple(parse_cards("5♣ 6♣ A♦")), tuple(parse_cards("A♦ 5♣ 6♣"))} <= clubs
    assert len(set(shows)) == len(shows)
    assert deal.best_showdown_action() in shows
    deal.resolve_showdown()
    assert deal.result is not None


def test_close_without_melds_still_takes_the_best_arrangement() -> None:
    deal = closing_deal()
    deal.apply(Close(c("K♣")))
    assert deal.phase is Phase.SHOWDOWN and deal.closer == 0
    assert len(deal.table) == 2


def test_run_layouts_stay_inside_the_deck() -> None:
    assert run_layouts(parse_cards("A♥ 2♥ 🃏"), RULES) == [tuple(parse_cards("A♥ 2♥ 🃏"))]
    assert run_layouts(parse_cards("2♥ 3♥ 🃏"), RULES) == [
        tuple(parse_cards("2♥ 3♥ 🃏")),
        tuple(parse_cards("🃏 2♥ 3♥")),
    ]
    assert run_layouts(parse_cards("Q♥ K♥ 🃏"), RULES) == [tuple(parse_cards("Q♥ K♥ 🃏"))]
    assert run_layouts(parse_cards("J♥ Q♥ K♥"), RULES) == [tuple(parse_cards("J♥ Q♥ K♥"))]
    assert run_layouts(parse_cards("2♥ 🃏 4♥"), RULES) == [tuple(parse_cards("2♥ 🃏 4♥"))]
    assert run_layouts(parse_cards("7♥ 7♣ 🃏"), RULES) == [tuple(parse_cards("7♥ 7♣ 🃏"))]


def test_without_lay_offs_a_close_lists_one_layout() -> None:
    rules = Rules(jokers=1, wild_ace_of_oros=True, layoffs=False)
    deck = stack_deck(rules, [parse_cards(CLOSER), parse_cards(OTHER)], discard=c("2♣"), stock=[c("K♣")])
    deal = Deal.new(rules, 2, deck=deck)
    deal.apply(Draw("stock"))
    assert len(runs_of_closes(deal, "K♣")) == 1
