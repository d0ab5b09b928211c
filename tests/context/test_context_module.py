"""Module `context` as the server sees it: metadata, schemas, tokenizer and keyword scores."""

from __future__ import annotations

import math

import pytest

import mcpist.modules.context as context
from mcpist.modules.context import module
from mcpist.modules.context._rules import classify
from mcpist.modules.context._text import Tokenizer, detect_language, english_terms, split_sentences
from mcpist.modules.context._tfidf import keywords
from mcpist.modules.registry import Registry


def test_the_module_declares_its_tools_and_schemas() -> None:
    assert context.__all__ == ["ContextSettings", "ContextState", "EndpointSettings", "module"]
    assert module.name == "context" and len(module.summary) <= 60
    assert module.migrations is not None and (module.migrations / "context_0001_sessions.py").is_file()
    assert (module.migrations / "context_0002_explained_items.py").is_file()
    registry = Registry([module])
    tools = {t.spec.name: t.definition() for t in registry.tools("context")}
    assert sorted(tools) == sorted(
        [
            "start_session",
            "add_turn",
            "record_response",
            "respond",
            "get_context",
            "get_prompt",
            "list_sessions",
            "end_session",
            "drop_item",
            "pin_item",
        ]
    )
    read_only = {name for name, d in tools.items() if d["annotations"]["readOnlyHint"]}
    assert read_only == {"get_context", "get_prompt", "list_sessions"}
    assert tools["end_session"]["annotations"]["destructiveHint"] is True
    for name in ("drop_item", "pin_item"):
        # reversible writes: a dropped item stays listed and pin_item restores it
        annotations = tools[name]["annotations"]
        assert not annotations["destructiveHint"] and annotations["idempotentHint"]
        assert tools[name]["inputSchema"]["properties"]["item_id"]["pattern"] == "^[0-9a-f]{32}$"
    add_turn = tools["add_turn"]
    assert add_turn["inputSchema"]["required"] == ["session_id", "message"]
    assert add_turn["inputSchema"]["properties"]["message"]["description"]
    assert "classification" in add_turn["outputSchema"]["properties"]


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return Tokenizer.load()


def test_japanese_is_tokenized_into_content_words(tokenizer: Tokenizer) -> None:
    assert tokenizer.terms("利用するモデルはオープンソースのものに限定してほしい。") == [
        "利用",
        "モデル",
        "オープンソース",
        "限定",
    ]
    # counters after numbers and general words are no keywords
    assert tokenizer.terms("駅から徒歩10分以内のことです") == ["駅", "徒歩"]
    assert tokenizer.terms("PythonとDjangoで作る") == ["python", "django"]


def test_english_is_split_into_words_without_stop_words() -> None:
    assert english_terms("I'd like to learn Rust so I can write faster command-line tools.") == [
        "learn",
        "rust",
        "write",
        "faster",
        "command-line",
        "tool",
    ]


def test_language_and_sentences() -> None:
    assert detect_language("予算は30万円") == "ja" and detect_language("東京") == "ja"
    assert detect_language("Budget: $3k") == "en" and detect_language("Use 東京 as the city") == "en"
    assert split_sentences("いいね。ただし、限定して\uff01 OK? Yes. Done") == [
        "いいね。",
        "ただし、限定して\uff01",
        "OK?",
        "Yes.",
        "Done",
    ]


def test_tfidf_prefers_words_rare_in_the_corpus() -> None:
    ranked = keywords(["python", "django", "python"], {"python": 10, "django": 1}, 10, 5)
    assert [term for term, _ in ranked] == ["django", "python"]
    # the smoothed idf of a term in every document is 1, so tf alone decides
    assert ranked[1][1] == pytest.approx(round(2 / 3 * (math.log(11 / 11) + 1), 4))
    assert keywords([], {}, 0, 5) == [] and keywords(["a"], {"a": 1}, 1, 0) == []


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("AIで議事録を自動要約したいんだけど、何かいい方法ある\uff1f", ["PROBLEM_DEFINITION", "QUESTION"]),
        ("いいね。ただし、利用するモデルはオープンソースのものに限定してほしい。", ["CONSTRAINT_ADDITION"]),
        ("やっぱり予算は50万円で", ["REFINEMENT"]),
        ("I want to build a dashboard. What stack do you suggest?", ["PROBLEM_DEFINITION", "QUESTION"]),
        ("It must run offline.", ["CONSTRAINT_ADDITION"]),
        ("Actually, make it $5k.", ["REFINEMENT"]),
        ("ok", ["UNCLEAR"]),
    ],
)
def test_rule_classifier_examples(message: str, intent: list[str]) -> None:
    result = classify(message)
    assert result.intent == intent and result.reason
