"""The post-game analysis: its JSON, exact costs, marks, determinism, and the command line."""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from chinchon.actions import Close, Draw, Pass, ReEnter
from chinchon.analysis import (
    MARKS,
    AnalysisError,
    Settings,
    analyse,
    analyse_many,
    mark_for,
    positions,
)
from chinchon.bots import make_bot
from chinchon.cards import Card, parse_cards
from chinchon.cli import EXIT_BAD_INPUT, app
from chinchon.deal import stack_deck
from chinchon.match import Match
from chinchon.record import RecordError, dumps
from chinchon.rules import Rules

pytestmark = pytest.mark.usefixtures("english")

EXPERT = "ismcts:iterations=2400,steps=80000,paired=true"
"""The ``expert`` level's search without its cap in seconds: the same moves for a seed on any machine."""


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    text = resources.files("chinchon").joinpath("schemas/analysis.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


def play(specs: list[str], seed: int, rules: Rules | None = None, deals: int | None = None) -> Match:
    """A match between bots (the whole match, or its first ``deals`` deals)."""
    match = Match([f"seat {i}" for i in range(len(specs))], rules or Rules(), seed=seed, first=0)
    bots = [make_bot(spec) for spec in specs]
    rng = random.Random(seed)
    while not match.over and (deals is None or len(match.deals) <= deals):
        seat = match.to_move
        assert seat is not None
        match.apply(bots[seat].choose(match.observation(seat), match.legal_actions(), rng))
    return match


@pytest.fixture(scope="module")
def easy_match() -> dict[str, Any]:
    """Three deals of ``easy`` (simple with noise) against ``greedy``: decisions of every kind, some poor."""
    return play(["simple:noise=0.25", "greedy"], seed=5, deals=3).record()


def closing(discard: str) -> Match:
    """Ana holds 3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 5♣, draws 6♥ and closes putting ``discard`` face down
    (5♣: all seven matched, −10; 6♥: 5♣ left loose, 5 points); then the deal is played out."""
    rules = Rules()
    ana = parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 5♣")
    bea = parse_cards("6♣ 2♠ 2♦ J♠ K♠ Q♦ Q♠")
    deck = stack_deck(rules, [ana, bea], discard=Card.parse("A♦"), stock=parse_cards("6♥"))
    match = Match(["Ana", "Bea"], rules, seed=7, first=0, decks=[deck])
    match.apply(Draw("stock"))
    hand = [*ana, Card.parse("6♥")]
    hand.remove(Card.parse(discard))
    runs = [c for c in hand if c.suit == Card.parse("3♥").suit]
    sevens = tuple(parse_cards("7♦ 7♠ 7♣"))
    close = Close(Card.parse(discard), (tuple(runs), sevens))
    assert match.is_legal(close)
    match.apply(close)
    match.resolve_showdown()
    return match


def closing_blunder() -> Match:
    """The close with 5 points when a clean close (−10) was on the same hand."""
    return closing("6♥")


def test_marks_follow_the_documented_thresholds() -> None:
    assert mark_for(0.0) == "best"
    assert mark_for(0.99) == "best"
    assert mark_for(1.0) == "inaccuracy"
    assert mark_for(3.0) == "mistake"
    assert mark_for(6.0) == "blunder"
    assert mark_for(None, 0.019) == "best"
    assert mark_for(None, 0.02) == "inaccuracy"
    assert mark_for(0.5, 0.10) == "blunder"
    # The solver's figures are never a mere inaccuracy.
    assert mark_for(1.0, exact=True) == "mistake"
    assert mark_for(0.0, exact=True) == "best"


def test_the_json_follows_its_schema(easy_match: dict[str, Any], schema: dict[str, Any]) -> None:
    analysis = analyse(easy_match, 0, Settings(playouts=40))
    document = analysis.to_dict()
    jsonschema.validate(document, schema)
    assert document["budget"] == {"playouts": 40, "seconds": None, "width": 3, "seed": 1, "deterministic": True}
    kinds = {d["kind"] for d in document["decisions"]}
    assert {"draw", "discard", "show"} <= kinds
    assert document["summary"]["decisions"] == len(document["decisions"]) == sum(document["summary"]["marks"].values())
    assert sum(deal["decisions"] for deal in document["deals"]) == len(document["decisions"])
    # Every decision is one of the seat's, with a choice, in the order played.
    numbers = [d["number"] for d in document["decisions"]]
    assert numbers == sorted(numbers)
    _, found = positions(easy_match, 0)
    assert numbers == [p.number for p in found]
    assert all(len(p.legal) > 1 and p.observation.seat == 0 for p in found)


def test_the_schema_refuses_a_document_it_does_not_describe(easy_match: dict[str, Any], schema: dict[str, Any]) -> None:
    document = analyse(easy_match, 0, Settings(playouts=20)).to_dict()
    document["decisions"][0]["mark"] = "brilliant"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_a_close_with_five_points_instead_of_a_clean_one_is_a_blunder_of_exactly_15() -> None:
    analysis = analyse(closing_blunder().record(), 0, Settings(playouts=20))
    [close] = [d for d in analysis.decisions if d.kind == "close"]
    assert close.exact
    assert close.cost == 15.0  # 5 loose points instead of the clean close's -10
    assert close.error is None
    assert close.mark == "blunder"
    assert close.played.startswith("close 6♥")
    assert close.best.startswith("close 5♣")
    # The best close's own gain, among the candidates, is the same exact figure.
    assert any(c.action.startswith("close 5♣") and c.gain == 15.0 and c.error is None for c in close.candidates)


def test_a_close_as_good_as_any_other_costs_nothing() -> None:
    analysis = analyse(closing("5♣").record(), 0, Settings(playouts=20))
    [close] = [d for d in analysis.decisions if d.kind == "close"]
    assert close.cost == 0.0 and close.mark == "best" and close.best == close.played


def test_a_lay_off_left_undone_is_a_mistake_with_its_exact_cost() -> None:
    rules = Rules()
    ana = parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ K♣")
    bea = parse_cards("2♥ J♠ K♠ Q♦ 4♣ 6♦ A♠")
    deck = stack_deck(rules, [ana, bea], discard=Card.parse("A♦"), stock=parse_cards("A♣"))
    match = Match(["Ana", "Bea"], rules, seed=7, first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(Card.parse("K♣")))  # [3♥ 4♥ 5♥] [7♦ 7♠ 7♣] and A♣ loose: one point
    assert match.to_move == 1
    while not any(isinstance(a, Pass) for a in match.legal_actions()):
        match.apply(match.legal_actions()[0])
    assert len(match.legal_actions()) > 1
    match.apply(Pass())  # 2♥ could have gone onto 3♥ 4♥ 5♥
    analysis = analyse(match.record(), 1, Settings(playouts=20))
    [passed] = [d for d in analysis.decisions if d.kind == "pass"]
    assert passed.exact and passed.cost == 2.0 and passed.mark == "mistake"
    assert passed.best.startswith("layoff 2♥")


def test_declining_a_re_entry_that_keeps_the_match_alive_is_flagged_by_the_match() -> None:
    rules = Rules.preset("clasico")
    bea = parse_cards("K♣ K♦ K♠ 4♥ 5♥ 6♥ A♣")
    ana = parse_cards("J♦ Q♠ 9♣ 8♦ 3♠ 2♦ 5♣")
    deck = stack_deck(rules, [bea, ana], discard=Card.parse("7♦"), stock=parse_cards("2♣"))
    match = Match(["Ana", "Bea"], rules, seed=7, first=1, scores=[95, 40], decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(Card.parse("2♣")))
    assert match.to_move == 0 and match.legal_actions() == [ReEnter(True), ReEnter(False)]
    match.apply(ReEnter(False))
    assert match.over and match.winner == 1
    analysis = analyse(match.record(), 0, Settings(playouts=20))
    [decision] = analysis.decisions
    assert decision.kind == "reentry" and decision.at_stake
    assert decision.best == "reenter yes" and decision.cost is None
    assert decision.chance_cost is not None and decision.chance_cost > 0.10
    assert decision.mark == "blunder"


def test_the_same_seed_gives_the_same_analysis_however_the_work_is_split(easy_match: dict[str, Any]) -> None:
    settings = Settings(playouts=40, seed=3)
    alone = analyse(easy_match, 0, settings).to_dict()
    assert analyse(easy_match, 0, settings).to_dict() == alone
    assert analyse(easy_match, 0, settings, jobs=2).to_dict() == alone
    [again, other] = analyse_many([easy_match, closing_blunder().record()], 0, settings, jobs=2)
    assert again.to_dict() == alone
    assert other.decisions[-1].kind == "close"


def test_experts_moves_flag_no_blunder() -> None:
    # The expert level's search (seed 2, the first two deals against greedy) at the analysis's default budget.
    match = play([EXPERT, "greedy"], seed=2, deals=2)
    analysis = analyse(match.record(), 0)
    marks = [d.mark for d in analysis.decisions]
    assert len(marks) >= 10
    assert "blunder" not in marks
    assert marks.count("best") > len(marks) / 2


def test_bad_settings_and_seats_are_refused(easy_match: dict[str, Any]) -> None:
    with pytest.raises(AnalysisError, match="seat 2 is not one of the 2 seats"):
        analyse(easy_match, 2)
    with pytest.raises(AnalysisError, match="playouts"):
        analyse(easy_match, 0, Settings(playouts=0))
    with pytest.raises(AnalysisError, match="budget"):
        analyse(easy_match, 0, Settings(seconds=-1))
    with pytest.raises(AnalysisError, match="jobs"):
        analyse(easy_match, 0, jobs=0)
    tampered = json.loads(json.dumps(easy_match))
    tampered.pop("rules")
    with pytest.raises(RecordError, match="rules"):
        analyse(tampered, 0)


# -- the command line ---------------------------------------------------------------------------------------


def run(*args: str) -> Any:
    env = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "NO_COLOR": "1", "COLUMNS": "120"}
    return CliRunner().invoke(app, list(args), env=env)


def test_the_command_prints_the_json_document(tmp_path: Path, schema: dict[str, Any]) -> None:
    path = tmp_path / "match.json"
    path.write_text(dumps(closing_blunder().record()), encoding="utf-8")
    result = run("analyze", str(path), "--json", "--playouts", "20")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    jsonschema.validate(document, schema)
    assert document["decisions"][-1]["mark"] == "blunder"
    both = run("analyze", str(path), str(path), "--json", "--playouts", "20", "--seat", "1")
    assert both.exit_code == 0, both.stderr
    documents = json.loads(both.stdout)
    assert [d["seat"] for d in documents] == [1, 1]


def test_the_command_prints_each_deal_and_the_match_in_text(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    path.write_text(dumps(closing_blunder().record()), encoding="utf-8")
    result = run("analyze", str(path), "--playouts", "20")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Analysis of Ana (seat 0)" in out and "20 playouts a decision" in out
    assert "close, 6♥ face down" in out and "close, 5♣ face down" in out
    assert "15 exact" in out and "blunder" in out
    assert "The match: 2 decisions" in out
    spanish = run("analyze", str(path), "--playouts", "20", "--lang", "es")
    assert spanish.exit_code == 0 and "Análisis de Ana" in spanish.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "3"], "seat 3 is not one of the 2 seats"),
        (["--playouts", "0"], "--playouts: expected a whole number of at least 1"),
        (["--budget", "0"], "--budget: expected a number of seconds above 0"),
        (["--jobs", "0"], "--jobs: expected a whole number of at least 1"),
    ],
)
def test_the_command_refuses_bad_input(tmp_path: Path, args: list[str], message: str) -> None:
    path = tmp_path / "match.json"
    path.write_text(dumps(closing_blunder().record()), encoding="utf-8")
    result = run("analyze", str(path), *args)
    assert result.exit_code == EXIT_BAD_INPUT
    assert message in result.stderr


def test_the_command_names_an_unreadable_or_broken_record(tmp_path: Path) -> None:
    missing = run("analyze", str(tmp_path / "none.json"))
    assert missing.exit_code == EXIT_BAD_INPUT and "cannot read" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    result = run("analyze", str(broken))
    assert result.exit_code == EXIT_BAD_INPUT and "broken.json" in result.stderr and "not JSON" in result.stderr


def test_every_mark_is_named() -> None:
    assert MARKS == ("best", "inaccuracy", "mistake", "blunder")


@pytest.mark.parametrize("preset", Rules.presets())
def test_every_preset_with_three_seats_is_analysed(preset: str, schema: dict[str, Any]) -> None:
    match = play(["simple", "greedy", "simple:noise=0.5"], seed=4, rules=Rules.preset(preset), deals=1)
    seat = Rules.presets().index(preset) % 3
    analysis = analyse(match.record(), seat, Settings(playouts=12))
    jsonschema.validate(analysis.to_dict(), schema)
    _, found = positions(match.record(), seat)
    assert [d.number for d in analysis.decisions] == [p.number for p in found] and found
    assert all(d.mark in MARKS and (d.cost is None or d.cost >= 0) for d in analysis.decisions)
    # Each decision names the public event that tells its action: the seat's own, of the action's kind.
    told = match.events()
    kinds = {"draw": "drew", "discard": "discarded", "close": "closed", "show": "showed", "layoff": "laid_off"}
    kinds |= {"pass": "passed", "reentry": "re_entered"}
    assert [(told[d.event - 1].kind, getattr(told[d.event - 1], "seat", None)) for d in analysis.decisions] == [
        (kinds[d.kind], seat) for d in analysis.decisions
    ]
