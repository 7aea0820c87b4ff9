"""No code outside the engine uses a name the engine keeps to itself (a leading underscore).

The engine's modules may use each other's private names; every other module
of the package, ``scripts/``, ``bench/`` and ``tests/`` uses the public,
documented API (the search interface included: ``Deal.tables``, ``held``,
``stock_ids``, ``redeal_ids``, ``Solver.best_single`` ...). The test walks each
file's syntax tree and refuses an attribute of an engine private name (``deal._t``,
``solver._best_cache``), one named in ``getattr``/``setattr``/``hasattr``, and an
import of one (``from chinchon.deal import _split``). ``self._x`` and ``cls._x``
are a class's own and are not refused.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chinchon"
ENGINE = {
    "actions",
    "cache",
    "cards",
    "chance",
    "deal",
    "errors",
    "events",
    "match",
    "melds",
    "observation",
    "record",
    "record_format",
    "rules",
    "showdown_search",
    "solver",
    "tables",
}
"""The engine's modules (a package's modules by its name, ``deal`` for ``chinchon/deal/*``): pure standard library,
and private among themselves."""


def engine_files() -> list[Path]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] in ENGINE:
            out.append(path)
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_identifier(text: str) -> bool:
    return text.isidentifier() and _private(text)


@cache
def engine_private_names() -> frozenset[str]:
    """Every private name the engine defines: module names, class members, slots and attributes it sets."""
    names: set[str] = set()
    for path in engine_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and _private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and _private(node.id):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
                names.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _private(node.target.id):
                names.add(node.target.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _private_identifier(node.value):
                # The names in __slots__ and those set with object.__setattr__.
                names.add(node.value)
    names.discard("_")
    return frozenset(names)


def private_uses(source: str, where: str, private: frozenset[str]) -> list[str]:
    """Each use of an engine private name in ``source``, as ``where:line: text``."""
    out = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        found = None
        if isinstance(node, ast.Attribute) and node.attr in private:
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found = ast.unparse(node)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "chinchon":
            module = node.module.split(".")
            if len(module) > 1 and module[1] in ENGINE:
                found = ", ".join(alias.name for alias in node.names if _private(alias.name)) or None
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in private
        ):
            found = ast.unparse(node)
        if found:
            out.append(f"{where}:{getattr(node, 'lineno', 0)}: {found}")
    return out


def outside_files() -> list[Path]:
    engine = set(engine_files())
    files = [path for path in sorted(PACKAGE.rglob("*.py")) if path not in engine]
    for folder in ("scripts", "bench", "tests", "examples"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def test_the_engine_defines_private_names_the_test_knows() -> None:
    private = engine_private_names()
    assert {"_t", "_stock", "_m1", "_clean", "_jk", "_best_cache", "_code", "_check", "_BY_VALUE"} <= private
    assert "_" not in private and "__init__" not in private


def test_no_module_outside_the_engine_uses_its_private_names() -> None:
    private = engine_private_names()
    uses = []
    for path in outside_files():
        uses += private_uses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), private)
    assert len(outside_files()) > 80
    assert uses == []


PLANTED = [
    ("deal._t.solver", "deal._t"),
    ("x = match.deal._stock[-1]", "match.deal._stock"),
    ("solver_for(rules)._best_cache.clear()", "solver_for(rules)._best_cache"),
    ("from chinchon.deal import _split", "_split"),
    ("from chinchon.melds import Solver, _disjoint_packings", "_disjoint_packings"),
    ("tables = getattr(deal, '_t', None)", "getattr(deal, '_t', None)"),
    ("setattr(deal, '_kept', 3)", "setattr(deal, '_kept', 3)"),
]


@pytest.mark.parametrize(("source", "found"), PLANTED)
def test_a_planted_private_access_is_caught(source: str, found: str) -> None:
    uses = private_uses(source, "planted.py", engine_private_names())
    assert len(uses) == 1 and uses[0].endswith(found), uses


@pytest.mark.parametrize(
    "source",
    [
        "self._t = 1",
        "cls._stock = []",
        "deal.tables.solver",
        "from chinchon.i18n import _",
        "from chinchon.tui.session import _MELD",
        "os._exit(0)",
        "getattr(deal, 'tables')",
    ],
)
def test_public_names_and_a_class_s_own_private_ones_pass(source: str) -> None:
    assert private_uses(source, "fine.py", engine_private_names()) == []
