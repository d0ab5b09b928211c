"""Round 45: a business letter's closing (「以上、よろしくお願いいたします」「度々申し訳ございません」) is small
talk, and so is the signature under it, on its own last line after a blank one (「営業二課\u3000山本」): neither
is a condition to keep. A sentence that also sets something is not a closing, and a line with a figure is no
signature. The phrasings are written for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _features as f
from mcpist.modules.context import _reading
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

CLOSINGS = [
    "以上、何卒よろしくお願い申し上げます。",
    "重ね重ね申し訳ございません。",
    "今後ともどうぞよろしくお願いいたします。",
    "お手数をおかけしますが、引き続きよろしくお願いいたします。",
]
NOT_CLOSINGS = ["以上の3点でお願いします。", "申し訳ございません、会場は2階でした。", "引き続き予算は10万円以内で。"]
SIGNATURES = ["経理部\u3000高橋", "株式会社あおば商事\u3000人事課\u3000松田", "中村より"]
NOT_SIGNATURES = ["予算5万円", "会場は本館の会議室で", "参加者は30名"]
GOAL = "来月の社内研修の案内文を作りたいです。"
LETTER = "以上、何卒よろしくお願い申し上げます。\n\n経理部\u3000高橋"


def test_none_of_the_phrasings_is_training_or_development_data() -> None:
    texts = {*CLOSINGS, *NOT_CLOSINGS, *SIGNATURES, *NOT_SIGNATURES, GOAL, LETTER}
    assert not texts & every_known_text()


@pytest.mark.parametrize("text", CLOSINGS)
def test_a_letters_closing_is_small_talk(text: str) -> None:
    assert f.is_filler(text)


@pytest.mark.parametrize("text", NOT_CLOSINGS)
def test_a_sentence_that_sets_something_is_no_closing(text: str) -> None:
    assert not f.is_filler(text)


@pytest.mark.parametrize("text", SIGNATURES)
def test_a_signature_reads_as_one(text: str) -> None:
    assert _reading._JA_SIGNATURE.fullmatch(text)


@pytest.mark.parametrize("text", NOT_SIGNATURES)
def test_a_line_with_a_figure_or_a_sentence_is_no_signature(text: str) -> None:
    assert not _reading._JA_SIGNATURE.fullmatch(text)


async def test_a_closing_and_its_signature_are_not_kept_as_conditions(ctx: Any, call: Any) -> None:
    *_, last = await play(call, ctx, GOAL, "参加者は約40名です。", LETTER)
    assert last["classification"]["intent"] == ["UNCLEAR"], last["classification"]
    constraints = sections(last["prompt"])["Constraints"]
    assert "よろしく" not in constraints and "高橋" not in constraints, last["prompt"]
    assert "40名" in constraints


SALUTATIONS = ["市民活動センター\u3000ご担当者様", "ひまわり商店会御中", "保護者各位", "佐々木様"]
NOT_SALUTATIONS = ["参加者様は20名まで", "様子を見ながら進めたい"]
OPENING = "生涯学習課\u3000ご担当者様\nお世話になっております。自治会で広報係をしております森と申します。"


def test_none_of_the_salutations_is_training_or_development_data() -> None:
    assert not {*SALUTATIONS, *NOT_SALUTATIONS, OPENING} & every_known_text()


@pytest.mark.parametrize("text", SALUTATIONS)
def test_the_addressee_a_letter_opens_with_is_small_talk(text: str) -> None:
    assert f.is_filler(text)


@pytest.mark.parametrize("text", NOT_SALUTATIONS)
def test_a_sentence_with_sama_in_it_is_no_salutation(text: str) -> None:
    assert not f.is_filler(text)


async def test_a_letter_that_opens_with_its_addressee_and_who_writes_states_no_goal(ctx: Any, call: Any) -> None:
    opened, last = await play(call, ctx, OPENING, "自治会だよりの秋号の構成を一緒に考えていただけますか。")
    assert opened["classification"]["intent"] == ["UNCLEAR"], opened["classification"]
    assert "自治会だより" in sections(last["prompt"])["Mission"], last["prompt"]
