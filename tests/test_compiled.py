"""The optional compiled build (``CHINCHON_COMPILE=1``): what it compiles, and what must hold in both builds."""

from __future__ import annotations

import ast
import copy
import os
import pickle
import random
from pathlib import Path

import pytest

from chinchon import Deal, Match, Rules
from chinchon.compiled import compiled_modules

ROOT = Path(__file__).resolve().parent.parent


def setup_modules() -> tuple[str, ...]:
    """The modules setup.py compiles, as module names."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    paths = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets)
    )
    names = []
    for path in paths:
        parts = Path(path).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return tuple(sorted(names))


def test_the_modules_run_compiled_exactly_in_the_compiled_build() -> None:
    # A compiled module left beside a source that changed would shadow the change: none outside that build.
    expected = setup_modules() if os.environ.get("CHINCHON_COMPILE") == "1" else ()
    assert tuple(sorted(compiled_modules())) == expected
    assert "chinchon.deal" in setup_modules() and "chinchon.vector_env" in setup_modules()


def played(seed: int, actions: int) -> Match:
    rng = random.Random(seed)
    match = Match(2, Rules.preset("fournier"), seed=seed)
    for _ in range(actions):
        match.apply(rng.choice(match.legal_actions()))
    return match


@pytest.mark.parametrize(
    "duplicate", [copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))], ids=["deepcopy", "pickle"]
)
def test_a_match_copies_and_pickles_into_an_equal_and_independent_match(duplicate: object) -> None:
    match = played(3, 9)
    other = duplicate(match)  # type: ignore[operator]
    assert other.deal is not match.deal
    for seat in (0, 1):
        assert other.observation(seat) == match.observation(seat)
    assert other.events() == match.events()
    rng = random.Random(4)
    action = rng.choice(match.legal_actions())
    other.apply(action)
    assert len(other.events()) > len(match.events())
    match.apply(action)
    assert other.observation(0) == match.observation(0) and other.events() == match.events()


def test_a_deal_is_built_only_by_its_constructors() -> None:
    with pytest.raises(TypeError, match=r"Deal\.new"):
        Deal()
    with pytest.raises(TypeError, match=r"Deal\.new"):
        Deal(object())
