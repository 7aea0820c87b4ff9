"""``--json`` means the same in every command: a switch that prints one JSON document on standard output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from chinchon import Rules
from chinchon.cli import app
from tests.test_cli import run
from tests.test_record import play

pytestmark = pytest.mark.usefixtures("english")


def _commands() -> dict[str, Any]:
    """The commands of ``chinchon`` by name (Typer's Click objects: read by their attributes)."""
    return dict(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_every_json_option_is_a_switch_that_prints() -> None:
    with_json = {}
    for name, command in _commands().items():
        for parameter in command.params:
            if "--json" in getattr(parameter, "opts", ()):
                with_json[name] = parameter
    assert set(with_json) == {"solve", "arena", "rules", "replay", "bench", "analyze"}
    for name, parameter in with_json.items():
        assert parameter.is_flag, f"chinchon {name} --json takes a value"
        assert "Print" in (parameter.help or ""), f"chinchon {name} --json does not say it prints"


def test_arena_json_prints_the_report_alone_and_output_writes_the_same(tmp_path: Path) -> None:
    args = ("arena", "--bots", "simple,random", "--hands", "2", "--seed", "4")
    printed = run(*args, "--json")
    assert printed.exit_code == 0, printed.stderr
    document = json.loads(printed.stdout)  # nothing but the document on standard output
    assert document["arguments"]["json"] is True and document["seed"] == 4
    assert "hands" in printed.stderr  # the progress went to standard error
    path = tmp_path / "report.json"
    written = run(*args, "--output", str(path))
    assert written.exit_code == 0, written.stderr
    assert "Report written to" in written.stdout and "points per hand" in written.stdout
    again = json.loads(path.read_text("utf-8"))
    assert again["outcomes"] == document["outcomes"]


def test_arena_json_with_a_bad_output_plays_nothing(tmp_path: Path) -> None:
    result = run(
        "arena", "--bots", "simple,random", "--hands", "2", "--json", "--output", str(tmp_path / "no" / "r.json")
    )
    assert result.exit_code != 0
    assert "cannot write" in result.stderr and result.stdout == ""


@pytest.mark.parametrize(
    ("preset", "options"), [("fournier", []), ("polaco", ["limit=80"]), ("clasico", ["wild_ace_of_oros=true"])]
)
def test_rules_json_gives_back_the_same_rules(preset: str, options: list[str]) -> None:
    result = run("rules", preset, *(f"--rule={text}" for text in options), "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    chosen = Rules.from_text(preset, options)
    assert Rules.from_dict(document["rules"]) == chosen
    assert Rules.from_text(document["preset"], document["options"]) == chosen
    assert (document["preset"], document["options"]) == (preset, options)


def test_replay_json_prints_the_record_it_replayed(tmp_path: Path) -> None:
    match = play(Rules(), 2, 5)
    assert match.over
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match.record()), encoding="utf-8")
    result = run("replay", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(json.dumps(match.record()))
    broken = tmp_path / "broken.json"
    events = [*match.record()["log"], {"bogus": 1}]
    broken.write_text(json.dumps({**match.record(), "log": events}), encoding="utf-8")
    refused = run("replay", str(broken), "--json")
    assert refused.exit_code != 0 and refused.stdout == ""


def test_bench_json_prints_every_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    from chinchon import benchmark

    def measured(seconds: float) -> Iterator[tuple[str, float, str]]:
        for number in range(3):
            yield (f"figure {number}", number + 0.5, "x/s")

    monkeypatch.setattr(benchmark, "measure_figures", measured)
    monkeypatch.setattr("chinchon.env.env_steps_per_second", lambda players, seconds: 10.0 * players)
    result = run("bench", "--seconds", "0.01", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["seconds"] == 0.01
    figures = [(f["figure"], f["value"], f["unit"]) for f in document["figures"]]
    assert figures[:3] == [("figure 0", 0.5, "x/s"), ("figure 1", 1.5, "x/s"), ("figure 2", 2.5, "x/s")]
    assert [value for _name, value, _unit in figures[3:]] == [20.0, 40.0]
