"""Keyword terms for Japanese and English text, the same for indexing and for queries.

Japanese runs are split into words by SudachiPy (mode C, plus the mode A parts of compound
words, so 期限 finds 提出期限), normalised (ｽﾏﾎ -> スマホ); particles, auxiliaries and
punctuation are dropped. Latin-script words are case-folded and Snowball-stemmed. Every term
is a run of letters and digits only, so it can be written into a tsquery or tsvector literal
without escaping.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable

import snowballstemmer
from sudachipy import Dictionary, SplitMode

_WORD = re.compile(r"[^\W_]+")
_LATIN = re.compile(r"^[\u0000-\u024f]+$")
_SKIP_POS = {"助詞", "助動詞", "補助記号", "空白", "記号"}
_EN_STOP = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    )
)
MAX_TERM_CHARS = 64


class Analyzer:
    """Turns text into search terms; safe to share between threads."""

    def __init__(self) -> None:
        self._dictionary = Dictionary(dict="core")
        self._local = threading.local()

    def _tokenizer(self) -> object:
        tok = getattr(self._local, "tokenizer", None)
        if tok is None:
            tok = self._dictionary.tokenizer(mode=SplitMode.C)
            self._local.tokenizer = tok
            self._local.stemmer = snowballstemmer.stemmer("english")
        return tok

    def terms(self, text: str) -> list[str]:
        """All terms of `text` in order, with repeats (term frequency matters to BM25)."""
        text = unicodedata.normalize("NFKC", text)
        tokenizer = self._tokenizer()
        stemmer = self._local.stemmer
        out: list[str] = []
        # Sudachi refuses inputs over ~49 KB; split on line breaks first and chunk long lines.
        for chunk in _chunks(text, 4000):
            for m in tokenizer.tokenize(chunk):  # type: ignore[attr-defined]
                surface: str = m.surface()
                if m.part_of_speech()[0] in _SKIP_POS or not surface.strip():
                    continue
                if _LATIN.match(surface):
                    for word in _WORD.findall(surface.casefold()):
                        if word in _EN_STOP:
                            continue
                        out.append(stemmer.stemWord(word) if word.isascii() and word.isalpha() else word)
                    continue
                out.extend(_words(m.normalized_form()))
                parts = m.split(SplitMode.A)
                if len(parts) > 1:
                    for part in parts:
                        if part.part_of_speech()[0] not in _SKIP_POS:
                            out.extend(_words(part.normalized_form()))
        return [t[:MAX_TERM_CHARS] for t in out]

    def query_terms(self, text: str) -> list[str]:
        """Distinct terms of a query, in first-seen order."""
        return list(dict.fromkeys(self.terms(text)))


def _words(text: str) -> Iterable[str]:
    return _WORD.findall(text.casefold())


def _chunks(text: str, size: int) -> Iterable[str]:
    for line in text.splitlines():
        while len(line) > size:
            cut = max(line.rfind(" ", 0, size), line.rfind("。", 0, size))
            cut = cut + 1 if cut > size // 2 else size
            yield line[:cut]
            line = line[cut:]
        if line:
            yield line
