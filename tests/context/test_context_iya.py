"""Round 59: 「いや」 opening a sentence, with a comma or straight before what it says (「いや、…」,
「いや毎日は無理だわ、週3更新で」), is "no, …": a revision of what was said. All fourteen sentences of the
training and development data that open so revise something. A sigh or an exclamation (「いやー」「いやあ」)
and a dislike (「いやだ」) are no revision. The phrasings are written for these tests and are in neither the
training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import assert_set_anew, every_known_text

from mcpist.modules.context._features import REVISION, normalize

pytestmark = pytest.mark.anyio

NO = ["いや、やっぱ予算は6万までで", "いや週1回が限界やわ", "あ、いや、参加は12人です", "いやマジで3時間しか取れない"]
NOT_NO = ["いやー、助かりました", "いやあ、すごいですね", "いやだなあ、雨なんて", "嫌いやわ、そういうの"]
SESSIONS = [
    (
        "同人誌の頒布の準備をしたい。",
        "最初は80部刷るつもり。",
        "イベントは冬のやつ。",
        "いや、知り合いも来るし120部でいくわ",
        "80部",
        "120部",
    ),
    (
        "Zoomで読書会を開きたいです。",
        "時間は1時間で。",
        "課題本は毎回1冊。",
        "いや、感想長くなるし90分にしよ",
        "1時間",
        "90分",
    ),
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {*NO, *NOT_NO} | {t for s in SESSIONS for t in s[:4]}
    assert not texts & every_known_text()


@pytest.mark.parametrize("text", NO)
def test_iya_opening_a_sentence_revises(text: str) -> None:
    assert REVISION.search(normalize(text))


@pytest.mark.parametrize("text", NOT_NO)
def test_a_sigh_an_exclamation_or_a_dislike_revises_nothing(text: str) -> None:
    assert not REVISION.search(normalize(text))


@pytest.mark.parametrize("session", SESSIONS, ids=["copies", "length"])
async def test_what_follows_iya_replaces_what_was_said(ctx: Any, call: Any, session: tuple[str, ...]) -> None:
    await assert_set_anew(call, ctx, *session)
