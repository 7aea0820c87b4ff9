"""An optional compiled build: ``CHINCHON_COMPILE=1`` compiles the engine's hot modules with mypyc.

Without it (the default) the package is pure Python. The sources are the
same either way; see docs/rl.md, "A compiled build".
"""

from __future__ import annotations

import importlib.util
import os

from setuptools import setup

# The modules a match's moves, the observation vector and the vector environment run through.
COMPILED = [
    "chinchon/tables.py",
    "chinchon/match.py",
    "chinchon/solver.py",
    "chinchon/melds.py",
    "chinchon/showdown_search.py",
    "chinchon/deal/__init__.py",
    "chinchon/deal/deck.py",
    "chinchon/deal/hand.py",
    "chinchon/deal/showdown.py",
    "chinchon/env.py",
    "chinchon/vector_env.py",
]

ext_modules = []
if os.environ.get("CHINCHON_COMPILE") == "1":
    # mypyc type-checks what it compiles: the environments' libraries must be importable at build time.
    missing = [name for name in ("mypy", "numpy", "gymnasium", "pettingzoo") if importlib.util.find_spec(name) is None]
    if missing:
        raise SystemExit(
            f"CHINCHON_COMPILE=1 needs {', '.join(missing)} installed before the build: "
            "pip install mypy 'setuptools>=77' numpy gymnasium pettingzoo, then "
            "CHINCHON_COMPILE=1 pip install --no-build-isolation '.[rl]'"
        )
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
