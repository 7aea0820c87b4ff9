"""House rules: options read from text (``--rule NAME=VALUE``) on every command, and kept by saves and records."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from chinchon.actions import Close, Discard, Draw, LayOff, Pass
from chinchon.cards import Card, parse_cards
from chinchon.cli import EXIT_BAD_INPUT, replay_lines
from chinchon.cli import app as cli
from chinchon.deal import MOVE_STOCK, Deal, stack_deck
from chinchon.i18n import set_language
from chinchon.match import Match
from chinchon.melds import extend_meld, is_chinchon, meld_extensions
from chinchon.observation import Phase
from chinchon.record import RecordError, dumps, loads, replay
from chinchon.rules import Rules, RulesError, format_option, parse_option, parse_options
from chinchon.tui.app import ChinchonApp
from chinchon.tui.rules_text import rules_paragraphs
from chinchon.tui.session import Session
from chinchon.tui.storage import DATA_DIR_VARIABLE, Settings, Store

SOLVE_SCHEMA = json.loads(
    (Path(__file__).parent.parent / "chinchon" / "schemas" / "solve.schema.json").read_text("utf-8")
)
ENV = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "NO_COLOR": "1", "COLUMNS": "120"}


@pytest.fixture(autouse=True)
def _english_and_a_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "data"))
    set_language("en")
    yield
    set_language("en")


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), env=ENV)


# -- reading options from text -----------------------------------------------------------


def test_each_option_is_read_by_its_type() -> None:
    assert parse_option("limit", " 50 ") == 50
    assert parse_option("wild_ace_of_oros", "true") is True
    assert parse_option("wild_ace_of_oros", "No") is False
    assert parse_option("close_max_loose_cards", "none") is None
    assert parse_option("close_max_loose_cards", "1") == 1
    assert parse_option("decks", "auto") == "auto" and parse_option("decks", "2") == 2
    assert parse_option("chinchon", "win") == "win" and parse_option("chinchon", "-25") == -25
    assert parse_option("reentry", "once") == "once"
    assert parse_options(["limit=50", "deck=spanish48", "limit=50"]) == {"limit": 50, "deck": "spanish48"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["colour=red"], "unknown option 'colour'"),
        (["limit=fifty"], "limit: expected a whole number, got 'fifty'"),
        (["layoffs=maybe"], "layoffs: expected true or false, got 'maybe'"),
        (["close_max_loose_cards=x"], "close_max_loose_cards: expected a whole number or none, got 'x'"),
        (["limit"], "expected an option as NAME=VALUE, got 'limit'"),
        (["=5"], "expected an option as NAME=VALUE, got '=5'"),
        (["limit=50", "limit=70"], "limit: given twice, as 50 and as 70"),
        (["reentry=twice"], "reentry: expected one of none, once, unlimited, got 'twice'"),
        (["deck=spanish40", "max_players=6"], "max_players: 6 players with 7 cards each"),
        (["limit=0"], "limit: 0 is out of range"),
    ],
)
def test_bad_options_are_refused_naming_them(options: list[str], message: str) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.from_text("fournier", options)
    assert str(caught.value).startswith(message)


def test_options_on_top_of_a_preset_follow_the_preset() -> None:
    assert Rules.from_text("clasico", ["limit=50", "wild_ace_of_oros=true"]) == Rules.preset(
        "clasico", limit=50, wild_ace_of_oros=True
    )
    # A changed deck takes the preset's derived options with it, as Rules.preset does.
    assert Rules.from_text("clasico", ["deck=spanish40"]).max_players == 5


def test_any_rules_are_written_as_a_preset_and_options_that_make_them_again() -> None:
    rng = random.Random(5)
    choices: dict[str, list[Any]] = {
        "limit": [50, 70, 100, 150],
        "wild_ace_of_oros": [True, False],
        "jokers": [0, 2],
        "close_max_loose_cards": [None, 1, 2],
        "chinchon": ["none", "win", -50],
        "reentry": ["none", "once", "unlimited"],
        "deck": ["spanish40", "spanish48", "french52"],
        "forbid_rediscard": [True, False],
    }
    seen = 0
    for _ in range(60):
        preset = rng.choice(Rules.presets())
        overrides = {key: rng.choice(values) for key, values in choices.items() if rng.random() < 0.4}
        try:
            rules = Rules.preset(preset, **overrides)
        except RulesError:
            continue
        seen += 1
        name, texts = rules.as_text()
        assert Rules.from_text(name, texts) == rules
        assert all(parse_option(t.split("=")[0], t.split("=")[1]) == getattr(rules, t.split("=")[0]) for t in texts)
    assert seen > 30
    assert Rules.preset("polaco").as_text() == ("polaco", [])
    assert format_option(None) == "none" and format_option(True) == "true"


# -- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["rules"],
        ["solve", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"],
        ["arena", "--bots", "random,simple", "--hands", "1"],
        ["play"],
    ],
)
def test_a_bad_rule_is_one_line_naming_it_and_exit_2(command: list[str], launched: list[ChinchonApp]) -> None:
    result = run(*command, "--rule", "limit=50", "--rule", "limit=abc")
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr == "error: limit: expected a whole number, got 'abc'\n"
    assert not launched


def test_rules_prints_the_rules_in_force_with_the_options() -> None:
    result = run("rules", "--rules", "clasico", "--rule", "limit=50", "--rule", "wild_ace_of_oros=yes")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert text.startswith("Rules: clasico, limit=50, wild_ace_of_oros=true")
    assert "A total above 50 puts a player out" in text
    assert "The ace of coins (A♦) is wild." in text
    plain = " ".join(run("rules", "--rules", "clasico").stdout.split())
    assert "A total above 100 puts a player out" in plain and "(A♦) is wild" not in plain


def test_rules_in_the_players_language() -> None:
    result = run("rules", "--rule", "limit=70", "--lang", "es")
    assert result.exit_code == 0, result.stderr
    assert "70" in result.stdout and "Reglas" in result.stdout


def test_solve_with_a_rule_uses_it_and_says_so() -> None:
    # Discarding 4♣ leaves 2♠ loose: 2 points, enough to close under the default limit of 5, not under 1.
    hand = "5♥ 6♥ 7♥ K♣ K♦ K♠ 4♣ 2♠"
    document = json.loads(run("solve", hand, "--json", "--rule", "close_limit=1").stdout)
    jsonschema.validate(document, SOLVE_SCHEMA)
    assert document["options"] == {"close_limit": 1} and not document["can_close"]
    plain = json.loads(run("solve", hand, "--json").stdout)
    assert plain["can_close"] and "options" not in plain
    text = run("solve", hand, "--rule", "close_limit=1").stdout
    assert "Rules: fournier, close_limit=1" in text


def test_play_with_rules_plays_them_and_saves_them(launched: list[ChinchonApp]) -> None:
    result = run("play", "--rules", "clasico", "--rule", "limit=50", "--rule", "wild_ace_of_oros=true", "--seed", "3")
    assert result.exit_code == 0, result.stderr
    session = launched[0].session
    assert session.match.rules == Rules.preset("clasico", limit=50, wild_ace_of_oros=True)
    assert session.settings.preset == "clasico, limit=50, wild_ace_of_oros=true"
    loaded = Store().load()
    assert loaded is not None
    record, settings = loaded
    assert Rules.from_dict(record["rules"]) == session.match.rules and settings.played() == session.settings
    assert replay(loads(dumps(record))).rules == session.match.rules


def _saved_clasico_match() -> Session:
    settings = Settings(preset="clasico, limit=50", bots=("simple",), seed=4, speed=0)
    session = Session.start(settings, ["Ana", "Bot 1"], Rules.preset("clasico", limit=50), Store(), first=0)
    session.play(Draw("stock"), 0)
    return session


def test_resume_says_it_keeps_its_own_rules_when_others_are_asked(launched: list[ChinchonApp]) -> None:
    saved = _saved_clasico_match()
    result = run("play", "--resume", "--rules", "fournier", "--rule", "limit=70")
    assert result.exit_code == 0, result.stderr
    resumed = launched[0].session
    assert resumed.match.rules == saved.match.rules
    line = "The saved match goes on with its own rules (clasico, limit=50), not those of the command line."
    assert result.stderr.strip() == line
    assert resumed.log[-1] == line or line in resumed.log
    # Only --rules given, and explicitly the default preset: still other rules than the saved ones.
    again = run("play", "--resume", "--rules", "fournier")
    assert again.exit_code == 0 and line in again.stderr


def test_resume_is_silent_when_the_rules_asked_are_the_saved_ones(launched: list[ChinchonApp]) -> None:
    _saved_clasico_match()
    for args in (["--rules", "clasico", "--rule", "limit=50"], []):
        result = run("play", "--resume", *args)
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        assert not any("its own rules" in entry for entry in launched[-1].session.log)


# -- max_reshuffles: every deal comes to an end ---------------------------------------------

STUCK = [parse_cards("A♦ 3♥ 5♠ 7♣ J♦ Q♥ K♠"), parse_cards("2♦ 4♥ 6♠ A♣ Q♦ K♥ 2♠")]


def _stuck_match(rules: Rules, decks: int = 1) -> Match:
    deck = stack_deck(rules, STUCK)
    return Match(["Ana", "Bo"], rules, seed=3, first=0, decks=[deck] * decks)


def _draw_and_throw_back(match: Match, turns: int) -> None:
    """Each seat takes the top of the stock and discards it at once, until the deal ends: nobody ever closes."""
    deal = match.deal
    for _ in range(turns):
        if match.deal is not deal or deal.phase is not Phase.DRAW:
            return
        before = list(match.deal.hand(match.to_move or 0))
        match.apply(Draw("stock"))
        drawn = (Counter(match.deal.hand(match.to_move or 0)) - Counter(before)).most_common(1)[0][0]
        match.apply(Discard(drawn))


def test_a_deal_whose_stock_runs_out_too_often_is_void_and_the_deal_passes_on() -> None:
    rules = Rules(max_reshuffles=2)
    match = _stuck_match(rules)
    first = match.deal
    _draw_and_throw_back(match, 1000)
    assert first.phase is Phase.OVER and len(first.reshuffles) == 2
    result = first.result
    assert result is not None and result.void and result.closer is None and result.points == (0, 0)
    # The stock was empty at the end of the last turn, and could not be rebuilt a third time.
    assert not first.stock and first.history[-1][1] == Discard(first.discard_pile[-1])
    assert match.scores == [0, 0] and not match.over and len(match.deals) == 2
    assert match.dealer == 0 and match.deal.first == 1
    record = match.record()
    assert replay(loads(dumps(record))).record() == record


def test_no_limit_rebuilds_the_stock_for_ever_and_zero_voids_at_once() -> None:
    endless = _stuck_match(Rules(max_reshuffles=None))
    _draw_and_throw_back(endless, 300)
    assert endless.deal.phase is not Phase.OVER and len(endless.deal.reshuffles) >= 5
    never = _stuck_match(Rules(max_reshuffles=0))
    _draw_and_throw_back(never, 1000)
    assert never.results[0].void and not never.deals[0].reshuffles and len(never.deals) == 2


def test_the_fast_path_voids_the_deal_too() -> None:
    rules = Rules(max_reshuffles=1)
    deal = Deal.new(rules, 2, deck=stack_deck(rules, STUCK))
    for _ in range(1000):
        if deal.phase is Phase.OVER:
            break
        seat = deal.to_move or 0
        before = deal.masks(seat)
        deal.play(MOVE_STOCK)
        after = deal.masks(seat)
        drawn = next(cid for cid in range(40) if (after[0] ^ before[0]) >> cid & 1 or (after[1] ^ before[1]) >> cid & 1)
        deal.play(drawn)
    assert deal.result is not None and deal.result.void and len(deal.reshuffles) == 1


def test_a_seat_sees_how_often_the_stock_was_rebuilt_and_samples_keep_it() -> None:
    match = _stuck_match(Rules(max_reshuffles=2))
    _draw_and_throw_back(match, 30)
    observation = match.observation(match.to_move or 0)
    assert observation.rebuilds == 1 == len(match.deal.reshuffles)
    sample = Deal.sample(observation, random.Random(1))
    assert len(sample.reshuffles) == 1 and sample.observation(observation.seat).rebuilds == 1


def test_every_preset_limits_the_rebuilds_and_says_why() -> None:
    assert [Rules.preset(name).max_reshuffles for name in Rules.presets()] == [5, 10, 5, 5]
    text = " ".join(rules_paragraphs(Rules.preset("clasico")))
    assert "The stock is rebuilt at most 10 times in a deal; when it runs out again, the deal is void" in text
    assert "every match comes to an end" in text
    assert "the deal is void" not in " ".join(rules_paragraphs(Rules(max_reshuffles=None)))
    assert "When the stock runs out, the deal is void" in " ".join(rules_paragraphs(Rules(max_reshuffles=0)))
    set_language("es")
    assert "nula" in " ".join(rules_paragraphs(Rules()))


def test_a_version_1_record_replays_with_the_stock_rebuilt_for_ever() -> None:
    match = _stuck_match(Rules(max_reshuffles=None))
    _draw_and_throw_back(match, 300)
    assert len(match.deal.reshuffles) > Rules().max_reshuffles  # type: ignore[operator]
    old = match.record()
    del old["rules"]["max_reshuffles"]
    old["version"] = 1
    old["events"] = old.pop("log")
    assert replay(old).rules.max_reshuffles is None
    # Read as a version 2 record, the missing option would take today's default, and the events would not follow.
    with pytest.raises(RecordError, match="expected the chance event deck, found reshuffle"):
        replay({**old, "version": 2})


def test_a_void_deal_is_told_in_the_log_and_the_replay(launched: list[ChinchonApp]) -> None:
    rules = Rules(max_reshuffles=0)
    settings = Settings(preset="fournier, max_reshuffles=0", bots=("simple",), seed=4, speed=0)
    session = Session.start(settings, ["Ana", "Bot 1"], rules, Store(), first=0, decks=[stack_deck(rules, STUCK)])
    deal = session.match.deal
    while len(session.match.deals) == 1:
        seat = session.match.to_move
        assert seat is not None
        if deal.phase is Phase.DRAW:
            session.play(Draw("stock"), seat)
        else:
            drawn = Counter(deal.hand(seat)) - Counter(STUCK[seat])
            session.play(Discard(next(iter(drawn))), seat)
    assert session.match.results[0].void
    assert "The stock ran out once too often: the deal is void and nobody scores." in session.log
    lines = replay_lines(session.match.all_events())
    assert "  The stock ran out once too often: the deal is void and nobody scores." in lines


# -- score_floor, layoff_passes, chinchon_sets ------------------------------------------------

E1_CLOSER = parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦")
E1_OTHER = parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")


def test_no_total_goes_below_the_floor() -> None:
    totals = {}
    for floor in (None, -15):
        rules = Rules(score_floor=floor)
        deck = stack_deck(rules, [E1_CLOSER, E1_OTHER], discard=Card.parse("4♣"), stock=[Card.parse("6♥")])
        match = Match(2, rules, seed=1, scores=[-10, 0], first=0, decks=[deck])
        match.apply(Draw("stock"))
        match.apply(Close(Card.parse("A♦")))
        match.resolve_showdown()
        assert len(match.results) == 1
        totals[floor] = list(match.scores)
        record = match.record()
        assert replay(record).scores == match.scores
    assert totals == {None: [-20, 45], -15: [-15, 45]}
    assert "No total goes below -15." in " ".join(rules_paragraphs(Rules(score_floor=-15)))
    with pytest.raises(RulesError, match="score_floor: 5 is out of range"):
        Rules.from_text("fournier", ["score_floor=5"])


# The closer lays K♦ face down and leaves 2♣ loose; 6♥ (seat 2) fits the run at once, 7♥ (seat 1) only after it.
PASS_HANDS = [
    parse_cards("3♥ 4♥ 5♥ K♣ K♦ K♠ 2♣"),
    parse_cards("7♥ A♠ 4♠ 6♣ J♦ Q♠ 2♦"),
    parse_cards("6♥ A♣ 3♠ 5♣ J♣ Q♣ 2♠"),
]


def _passes_showdown(passes: int | None) -> Deal:
    rules = Rules(layoff_passes=passes)
    deal = Deal.new(rules, 3, deck=stack_deck(rules, PASS_HANDS, stock=[Card.parse("Q♦")]))
    deal.apply(Draw("stock"))
    deal.apply(Close(Card.parse("Q♦")))
    deal.resolve_showdown()
    return deal


def test_lay_offs_in_a_single_pass_round_the_table() -> None:
    until_nobody, once, twice = _passes_showdown(None), _passes_showdown(1), _passes_showdown(2)
    for deal in (until_nobody, once, twice):
        assert deal.result is not None
        assert Card.parse("6♥") not in deal.result.loose[2]
    assert until_nobody.result is not None and once.result is not None and twice.result is not None
    assert Card.parse("7♥") not in until_nobody.result.loose[1]
    assert Card.parse("7♥") in once.result.loose[1]
    assert Card.parse("7♥") not in twice.result.loose[1]
    assert once.result.points[1] == until_nobody.result.points[1] + 7
    text = " ".join(rules_paragraphs(Rules(layoff_passes=1)))
    assert "Lay-offs go round the table only 1 time: then the deal is scored." in text


# The closer shows [3♥ 3♠ 3♣] [5♦ 6♦ 7♦] keeping 4♦ loose (K♣ face down); the other seat has nothing to add.
CLOSER_KEEPS_4 = [parse_cards("3♥ 3♠ 3♣ 5♦ 6♦ 7♦ 4♦"), parse_cards("A♣ 2♠ 5♣ 6♠ Q♠ K♥ 2♥")]


@pytest.mark.parametrize("passes", [1, 2, None])
def test_one_pass_round_the_table_ends_with_the_closer_who_lays_off(passes: int | None) -> None:
    rules = Rules(closer_lays_off=True, layoff_passes=passes)
    deal = Deal.new(rules, 2, deck=stack_deck(rules, CLOSER_KEEPS_4, stock=[Card.parse("K♣")]))
    deal.apply(Draw("stock"))
    deal.apply(Close(Card.parse("K♣"), (tuple(parse_cards("3♥ 3♠ 3♣")), tuple(parse_cards("5♦ 6♦ 7♦")))))
    # Seat 1 shows nothing (its only choice) and has nothing to add: the closer's turn comes in the same pass.
    assert deal.phase is Phase.SHOWDOWN and deal.to_move == 0
    assert deal.legal_actions() == [LayOff(Card.parse("4♦"), 1), Pass()]
    deal.apply(LayOff(Card.parse("4♦"), 1))
    assert deal.result is not None
    assert str(deal.result.table[1]) == "[4♦ 5♦ 6♦ 7♦]"
    assert deal.result.points == (0, 1 + 2 + 5 + 6 + 9 + 10 + 2)


SEVEN_FIVES = "5♦ 5♥ 5♠ 5♣ 5♦ 5♥ 5♠"


def test_a_set_of_seven_is_a_chinchon_where_the_rules_say_so() -> None:
    base = {"decks": 2, "set_distinct_suits": False, "chinchon": "win"}
    rules = Rules(chinchon_sets=True, **base)  # type: ignore[arg-type]
    plain = Rules(**base)  # type: ignore[arg-type]
    assert is_chinchon(parse_cards(SEVEN_FIVES), rules) and not is_chinchon(parse_cards(SEVEN_FIVES), plain)
    assert is_chinchon(parse_cards("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 7♥"), rules)
    wins = {}
    for option in (rules, plain):
        hands = [parse_cards(SEVEN_FIVES), parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")]
        deck = stack_deck(option, hands, discard=Card.parse("4♣"), stock=[Card.parse("J♥")])
        match = Match(2, option, seed=1, first=0, decks=[deck])
        match.apply(Draw("stock"))
        match.apply(Close(Card.parse("J♥")))
        match.resolve_showdown()
        wins[option.chinchon_sets] = (match.over, match.winner)
    assert wins == {True: (True, 0), False: (False, None)}
    assert "A set of all 7 cards counts as a chinchón too." in " ".join(rules_paragraphs(rules))
    with pytest.raises(RulesError, match="chinchon_sets: a set of 7 cards is not possible"):
        Rules(chinchon_sets=True)


def test_the_new_options_come_from_text_and_go_into_the_record() -> None:
    texts = ["score_floor=-50", "layoff_passes=1", "max_reshuffles=3"]
    rules = Rules.from_text("polaco", [*texts, "chinchon_sets=true", "set_distinct_suits=false", "decks=2"])
    assert (rules.score_floor, rules.layoff_passes, rules.max_reshuffles, rules.chinchon_sets) == (-50, 1, 3, True)
    match = Match(2, rules, seed=5)
    assert Rules.from_dict(match.record()["rules"]) == rules
    assert Rules.from_text(*rules.as_text()) == rules


# -- wild_floats ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meld", "card", "floated"),
    [
        ("4♥ 🃏 6♥", "5♥", "4♥ 5♥ 6♥ 🃏"),
        ("2♥ 3♥ 🃏", "4♥", "2♥ 3♥ 4♥ 🃏"),
        ("🃏 2♥ 3♥", "A♥", "A♥ 2♥ 3♥ 🃏"),
        # The run reaches the rey: the wild card moves to the bottom.
        ("J♥ Q♥ 🃏", "K♥", "🃏 J♥ Q♥ K♥"),
    ],
)
def test_a_natural_card_takes_a_floating_wild_cards_place(meld: str, card: str, floated: str) -> None:
    floats = Rules(jokers=1, wild_floats=True)
    assert extend_meld(parse_cards(meld), Card.parse(card), floats) == tuple(parse_cards(floated))
    assert extend_meld(parse_cards(meld), Card.parse(card), Rules(jokers=1)) is None
    assert Card.parse(card) in meld_extensions(parse_cards(meld), floats)


def test_a_wild_card_in_a_set_does_not_float() -> None:
    floats = Rules(jokers=1, wild_floats=True)
    full = parse_cards("7♥ 7♣ 7♦ 🃏")
    assert extend_meld(full, Card.parse("7♠"), floats) is None


def _floating_showdown(floats: bool) -> Deal:
    rules = Rules(jokers=1, wild_floats=floats)
    hands = [parse_cards("4♥ 🃏 6♥ K♣ K♦ K♠ 2♣"), parse_cards("5♥ A♠ 4♠ 6♣ J♦ Q♠ 2♦")]
    deal = Deal.new(rules, 2, deck=stack_deck(rules, hands, discard=Card.parse("3♣"), stock=[Card.parse("Q♦")]))
    deal.apply(Draw("stock"))
    deal.apply(Close(Card.parse("Q♦"), (tuple(parse_cards("4♥ 🃏 6♥")), tuple(parse_cards("K♣ K♦ K♠")))))
    return deal


def test_in_the_showdown_the_wild_card_floats_only_where_the_rules_say_so() -> None:
    floating, fixed = _floating_showdown(True), _floating_showdown(False)
    assert LayOff(Card.parse("5♥"), 0) in floating.legal_actions()
    assert fixed.phase is Phase.OVER or LayOff(Card.parse("5♥"), 0) not in fixed.legal_actions()
    floating.resolve_showdown()
    fixed.resolve_showdown()
    assert floating.result is not None and fixed.result is not None
    assert str(floating.result.table[0]) == "[4♥ 5♥ 6♥ 🃏]" and str(fixed.result.table[0]) == "[4♥ 🃏 6♥]"
    assert fixed.result.points[1] == floating.result.points[1] + 5
    text = " ".join(rules_paragraphs(Rules(jokers=1, wild_floats=True)))
    assert "A natural card may take the place of the wild card that stands for it in a run on the table" in text
    assert "take the place of the wild" not in " ".join(rules_paragraphs(Rules(jokers=1)))


@pytest.mark.parametrize(
    ("meld", "card", "floated"),
    [
        # The wild card moves from the top end to the bottom one, so that the ace fits below it.
        ("3♥ 4♥ 🃏", "A♥", "A♥ 🃏 3♥ 4♥"),
        ("🃏 3♥ 4♥", "6♥", "3♥ 4♥ 🃏 6♥"),
        # Where the card fits the run as laid, the wild card stays.
        ("3♥ 4♥ 🃏", "2♥", "2♥ 3♥ 4♥ 🃏"),
        ("3♥ 4♥ 🃏", "5♥", "3♥ 4♥ 5♥ 🃏"),
    ],
)
def test_anywhere_a_wild_card_at_an_end_moves_to_the_other(meld: str, card: str, floated: str) -> None:
    anywhere = Rules(jokers=1, wild_floats="anywhere")
    assert extend_meld(parse_cards(meld), Card.parse(card), anywhere) == tuple(parse_cards(floated))
    assert Card.parse(card) in meld_extensions(parse_cards(meld), anywhere)
    if floated.startswith("A♥ 🃏") or floated.endswith("🃏 6♥"):
        assert extend_meld(parse_cards(meld), Card.parse(card), Rules(jokers=1, wild_floats=True)) is None


def test_anywhere_a_wild_card_filling_a_gap_stays_in_it() -> None:
    anywhere = Rules(jokers=1, wild_floats="anywhere")
    assert extend_meld(parse_cards("3♥ 🃏 5♥"), Card.parse("A♥"), anywhere) is None
    assert sorted(map(str, meld_extensions(parse_cards("3♥ 🃏 5♥"), anywhere))) == ["2♥", "4♥", "6♥"]


def test_wild_floats_takes_replace_and_anywhere_by_name() -> None:
    assert Rules(wild_floats="replace") == Rules(wild_floats=True)
    anywhere = Rules(jokers=1, wild_floats="anywhere")
    assert anywhere.to_dict()["wild_floats"] == "anywhere"
    assert Rules.from_dict(anywhere.to_dict()) == anywhere
    assert Rules.from_dict(json.loads(json.dumps(anywhere.to_dict()))) == anywhere
    assert parse_option("wild_floats", "Anywhere") == "anywhere" and parse_option("wild_floats", "yes") is True
    assert Rules.from_text("online", ["jokers=2", "wild_floats=anywhere"]).wild_floats == "anywhere"
    assert Rules.from_text(*anywhere.as_text()) == anywhere
    with pytest.raises(RulesError, match="wild_floats: expected true, false, 'replace' or 'anywhere', got 'here'"):
        Rules.from_text("fournier", ["wild_floats=here"])


def test_anywhere_the_showdown_lets_the_wild_card_make_room() -> None:
    deals = {}
    for floats in (True, "anywhere"):
        rules = Rules(jokers=1, wild_floats=floats)
        hands = [parse_cards("3♥ 4♥ 🃏 K♣ K♦ K♠ 2♣"), parse_cards("A♥ A♠ 4♠ 6♣ J♦ Q♠ 2♦")]
        deal = Deal.new(rules, 2, deck=stack_deck(rules, hands, discard=Card.parse("3♣"), stock=[Card.parse("Q♦")]))
        deal.apply(Draw("stock"))
        deal.apply(Close(Card.parse("Q♦"), (tuple(parse_cards("3♥ 4♥ 🃏")), tuple(parse_cards("K♣ K♦ K♠")))))
        deal.resolve_showdown()
        deals[floats] = deal
    anywhere, replace = deals["anywhere"].result, deals[True].result
    assert anywhere is not None and replace is not None
    assert str(anywhere.table[0]) == "[A♥ 🃏 3♥ 4♥]" and str(replace.table[0]) == "[3♥ 4♥ 🃏]"
    assert replace.points[1] == anywhere.points[1] + 1


def test_the_rules_text_says_where_the_wild_card_floats() -> None:
    anywhere = " ".join(rules_paragraphs(Rules(jokers=1, wild_floats="anywhere")))
    replace = " ".join(rules_paragraphs(Rules(jokers=1, wild_floats=True)))
    sentence = "A wild card at one end of a run on the table may also move to the other end"
    assert sentence in anywhere and sentence not in replace
    assert "take the place of the wild card" in anywhere
    printed = run("rules", "--rule", "jokers=2", "--rule", "wild_floats=anywhere")
    assert printed.exit_code == 0 and sentence in " ".join(printed.output.split())
    for lang in ("es", "pt", "fr", "pl", "ar"):
        set_language(lang)
        translated = " ".join(rules_paragraphs(Rules(jokers=1, wild_floats="anywhere")))
        assert "A♥" in translated and sentence not in translated
    set_language("en")
