"""Round 58: an amount found on looking, asking, counting or redoing something (「規定を見たら3万字以上でした」,
「集計し直したところ、398万円でした」, 「在庫数えたら50点あった」) revises what was said of it, as 「確認したら…」 and
「数え直したら…」 did before, whatever the verb. Not when nothing amounts to a value (「回覧したところ、好評でした」:
a reaction), nor when it is asked (「先生に聞いたら3日でOKだった?」) or a question how to (「どうやったら…」). The
phrasings are written for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import assert_set_anew, every_known_text

from mcpist.modules.context._features import REVISION, normalize

pytestmark = pytest.mark.anyio

FOUND = [
    "業者に見積もりを頼んだら145万円でした。",
    "名簿を数えたら31人いました",
    "ガイドラインを読んだところ、上限は8ページでした",
    "カレンダー見たら10月12日だった",
]
NOT_FOUND = [
    "課長に見せたところ、とても好評でした。",
    "先生に聞いたら3日でOKだった\uff1f",
    "どうやったら3日で終わりますか",
    "どうやったら3人で回せるか、ずっと悩んでいました",
    "雨だったら10時に集合です",
]
SESSIONS = [
    (
        "市の補助金の申請書を書くのを手伝ってください。",
        "事業費は120万円くらいの見込みです。",
        "申請は商工会経由で出します。",
        "業者に見積もりを頼んだら145万円でした。",
        "120万円",
        "145万円",
    ),
    (
        "町内会の防災訓練の段取りを考えたいです。",
        "参加者は25人の予定です。",
        "会場は公民館の駐車場です。",
        "回覧板の名簿を数えたら31人いました。",
        "25人",
        "31人",
    ),
]


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {*FOUND, *NOT_FOUND} | {t for s in SESSIONS for t in s[:4]}
    assert not texts & every_known_text()


@pytest.mark.parametrize("text", FOUND)
def test_an_amount_found_on_checking_is_a_revision(text: str) -> None:
    assert REVISION.search(normalize(text))


@pytest.mark.parametrize("text", NOT_FOUND)
def test_a_reaction_a_question_or_a_condition_is_none(text: str) -> None:
    assert not REVISION.search(normalize(text))


@pytest.mark.parametrize("session", SESSIONS, ids=["estimate", "count"])
async def test_the_amount_found_replaces_the_one_said(ctx: Any, call: Any, session: tuple[str, ...]) -> None:
    await assert_set_anew(call, ctx, *session)
