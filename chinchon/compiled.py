"""Which of the package's modules run compiled: the optional build made with ``CHINCHON_COMPILE=1``.

>>> isinstance(compiled_modules(), tuple)
True
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

__all__ = ["compiled_modules"]

PACKAGE = Path(__file__).resolve().parent


def compiled_modules() -> tuple[str, ...]:
    """The names of the package's modules that have a compiled form beside their source (none by default).

    Python imports the compiled form of such a module (``chinchon.deal`` for ``chinchon/deal/__init__.py``).
    """
    names = []
    for source in sorted(PACKAGE.rglob("*.py")):
        if any(source.with_name(source.stem + suffix).exists() for suffix in EXTENSION_SUFFIXES):
            parts = source.relative_to(PACKAGE.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return tuple(names)
