"""Loading the repository's scripts (``scripts/*.py``, ``bench/*.py``) in tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(name: str, folder: str = "scripts") -> ModuleType:
    """The script ``FOLDER/NAME.py`` as a module (named ``NAME``, or ``FOLDER_NAME`` outside ``scripts``)."""
    path = Path(__file__).resolve().parent.parent / folder / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name if folder == "scripts" else f"{folder}_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Its dataclasses look their module up by name.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
