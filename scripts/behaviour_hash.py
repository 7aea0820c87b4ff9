"""Digests of the engine's behaviour, to compare two versions of it: equal digests, same behaviour.

For every preset and a set of house-rule options on top of each, plays
seeded random matches through the public API (hashing every legal-action
list, every action, every seat's observation, every deal result and the
final record's JSON) and seeded random deals through the integer fast path
(``Deal.moves``/``Deal.play``, hashing every move list, the hands, the pile
and the result). Prints one digest per variant and one over all of them.

Run: ``python scripts/behaviour_hash.py [--matches N] [--deals N] [--out PATH]``;
run it on two checkouts and compare the output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon import Deal, Match, Phase, Rules, RulesError

OPTIONS: list[dict[str, Any]] = [
    {},
    {"jokers": 2},
    {"jokers": 2, "wild_floats": True},
    {"wild_ace_of_oros": True},
    {"decks": 2},
    {"decks": 2, "jokers": 2, "layoff_one_per_run_per_round": True},
    {"max_reshuffles": 0},
    {"max_reshuffles": None},
    {"score_floor": 0},
    {"layoff_passes": 1},
    {"chinchon_sets": True},
    {"forbid_rediscard": True},
    {"closer_lays_off": True},
    {"close_on_first_turn": False},
    {"layoffs": False},
    {"layoffs_on_clean_close": True},
    {"close_max_loose_cards": 1},
    {"chinchon": "win"},
    {"reentry": "once", "limit": 50},
    {"first_player": "high_card"},
    {"set_distinct_suits": False, "max_set_size": 4},
]
"""House-rule options played on top of every preset (a combination a preset refuses is skipped)."""

MAX_ACTIONS = 400
"""A match is cut off after this many actions (its record so far is still hashed)."""


def _match_digest(rules: Rules, players: int, seed: int) -> str:
    digest = hashlib.sha256()
    match = Match(players, rules, seed=seed)
    rng = random.Random(seed)
    results = 0
    for _ in range(MAX_ACTIONS):
        if match.over:
            break
        legal = match.legal_actions()
        digest.update(repr(legal).encode())
        for seat in range(players):
            digest.update(repr(match.observation(seat)).encode())
        action = rng.choice(legal)
        digest.update(repr(action).encode())
        if rng.random() < 0.3 and match.deal.phase is Phase.SHOWDOWN:
            match.resolve_showdown()
        else:
            match.apply(action, seat=match.to_move)
        while results < len(match.results):
            digest.update(repr(match.results[results]).encode())
            results += 1
    digest.update(json.dumps(match.record(), sort_keys=True).encode())
    return digest.hexdigest()


def _deal_digest(rules: Rules, players: int, seed: int) -> str:
    digest = hashlib.sha256()
    rng = random.Random(seed)
    deal = Deal.new(rules, players, first=seed % players, rng=random.Random(seed))
    while deal.phase is not Phase.OVER:
        if deal.phase is Phase.SHOWDOWN:
            deal.resolve_showdown()
            continue
        moves = deal.moves()
        digest.update(repr(moves).encode())
        move = rng.choice(moves)
        if rng.random() < 0.1:
            # A copy plays on alone: the original must not see its moves.
            other = deal.copy(history=rng.random() < 0.5)
            other.play(move)
            digest.update(repr(other.moves()).encode())
        deal.play(move)
        for seat in range(players):
            digest.update(repr(deal.masks(seat)).encode())
        digest.update(repr(deal.pile_ids).encode())
    digest.update(repr(deal.result).encode())
    digest.update(repr(deal.history).encode())
    return digest.hexdigest()


def variants() -> list[tuple[str, Rules, int]]:
    """Every (name, rules, players) played: each preset with each set of options, with 2 and 3 players."""
    out = []
    for preset in Rules.presets():
        for options in OPTIONS:
            try:
                rules = Rules.preset(preset, **options)
            except RulesError:
                continue
            for players in (2, 3):
                name = f"{preset} {json.dumps(options, sort_keys=True)} players={players}"
                out.append((name, rules, players))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=6, help="matches per variant (default 6)")
    parser.add_argument("--deals", type=int, default=40, help="fast-path deals per variant (default 40)")
    parser.add_argument("--out", help="also write the digests to this file")
    args = parser.parse_args()
    total = hashlib.sha256()
    lines = []
    for name, rules, players in variants():
        digest = hashlib.sha256()
        for seed in range(args.matches):
            digest.update(_match_digest(rules, players, seed).encode())
        for seed in range(args.deals):
            digest.update(_deal_digest(rules, players, seed).encode())
        line = f"{digest.hexdigest()[:16]}  {name}"
        lines.append(line)
        total.update(line.encode())
        print(line, flush=True)
    summary = f"{total.hexdigest()}  all {len(lines)} variants, {args.matches} matches and {args.deals} deals each"
    lines.append(summary)
    print(summary)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
