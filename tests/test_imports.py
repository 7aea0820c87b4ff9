"""The engine's imports go one way: no module imports one that imports it, even inside a function."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

import chinchon

PACKAGE = Path(__file__).resolve().parent.parent / "chinchon"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that the file imports anywhere in it (a package's own ``__init__`` left out)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        found.update(name for name in names if name in known)
    return found


def graph(folders: list[Path]) -> dict[str, set[str]]:
    """Each module of these folders (a package by its ``__init__``) and the modules of the same folders it imports."""
    paths = [path for folder in folders for path in sorted(folder.glob("*.py"))]
    known = {_module_name(path) for path in paths}
    return {_module_name(path): imports_of(path, known) - {_module_name(path)} for path in paths}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for other in sorted(edges.get(module, ())):
            if state.get(other) == 1:
                return [*stack[stack.index(other) :], other]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(edges):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_imports_are_read_from_the_source(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("import x.y\n\ndef f():\n    from x import z\n", encoding="utf-8")
    assert imports_of(path, {"x.y", "x.z", "x.w"}) == {"x.y", "x.z"}


@pytest.mark.parametrize(
    "folders",
    [[PACKAGE, PACKAGE / "deal"], [PACKAGE, PACKAGE / "deal", PACKAGE / "bots"]],
    ids=["engine and front ends", "with the bots"],
)
def test_no_module_imports_one_that_imports_it(folders: list[Path]) -> None:
    edges = graph(folders)
    assert {"chinchon", "chinchon.deal", "chinchon.deal.hand", "chinchon.match", "chinchon.record"} <= edges.keys()
    assert cycle(edges) is None


def test_a_package_is_its_init() -> None:
    edges = graph([PACKAGE / "bots"])
    assert "chinchon.bots" in edges and "chinchon.bots.registry" in edges["chinchon.bots"]


def test_the_record_uses_no_private_name_of_the_match() -> None:
    tree = ast.parse((PACKAGE / "record.py").read_text(encoding="utf-8"))
    tree_format = ast.parse((PACKAGE / "record_format.py").read_text(encoding="utf-8"))
    for node in [*ast.walk(tree), *ast.walk(tree_format)]:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("chinchon"):
            assert not [alias.name for alias in node.names if alias.name.startswith("_")], node.module


def test_the_package_exports_the_engine() -> None:
    modules = {
        "chinchon.match": ["Match"],
        "chinchon.deal": ["Deal"],
        "chinchon.observation": ["Observation", "Phase", "DealResult", "TableMeld"],
        "chinchon.actions": ["Draw", "Discard", "Close", "Show", "LayOff", "Pass", "ReEnter", "IllegalAction"],
        "chinchon.melds": ["Arrangement", "best_arrangement", "closing_options"],
    }
    for module, names in modules.items():
        for name in names:
            assert getattr(chinchon, name) is getattr(importlib.import_module(module), name), name
            assert name in chinchon.__all__
    assert all(hasattr(chinchon, name) for name in chinchon.__all__)


def test_the_old_single_module_is_gone() -> None:
    assert importlib.util.find_spec("chinchon.game") is None
