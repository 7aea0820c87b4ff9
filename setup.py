"""An optional compiled build: ``CHINCHON_COMPILE=1`` compiles the engine's hot modules with mypyc.

Without it (the default) the package is pure Python. The sources are the
same either way; see docs/rl.md, "A compiled build".
"""

from __future__ import annotations

import os

from setuptools import setup

# The modules a match's moves, the observation vector and the vector environment run through.
COMPILED = [
    "chinchon/tables.py",
    "chinchon/solver.py",
    "chinchon/deal/__init__.py",
    "chinchon/deal/deck.py",
    "chinchon/deal/hand.py",
    "chinchon/deal/showdown.py",
    "chinchon/env.py",
    "chinchon/vector_env.py",
]

ext_modules = []
if os.environ.get("CHINCHON_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
