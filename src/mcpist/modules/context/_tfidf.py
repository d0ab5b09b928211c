"""TF-IDF keyword scores (seed 004 §4.3): TF within one message, IDF over the user's corpus."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence


def idf(df: int, n_docs: int) -> float:
    # smoothed as in scikit-learn: a term in every document still weighs 1, never 0 or negative
    return math.log((1 + n_docs) / (1 + df)) + 1.0


def keywords(terms: Sequence[str], df: Mapping[str, int], n_docs: int, limit: int) -> list[tuple[str, float]]:
    """The `limit` terms with the highest TF-IDF, ties broken by first appearance.

    `df` and `n_docs` must already count the message itself.
    """
    if not terms or limit <= 0:
        return []
    counts = Counter(terms)
    first = {term: i for i, term in reversed(list(enumerate(terms)))}
    total = len(terms)
    scored = [(term, (count / total) * idf(df.get(term, 1), n_docs)) for term, count in counts.items()]
    scored.sort(key=lambda pair: (-pair[1], first[pair[0]]))
    return [(term, round(score, 4)) for term, score in scored[:limit]]
