"""The learned part of ``greedy``: the tree model, the features, the choice, and the script that fits them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from chinchon.actions import Discard
from chinchon.bots import make_bot
from chinchon.bots.greedy import (
    FEATURES,
    LEARNED_WIDTH,
    GreedyBot,
    Outlook,
    clean_close_outs,
    discard_features,
    draw_outlook,
    unseen_cards,
)
from chinchon.bots.trees import Trees, load_model
from chinchon.cards import Card
from chinchon.deal import Deal
from chinchon.melds import best_discard
from chinchon.observation import Observation, Phase
from chinchon.rules import Rules
from tests.scripts import load_script

train_discards = load_script("train_discards")

# Feature 0 at most 1.5 goes left; then feature 1 at most 0 goes left again.
SMALL: dict[str, Any] = {
    "features": ["a", "b"],
    "baseline": 0.5,
    "trees": [
        {
            "feature": [0, 1, -1, -1, -1],
            "threshold": [1.5, 0.0, 0, 0, 0],
            "left": [1, 3, 0, 0, 0],
            "right": [2, 4, 0, 0, 0],
            "value": [0, 0, 10.0, 1.0, 2.0],
        },
        {"feature": [-1], "threshold": [0], "left": [0], "right": [0], "value": [-0.25]},
    ],
}


@pytest.mark.parametrize(
    ("row", "value"), [([1.0, -1.0], 1.25), ([1.5, 0.0], 1.25), ([1.0, 3.0], 2.25), ([2.0, 9.0], 10.25)]
)
def test_trees_walk_to_a_leaf_in_each_tree_and_add_the_baseline(row: list[float], value: float) -> None:
    assert Trees(SMALL).predict(row) == value


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"features": "ab"}, "feature names"),
        ({"baseline": "x"}, "numeric baseline"),
        ({"trees": [{"feature": [0, -1], "threshold": [1], "left": [1], "right": [1], "value": [0, 0]}]}, "differ"),
        ({"trees": [{"feature": [5], "threshold": [1], "left": [0], "right": [0], "value": [0]}]}, "no feature 5"),
        ({"trees": [{"feature": [0], "threshold": [1], "left": [0], "right": [0], "value": [0]}]}, "child outside"),
        ({"trees": [{"feature": [0]}]}, "malformed"),
    ],
)
def test_a_malformed_model_is_refused_naming_the_fault(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Trees({**SMALL, **change})


def test_a_row_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="needs 2 features, not 3"):
        Trees(SMALL).predict([1.0, 2.0, 3.0])


def test_the_shipped_model_reads_the_features_greedy_computes() -> None:
    model = load_model("discards")
    assert model.features == FEATURES
    assert len(model.trees) > 10


def _positions(rules: Rules, players: int, seeds: range) -> list[tuple[Observation, list[Discard]]]:
    """The discard decisions of ``greedy`` (the heuristic alone) against ``simple`` in seeded deals."""
    out = []
    for seed in seeds:
        deal = Deal.new(rules, players, first=0, rng=random.Random(seed))
        bots = [GreedyBot(learned=False) if seat == 0 else make_bot("simple") for seat in range(players)]
        rng = random.Random(seed)
        while deal.phase is not Phase.OVER and len(deal.history) < 300:
            seat = deal.to_move
            assert seat is not None
            observation = deal.observation(seat)
            legal = deal.legal_actions()
            discards = [a for a in legal if isinstance(a, Discard)]
            if seat == 0 and discards:
                out.append((observation, discards))
            deal.apply(bots[seat].choose(observation, legal, rng))
    return out


def test_the_learned_choice_is_one_of_the_heuristics_best_and_leaves_the_rest_in_order() -> None:
    departures = 0
    positions = _positions(Rules.preset("fournier"), 2, range(12))
    for observation, discards in positions:
        plain = GreedyBot(learned=False).ranked_discards(observation, discards)
        learned = GreedyBot().ranked_discards(observation, discards)
        assert learned[0] in plain[:LEARNED_WIDTH]
        assert learned[1:] == [a for a in plain if a != learned[0]]
        departures += learned[0] != plain[0]
    # The model leaves the favourite in some positions, not in most.
    assert 0 < departures < len(positions) / 2


def test_a_margin_beyond_any_advantage_keeps_the_heuristics_favourite() -> None:
    for observation, discards in _positions(Rules.preset("fournier"), 2, range(6)):
        plain = GreedyBot(learned=False).ranked_discards(observation, discards)
        assert GreedyBot(margin=1000).ranked_discards(observation, discards) == plain


@pytest.mark.parametrize(("preset", "players"), [("fournier", 3), ("clasico", 2), ("polaco", 5)])
def test_the_model_is_left_out_of_play_unlike_what_it_learned_from(preset: str, players: int) -> None:
    rules = Rules.preset(preset, jokers=2) if preset == "clasico" else Rules.preset(preset)
    for observation, discards in _positions(rules, players, range(3)):
        plain = GreedyBot(learned=False).ranked_discards(observation, discards)
        assert GreedyBot().ranked_discards(observation, discards) == plain


def test_the_model_plays_where_it_was_checked_with_two_decks_and_a_wild_card() -> None:
    rules = Rules.preset("fournier", decks=2, wild_ace_of_oros=True, values="figures10", close_max_loose_cards=1)
    departures = 0
    for observation, discards in _positions(rules, 2, range(6)):
        plain = GreedyBot(learned=False).ranked_discards(observation, discards)
        departures += GreedyBot().ranked_discards(observation, discards)[0] != plain[0]
    assert departures > 0


def test_greedy_takes_learned_and_margin_as_parameters() -> None:
    bot = make_bot("greedy:learned=false,margin=2")
    assert isinstance(bot, GreedyBot) and not bot.learned and bot.margin == 2
    with pytest.raises(ValueError, match="margin"):
        make_bot("greedy:margin=-1")


def test_features_of_a_known_position() -> None:
    rules = Rules.preset("fournier")
    observation, _ = _positions(rules, 2, range(3, 4))[0]
    card = observation.hand[0]
    unseen = unseen_cards(observation)
    (row,) = discard_features(observation, [card], [Outlook(4.5, 0, 0)], unseen)
    named = dict(zip(FEATURES, row, strict=True))
    assert named["rank_in_greedy"] == 0 and named["lookahead"] == 4.5 and named["lookahead_gap"] == 0
    assert named["card_value"] == rules.value(card)
    assert named["unseen"] == sum(unseen.values()) == 40 - 8 - len(observation.discard_pile)
    rest = [c for c in observation.hand if c != card]
    assert named["same_rank_kept"] == sum(c.rank == card.rank for c in rest)
    assert named["same_rank_unseen"] == 4 - 1 - named["same_rank_kept"]
    assert named["next_last_discard"] == named["next_discards"] == named["next_taken"] == 0


def test_the_script_labels_decisions_and_its_export_predicts_as_scikit_learn(tmp_path: Path) -> None:
    pytest.importorskip("sklearn", reason="the train extra")
    data = tmp_path / "data.jsonl"
    train_discards.main(["generate", "--boards", "2", "--seed", "4", "--jobs", "1", "--out", str(data)])
    records = [json.loads(line) for line in data.read_text().splitlines()]
    assert records and all(len(r["x"]) == len(r["y"]) <= LEARNED_WIDTH for r in records)
    assert all(len(x) == len(FEATURES) for r in records for x in r["x"])
    # The heuristic's favourite is the first candidate, with no gap to itself.
    assert all(r["x"][0][0] == 0 and r["x"][0][2] == 0 for r in records)
    out = tmp_path / "model.json"
    train_discards.main(["fit", str(data), "--trees", "15", "--depth", "3", "--out", str(out)])
    model = Trees(json.loads(out.read_text()))
    from sklearn.ensemble import HistGradientBoostingRegressor

    rows, advantages, _ = train_discards._load([str(data)])
    fitted = HistGradientBoostingRegressor(
        max_depth=3, max_iter=15, learning_rate=0.05, l2_regularization=1.0, random_state=0
    ).fit(rows, advantages)
    expected = fitted.predict(rows)
    assert [model.predict(row) for row in rows] == pytest.approx(list(expected))
    assert len({round(model.predict(row), 6) for row in rows}) > 1


def test_the_script_refuses_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        train_discards.main(["generate", "--boards", "0", "--out", str(tmp_path / "x")])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"x": [[1.0, 2.0]], "y": [1.0]}) + "\n")
    with pytest.raises(SystemExit, match="features"):
        train_discards._load([str(bad)])


def test_a_card_value_feature_follows_the_card() -> None:
    rules = Rules.preset("fournier")
    observation, _ = _positions(rules, 2, range(8, 9))[0]
    unseen = unseen_cards(observation)
    cards: list[Card] = list(observation.hand[:3])
    rows = discard_features(observation, cards, [Outlook(v, 0, 0) for v in (1.0, 2.0, 4.0)], unseen)
    assert [row[0] for row in rows] == [0, 1, 2]
    assert [row[2] for row in rows] == [0, 1.0, 3.0]
    assert [row[3] for row in rows] == [rules.value(c) for c in cards]


def test_the_outlook_counts_the_outs_of_every_unseen_card() -> None:
    rules = Rules.preset("fournier")
    closes = clean = 0
    for observation, discards in _positions(rules, 2, range(6)):
        unseen = unseen_cards(observation)
        for action in discards:
            rest = list(observation.hand)
            rest.remove(action.card)
            outlook = draw_outlook(rest, rules, unseen, 8.0)
            assert outlook.clean_outs == clean_close_outs(rest, rules, unseen)
            points = {card: best_discard([*rest, card], rules).points for card in unseen}
            assert outlook.close_outs == sum(n for card, n in unseen.items() if points[card] <= rules.close_limit)
            expected = sum(
                n * (points[c] - 8.0 if points[c] <= rules.close_limit else points[c]) for c, n in unseen.items()
            )
            assert outlook.value == pytest.approx(expected / sum(unseen.values()))
            closes += outlook.close_outs
            clean += outlook.clean_outs
    # The positions include hands near a close and near a clean one.
    assert closes > clean > 0


def test_the_search_anchors_to_the_greedy_its_learned_parameter_names() -> None:
    # With an anchor no playout can beat, the search plays its anchor's move.
    learned = make_bot("ismcts:iterations=4,paired=true,anchor=1000")
    plain = make_bot("ismcts:iterations=4,paired=true,anchor=1000,learned=false")
    differ = 0
    for observation, discards in _positions(Rules.preset("fournier"), 2, range(12)):
        expected = GreedyBot(learned=False).ranked_discards(observation, discards)[0]
        assert plain.choose(observation, discards, random.Random(1)) == expected
        chosen = learned.choose(observation, discards, random.Random(1))
        assert chosen == GreedyBot().ranked_discards(observation, discards)[0]
        differ += chosen != expected
    assert differ > 0
    with pytest.raises(ValueError, match="learned"):
        make_bot("ismcts:learned=maybe")


def _shipped() -> dict[str, Any]:
    from importlib import resources

    data: dict[str, Any] = json.loads(resources.files("chinchon.bots").joinpath("discards.json").read_text())
    return data


def test_a_model_file_plays_in_place_of_the_shipped_one(tmp_path: Path) -> None:
    same = tmp_path / "same.json"
    same.write_text(json.dumps(_shipped()))
    # The shipped model with every value negated prefers what the shipped one likes least.
    inverted = _shipped()
    inverted["baseline"] = -inverted["baseline"]
    for tree in inverted["trees"]:
        tree["value"] = [-v for v in tree["value"]]
    other = tmp_path / "inverted.json"
    other.write_text(json.dumps(inverted))
    positions = _positions(Rules.preset("fournier"), 2, range(12))
    differ = agree = 0
    for observation, discards in positions:
        shipped = GreedyBot().ranked_discards(observation, discards)
        same_bot = make_bot(f"greedy:model={same}")
        assert isinstance(same_bot, GreedyBot)
        assert same_bot.ranked_discards(observation, discards) == shipped
        plain = GreedyBot(learned=False).ranked_discards(observation, discards)
        head = plain[:LEARNED_WIDTH]
        unseen = unseen_cards(observation)
        outlooks = []
        for action in head:
            rest = list(observation.hand)
            rest.remove(action.card)
            outlooks.append(draw_outlook(rest, observation.rules, unseen, GreedyBot().bonus))
        values = [
            -load_model("discards").predict(row)
            for row in discard_features(observation, [a.card for a in head], outlooks, unseen)
        ]
        best = max(range(len(values)), key=values.__getitem__)
        expected = head[best] if best and values[best] > values[0] else plain[0]
        other_bot = make_bot(f"greedy:model={other}")
        assert isinstance(other_bot, GreedyBot)
        chosen = other_bot.ranked_discards(observation, discards)[0]
        assert chosen == expected
        # With so strict an anchor the search plays its anchor's move, unless a few playouts all agree.
        searched = make_bot(f"ismcts:iterations=4,paired=true,anchor=1000,model={other}")
        agree += searched.choose(observation, discards, random.Random(1)) == expected
        differ += expected != shipped[0]
    assert differ > len(positions) / 2
    assert agree >= 0.9 * len(positions)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the model file .*missing.json"),
        ("{", "bad.json is not a discard model: not JSON"),
        ("[1, 2]", "bad.json is not a discard model: a tree model is a JSON object"),
        ('{"features": ["a"], "baseline": 0, "trees": [{"feature": [3]}]}', "bad.json is not a discard model: tree 0"),
        ('{"features": ["a"], "baseline": 0, "trees": []}', "the model .*bad.json reads other features"),
    ],
)
def test_a_bad_model_file_is_refused_naming_it(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / ("missing.json" if content is None else "bad.json")
    if content is not None:
        path.write_text(content)
    for spec in (f"greedy:model={path}", f"ismcts:model={path}"):
        with pytest.raises(ValueError, match=message):
            make_bot(spec)


def test_a_model_parameter_that_is_no_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="model must be the path of a model file, not 3"):
        make_bot("greedy:model=3")
    with pytest.raises(ValueError, match="cannot read the model file"):
        make_bot(f"greedy:model={tmp_path}")


def test_the_script_labels_the_bots_it_is_told_to(tmp_path: Path) -> None:
    plain, other = tmp_path / "plain.jsonl", tmp_path / "other.jsonl"
    common = ["generate", "--boards", "2", "--seed", "4", "--jobs", "1"]
    train_discards.main([*common, "--out", str(plain)])
    train_discards.main([*common, "--player", "greedy", "--opponent", "greedy", "--out", str(other)])
    records = [json.loads(line) for line in other.read_text().splitlines()]
    assert records and all(len(x) == len(FEATURES) for r in records for x in r["x"])
    # Other bots play other deals, so other decisions come out.
    assert other.read_text() != plain.read_text()
    with pytest.raises(SystemExit):
        train_discards.main([*common, "--opponent", "nobody", "--out", str(tmp_path / "x.jsonl")])
