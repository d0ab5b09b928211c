"""Round 18: goals that come late or a second time. A separate matter asked for as a question ("Separately,
could you also …?", 「別件で恐縮ですが、…お願いできますでしょうか」) is a second goal; a question about the
assistant before the task ("do you know much about X?", 「日本語で大丈夫ですか」) keeps nothing and leaves the
goal to the message that states it; after background, the first question that names something asks what the
user came for, so it joins the mission (labelled a question first). The phrasings are written for these
tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _features as f
from mcpist.modules.context import _structure as st
from mcpist.modules.context import _wants as w
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

SECOND_REQUESTS = [
    (
        "I need a one-page flyer for our plant swap.",
        "It's on the 12th of April.",
        "Separately, could you also write a thank-you note for the volunteers?",
    ),
    (
        "町内会の夏祭りのお知らせを作りたいです。",
        "日程は8月3日です。",
        "それとは別に、会計報告のひな形も作っていただけますでしょうか。",
    ),
    (
        "社内報の新年号の構成を考えたいです。",
        "全8ページです。",
        "別件で恐縮ですが、新任役員の紹介文もお願いできますでしょうか。",
    ),
]
NOT_SEPARATE = [
    "One more thing, could you keep it under 300 words?",
    "ついでに、見出しは短めにしてもらえますか",
    "Separately, the budget is 200 euros.",
]
ABOUT_ASSISTANT = [
    "do you know anything about sourdough starters?",
    "Can you read PDFs?",
    "are you allowed to talk about tax stuff, or is that off limits?",
    "英語で大丈夫\uff1f",
    "ちょっと仕事の話してもいい\uff1f",
    "車の相談ってできますか\uff1f",
    "前置きが長くなりますが、ご相談に乗っていただけますか。",
    "hey, first time trying this app",
    "Hello there, I hope my English is good enough.",
    "Morning. My son installed this for me, so bear with me.",
    "初めて質問します。",
    "ちょっと相談に乗ってもらえますか\uff1f",
    "こんばんは。娘に教わって使っています。",
]
THANKED = [
    "ありがとうございます\uff01さっそくやってみます",
    "神\uff01ありがと〜",
    "とても勉強になりました。ありがとうございました。",
    "さんきゅーです\uff01",
    "thank u!! you're a star",
]
SIGNED = ["Thanks in advance,\nPriyanka", "Warm regards,\nMs. Ito", "Cheers,\nDan O'Neil"]
TASKS_AS_QUESTIONS = [
    "大家さんに相談してもいいものですか\uff1f",  # asks about consulting someone else
    "can you help me write a toast for my brother's wedding?",
    "Can you read my cover letter and tighten it?",
    "この見積書をチェックしてくれる\uff1f",
    "家計の相談ってできますか\uff1f来月までに見直したい",
    "first time running a 10k, I need a training plan",
    "Bear with me: the budget is 3,000 euros.",
]
ASKED_FIRST = [
    (
        "do you know much about cycling?",
        "What gear do I need to commute 15 km each way?",
    ),
    (
        "日本語でも大丈夫ですか\uff1f",
        "確定申告の医療費控除ってどうやって計算するの\uff1f",
    ),
]
AFTER_BACKGROUND = [
    (
        "my cousin keeps sending me videos of people climbing mountains lol",
        "how do I train for a first via ferrata with no experience?",
    ),
    (
        "最近、職場の後輩が増えてきまして",
        "新人向けの勉強会ってどんな順番で組めばいいですか\uff1f",
    ),
]


def test_none_of_these_phrasings_is_training_or_development_data() -> None:
    mine = {*NOT_SEPARATE, *ABOUT_ASSISTANT, *TASKS_AS_QUESTIONS, *SIGNED, *THANKED}
    mine |= {m for rows in (SECOND_REQUESTS, ASKED_FIRST, AFTER_BACKGROUND) for row in rows for m in row}
    assert not mine & every_known_text()


@pytest.mark.parametrize(("goal", "fact", "second"), SECOND_REQUESTS)
async def test_a_separate_request_asked_as_a_question_is_a_second_goal(
    ctx: Any, call: Any, goal: str, fact: str, second: str
) -> None:
    assert w.opens_separate_request(second)
    _, _, third = await play(call, ctx, goal, fact, second)
    assert third["classification"]["intent"][0] == "PROBLEM_DEFINITION", third["classification"]
    mission = sections(third["prompt"])["Mission"]
    assert goal.rstrip("。.") in mission
    assert second.rstrip("。.?\uff1f") in mission


@pytest.mark.parametrize("text", NOT_SEPARATE)
def test_one_more_thing_or_a_separate_fact_is_no_separate_request(text: str) -> None:
    assert not w.opens_separate_request(text)


def test_a_cushion_before_a_request_is_no_thanks() -> None:
    assert not f.is_filler("恐縮ですが、資料の送付をお願いできますか")
    assert f.is_filler("恐縮です")


@pytest.mark.parametrize("text", ABOUT_ASSISTANT)
def test_a_question_about_the_assistant_or_a_remark_on_the_conversation_is_not_yet_the_task(text: str) -> None:
    assert st.only_about_the_conversation(text)


@pytest.mark.parametrize("text", TASKS_AS_QUESTIONS)
def test_a_task_asked_of_the_assistant_is_the_task(text: str) -> None:
    assert not st.only_about_the_conversation(text)


@pytest.mark.parametrize(("about", "goal"), ASKED_FIRST)
async def test_after_a_question_about_the_assistant_the_next_message_states_the_goal(
    ctx: Any, call: Any, about: str, goal: str
) -> None:
    first, second = await play(call, ctx, about, goal)
    assert first["classification"]["intent"] == ["UNCLEAR"], first["classification"]
    assert not first["stored_as"], first
    mission = sections(second["prompt"])["Mission"]
    assert goal.rstrip("?\uff1f") in mission
    assert about.rstrip("?\uff1f") not in mission


@pytest.mark.parametrize(("background", "question"), AFTER_BACKGROUND)
async def test_the_first_question_after_background_joins_the_goal(
    ctx: Any, call: Any, background: str, question: str
) -> None:
    _, second = await play(call, ctx, background, question)
    assert second["classification"]["intent"] == ["QUESTION", "PROBLEM_DEFINITION"], second["classification"]
    assert question.rstrip("?\uff1f") in sections(second["prompt"])["Mission"]


@pytest.mark.parametrize(
    "text", ["btw how long does the glue take to dry", "wait what's a rolling deadline", "anyway which one is cheaper"]
)
def test_a_word_that_leads_into_a_question_keeps_it_a_question(text: str) -> None:
    assert f.is_interrogative(text)


def test_a_sentence_that_opens_with_also_adds_whatever_its_clauses() -> None:
    assert f.adds("Also whoever drives, £5 goes to the petrol kitty each week")
    assert not f.adds("make it 40 euros, I forgot I also need to pay for parking")


@pytest.mark.parametrize("closing", SIGNED)
async def test_the_name_under_a_closing_is_filler(ctx: Any, call: Any, closing: str) -> None:
    _, second = await play(call, ctx, "I need a seating plan for the gala dinner.", closing)
    assert second["classification"]["intent"] == ["UNCLEAR"], second["classification"]
    assert not second["stored_as"], second


def test_what_matters_most_is_a_frame() -> None:
    assert w.FOCUS_FRAME.search(f.normalize("for us most important is the opening night"))
    assert w.FOCUS_FRAME.search(f.normalize("what matters most to me is the cost per head"))
    assert w.narrows_goal("to be fair the handover checklist is what we need most help with")


@pytest.mark.parametrize("thanks", THANKED)
async def test_a_short_reaction_beside_thanks_is_filler(ctx: Any, call: Any, thanks: str) -> None:
    _, second = await play(call, ctx, "プレゼンの構成を考えたいです。", thanks)
    assert second["classification"]["intent"] == ["UNCLEAR"], second["classification"]
    assert not second["stored_as"], second


def test_a_change_beside_thanks_is_still_a_change() -> None:
    assert not f.sets_nothing("会場はオンラインになりました")
    assert not f.sets_nothing("Use Python 3 only.")


def test_where_someone_comes_from_introduces_them() -> None:
    assert st.introduces_self("はじめまして。タイから来たソムチャイです。")


NARROWED = [
    (
        "Plan a weekend in Lisbon for my parents and me.",
        "We fly in on Friday night.",
        "change of plan, they arrive a day later, the flights were cheaper",
        "let's just sort out the Saturday for now",
    ),
    ("ダイエットの食事メニューを作って", "1日1500kcal以内で", "朝は和食にしたい", "タンパク質中心で。"),
    ("家族旅行の計画を立てたい", "子どもは4歳", "車で行く", "温泉がメインで"),
    (
        "写真の販売で月10万円くらい稼げるようになりたい",
        "ジャンルは風景写真",
        "作品は今80枚",
        "現実的に、まずは月2万円を目指すことにする",
    ),
]


def test_none_of_the_narrowings_is_training_or_development_data() -> None:
    assert not {m for row in NARROWED for m in row} & every_known_text()


@pytest.mark.parametrize(("goal", "first", "second", "narrower"), NARROWED)
async def test_a_narrower_part_of_the_work_joins_the_mission(
    ctx: Any, call: Any, goal: str, first: str, second: str, narrower: str
) -> None:
    *_, last = await play(call, ctx, goal, first, second, narrower)
    mission = sections(last["prompt"])["Mission"]
    assert narrower.rstrip("。") in mission, last["prompt"]
    assert goal in mission, last["prompt"]  # a value of the goal is no condition the narrower part replaces
