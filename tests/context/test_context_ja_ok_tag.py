"""Round 56: a Japanese statement with a question whether it is all right joined on by 「けど」「ですが」 and no
comma (「自転車は持っていないけど大丈夫かな」, 「予算は2万円までなんですが問題ないでしょうか」) is the statement and
the question, as it is with a comma (round 29), so its condition is kept; 「雨だけど大丈夫?」 is too short to state
anything. The phrasings are written for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play, stated

from mcpist.modules.context._reading import sentences_of

pytestmark = pytest.mark.anyio

SPLIT = [
    ("自転車は持っていないけど大丈夫かな", "自転車は持っていないけど、", "大丈夫かな"),
    ("予算は2万円までなんですが問題ないでしょうか", "予算は2万円までなんですが、", "問題ないでしょうか"),
    ("集合は朝6時になりますけど間に合いますか?", "集合は朝6時になりますけど、", "間に合いますか?"),
]
WHOLE = ["雨だけど大丈夫?", "大丈夫かな", "これで問題ないでしょうか"]
SESSION = (
    "週末に家族でキャンプに行く計画を一緒に立ててほしいです。",
    "場所は長野の湖のそばを考えています。",
    "テントは持っていないけど大丈夫かな",
)


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {t for t, _, _ in SPLIT} | set(WHOLE) | set(SESSION)
    assert not texts & every_known_text()


@pytest.mark.parametrize(("text", "statement", "question"), SPLIT)
def test_the_statement_and_the_question_are_two_sentences(text: str, statement: str, question: str) -> None:
    assert sentences_of(text) == [statement, question]


@pytest.mark.parametrize("text", WHOLE)
def test_a_question_alone_stays_whole(text: str) -> None:
    assert sentences_of(text) == [text]


async def test_the_statement_is_kept_as_a_condition(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, *SESSION)
    assert "テントは持っていない" in stated(last), last["prompt"]
