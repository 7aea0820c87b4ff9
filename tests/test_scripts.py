"""The research scripts that read arena reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chinchon.arena import ArenaConfig, run_arena
from tests.scripts import load_script

compare_runs = load_script("compare_runs")


def _report(bots: tuple[str, ...], seed: int = 3, boards: int = 6) -> dict[str, Any]:
    document = run_arena(ArenaConfig(bots=bots, boards=boards, seed=seed), jobs=1).to_dict()
    assert isinstance(document, dict)
    return document


@pytest.mark.parametrize(
    ("up", "down", "p"), [(0, 0, 1.0), (5, 0, 0.0625), (0, 5, 0.0625), (3, 3, 1.0), (9, 1, 0.021484375)]
)
def test_sign_test_known_values(up: int, down: int, p: float) -> None:
    assert compare_runs.sign_test(up, down) == pytest.approx(p)


def test_a_changed_bot_changes_the_winners_of_some_matches_only() -> None:
    base = _report(("simple", "greedy"))
    noisy = _report(("simple:noise=0.1", "greedy"))
    result = compare_runs.compare(base, noisy)
    assert result.matches == 12
    assert result.first_wins == base["results"][0]["won"]
    assert result.second_wins == noisy["results"][0]["won"]
    assert result.second_wins - result.first_wins == result.gained - result.lost
    assert 0 < result.changed < result.matches
    assert compare_runs.compare(base, base).changed == 0


def test_runs_on_other_boards_are_refused() -> None:
    with pytest.raises(compare_runs.ComparisonError, match="seed"):
        compare_runs.compare(_report(("simple", "random"), seed=3), _report(("simple", "random"), seed=4))
    base = _report(("simple", "random"))
    forged = json.loads(json.dumps(base))
    forged["outcomes"][0]["decks"][0] = "0" * 12
    with pytest.raises(compare_runs.ComparisonError, match="dealt differently"):
        compare_runs.compare(base, forged)
    with pytest.raises(compare_runs.ComparisonError, match="position 2"):
        compare_runs.compare(base, base, position=2)


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(_report(("simple", "random"))), encoding="utf-8")
    second.write_text(json.dumps(_report(("random", "simple"))), encoding="utf-8")
    assert compare_runs.main([str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "12 matches in both runs" in out
    assert "simple won 12 in the first, random 0 in the second" in out
    assert "winner changed in 12: 0 to the second run's bot, 12 away" in out
    assert compare_runs.main([str(first), str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
