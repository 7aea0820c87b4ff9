"""Fitted regression trees, evaluated in plain Python: the learned part of the ``greedy`` bot.

A model is a JSON object ``{"features": [names], "baseline": x, "trees": [...]}``;
each tree holds parallel lists ``feature``, ``threshold``, ``left``, ``right``
and ``value`` indexed by node, node 0 the root. A node whose feature is -1 is
a leaf; otherwise a row goes left when its feature is at most the threshold.
The prediction is the baseline plus one leaf value from each tree (the form
of scikit-learn's gradient boosting, which ``scripts/train_discards.py``
exports).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources

from chinchon.files import read_text

__all__ = ["Trees", "load_model", "read_model"]

_Tree = tuple[list[int], list[float], list[int], list[int], list[float]]


class Trees:
    """A sum of regression trees over rows of numbers."""

    def __init__(self, data: Mapping[str, object]) -> None:
        """Builds the model from its JSON form.

        Raises:
            ValueError: the data is not a well-formed model; the message says what is wrong.
        """
        features = data.get("features")
        baseline = data.get("baseline")
        trees = data.get("trees")
        if not isinstance(features, list) or not all(isinstance(name, str) for name in features):
            raise ValueError("a tree model needs a list of feature names")
        if not isinstance(baseline, int | float) or not isinstance(trees, list):
            raise ValueError("a tree model needs a numeric baseline and a list of trees")
        self.features: tuple[str, ...] = tuple(features)
        self.baseline = float(baseline)
        self.trees: list[_Tree] = [self._tree(tree, k) for k, tree in enumerate(trees)]

    def _tree(self, tree: object, k: int) -> _Tree:
        if not isinstance(tree, dict):
            raise ValueError(f"tree {k} is not an object")
        try:
            feature = [int(x) for x in tree["feature"]]
            threshold = [float(x) for x in tree["threshold"]]
            left = [int(x) for x in tree["left"]]
            right = [int(x) for x in tree["right"]]
            value = [float(x) for x in tree["value"]]
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"tree {k} is malformed: {error!r}") from None
        size = len(feature)
        if not size or any(len(part) != size for part in (threshold, left, right, value)):
            raise ValueError(f"tree {k}: its node lists differ in length or are empty")
        for node in range(size):
            if feature[node] >= len(self.features) or feature[node] < -1:
                raise ValueError(f"tree {k}, node {node}: no feature {feature[node]}")
            # Children come after their parent, so every walk ends at a leaf.
            if feature[node] >= 0 and not (node < left[node] < size and node < right[node] < size):
                raise ValueError(f"tree {k}, node {node}: a child outside the tree")
        return feature, threshold, left, right, value

    def predict(self, row: Sequence[float]) -> float:
        """The model's value for one row of features, in the order of :attr:`features`.

        Raises:
            ValueError: the row has the wrong number of features.
        """
        if len(row) != len(self.features):
            raise ValueError(f"a row needs {len(self.features)} features, not {len(row)}")
        total = self.baseline
        for feature, threshold, left, right, value in self.trees:
            node = 0
            while feature[node] >= 0:
                node = left[node] if row[feature[node]] <= threshold[node] else right[node]
            total += value[node]
        return total


@cache
def load_model(name: str) -> Trees:
    """A model shipped with the package (``chinchon/bots/NAME.json``), read once."""
    return _parse(resources.files("chinchon.bots").joinpath(f"{name}.json").read_text(encoding="utf-8"))


@cache
def read_model(path: str) -> Trees:
    """A model in a JSON file (what ``scripts/train_discards.py fit`` writes), read once per process.

    Raises:
        OSError: the file cannot be read, is not a regular file or is too large (see chinchon.files).
        ValueError: the file is not a well-formed model (not UTF-8 included); the message says what is wrong.
    """
    return _parse(read_text(path))


def _parse(text: str) -> Trees:
    """The model in ``text``, the JSON form described above.

    Raises:
        ValueError: the text is not a well-formed model.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error})") from None
    except RecursionError:
        raise ValueError("not JSON (nested too deep)") from None
    if not isinstance(data, dict):
        raise ValueError("a tree model is a JSON object")
    return Trees(data)
