"""Language detection, sentence splitting and content-term extraction (Japanese and English)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

Language = Literal["ja", "en"]

_KANA = re.compile(r"[\u3040-\u30ff\uff66-\uff9f]")
_CJK = re.compile(r"[\u3400-\u9fff]")
# a full stop ends an English sentence, but not in a title or an abbreviation ("Ms. Patel", "e.g. wool") nor in
# "No. 1" (a goal that names "Chopin's Ballade No. 1" is one sentence)
_SENTENCE_END = re.compile(
    r"(?<=[。\uff01\uff1f!?\n])"
    r"|(?<=\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bMrs\.)(?<!\bvs\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bNo\.)\s+"
    r"|(?<=\bNo\.)\s+(?!\d)"
)
_EN_WORD = re.compile(r"[a-z][a-z0-9+#]*(?:[-'.][a-z0-9+#]+)*")
_MAX_TERM = 64


def _word_list(name: str) -> frozenset[str]:
    text = (Path(__file__).parent / name).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


JA_STOP_WORDS = _word_list("stopwords_ja.txt")
EN_STOP_WORDS = _word_list("stopwords_en.txt")

_JA_KEEP_POS = {("名詞", "普通名詞"), ("名詞", "固有名詞"), ("形状詞", "一般")}


def detect_language(text: str) -> Language:
    """Japanese when the text has kana, or kanji without any Latin letters; English otherwise."""
    if _KANA.search(text):
        return "ja"
    if _CJK.search(text) and not re.search(r"[A-Za-z]", text):
        return "ja"
    return "en"


def split_sentences(text: str) -> list[str]:
    parts = (p.strip() for p in _SENTENCE_END.split(text))
    return [p for p in parts if p]


_JA_CONTENT = re.compile(r"[\u3400-\u9fff\u30a1-\u30fa\u30fc]")  # kanji and katakana carry a Japanese text's content


def content_words(text: str, language: Language) -> int:
    """How much a text says, without the tokenizer (cheap, for a sentence): English words of three letters
    or more that are not stop words, or Japanese kanji and katakana characters (「おつかれ〜」 0,
    「今日めっちゃ寒いね」 3)."""
    t = unicodedata.normalize("NFKC", text)
    if language == "ja":
        return len(_JA_CONTENT.findall(t))
    return sum(1 for w in _EN_WORD.findall(t.lower()) if len(w) >= 3 and w not in EN_STOP_WORDS)


def _fold_plural(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def english_terms(text: str) -> list[str]:
    words = _EN_WORD.findall(unicodedata.normalize("NFKC", text).lower())
    out = []
    for word in words:
        word = word.strip("'.")
        if len(word) < 2 or word in EN_STOP_WORDS:
            continue
        term = _fold_plural(word)
        if term not in EN_STOP_WORDS:
            out.append(term[:_MAX_TERM])
    return out


class Tokenizer:
    """Content terms of a message: Sudachi nouns for Japanese, words for English, stop words removed."""

    def __init__(self, sudachi: Any) -> None:
        self._sudachi = sudachi

    @classmethod
    def load(cls) -> Tokenizer:
        """Load the SudachiDict core dictionary shipped as a package (no download).

        Raises:
            ImportError: sudachipy or sudachidict-core is not installed.
        """
        from sudachipy import Dictionary, SplitMode

        return cls(Dictionary(dict="core").tokenizer(SplitMode.C))

    def terms(self, text: str, language: Language | None = None) -> list[str]:
        """Content terms in order of appearance, with repeats (the TF counts them)."""
        if (language or detect_language(text)) == "en":
            return english_terms(text)
        return list(self._japanese_terms(unicodedata.normalize("NFKC", text)))

    def _japanese_terms(self, text: str) -> Iterable[str]:
        after_number = False
        for morpheme in self._sudachi.tokenize(text):
            pos = morpheme.part_of_speech()
            # the counter after a number (10「分」, 20「名」) says nothing on its own
            counter, after_number = after_number, pos[1] == "数詞"
            if (pos[0], pos[1]) not in _JA_KEEP_POS or counter:
                continue
            surface: str = morpheme.surface()
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9+#.\-']*", surface):
                word = surface.lower()
                if len(word) >= 2 and word not in EN_STOP_WORDS:
                    yield _fold_plural(word)[:_MAX_TERM]
                continue
            if len(surface) == 1 and _KANA.fullmatch(surface):
                continue
            term: str = morpheme.normalized_form()
            if term in JA_STOP_WORDS or surface in JA_STOP_WORDS or not term.strip():
                continue
            yield term[:_MAX_TERM]
