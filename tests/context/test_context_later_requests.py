"""Round 22: what set t brought out. Another piece of writing asked for as well ("could you also help me write a
thank-you email?", 「お礼メールの下書きも頼める?」) or a separate matter named so ("Separate question: …",
「…も頂戴できますか」) is a second goal, even as a question; the part the user needs help with, said in a frame
("the bit I really need you for is …", "what I can't crack is …", "the main job is …", "if you could concentrate
on …", 「…だけ頼む」), narrows the mission; a request announced with nothing in it yet (「ちょっと相談なんですけど」,
"quick question") keeps nothing, and a remark on the conversation beside the task does not hide the task. The
phrasings are written for these tests and are in neither the training data nor the development sets."""

from __future__ import annotations

from typing import Any

import pytest
from phrasings import every_known_text, play

from mcpist.modules.context import _naming as nm
from mcpist.modules.context import _structure as st
from mcpist.modules.context import _wants as w
from mcpist.modules.context._synth import sections

pytestmark = pytest.mark.anyio

SECOND_REQUESTS = [
    (
        "I'm putting together a newsletter for our running club.",
        "It goes out on the first Monday of the month.",
        "Could you also help me write a short welcome message for new members?",
    ),
    (
        "Separate question: can you draft a reminder for the committee about the dues?",
        "Separate question: can you draft a reminder for the committee about the dues?",
        None,
    ),
    (
        "取引先向けの新商品の案内を作りたいです。",
        "発売は来月10日です。",
        "あと、展示会のお礼メールの下書きも頼めますか\uff1f",
    ),
    (
        "社内勉強会の告知文を作りたいです。",
        "開催は毎月第2金曜です。",
        "別件ではございますが、来期の研修日程表も頂戴できますでしょうか。",
    ),
]
SECOND_REQUESTS += [
    # round 31 (set v): a separate job named so, an imperative after the colon, "one more thing" with a new piece,
    # "also can u write …" with a plural object, and a new piece asked for with 「…についてもご協力いただけ…」
    (
        "I'm organising the spring clean-up day for our street.",
        "About 25 households have signed up.",
        "Also, separate job: could you draft a thank-you note for the council's recycling team?",
    ),
    (
        "I need help planning the budget for our rowing club's regatta.",
        "Entry fees bring in roughly £1,800.",
        "Separate matter: summarise what insurance a regatta needs.",
    ),
    (
        "I'm arranging my parents' ruby wedding dinner.",
        "We've booked a room for 30 at the Crown.",
        "One more thing: could you write a short toast my sister can read out?",
    ),
    (
        "I want to put together a photo slideshow for the school leavers' assembly.",
        "It can run for six minutes at most.",
        "also can u write captions for the ten photos of the teachers",
    ),
    (
        "来月の防災訓練の実施計画をまとめたいです。",
        "参加者は約150名の予定です。",
        "また、あわせて参加者向けのお礼状の文面についてもご協力いただけますと幸いです。",
    ),
]
SAME_WORK = [
    "One more thing: could you write it a bit more formally?",
    "Also, could you write this up as bullet points?",
    "could you also write it in French?",
    "Could you also make it a bit shorter?",
    "写真も入れてください",
    "ついでに、見出しは短めにしてもらえますか",
]
FRAMED = [
    "Honestly the part we need help with is the budget table, I can write the rest.",
    "What I can't figure out is the closing paragraph.",
    "tbh the main job is cutting it down to ten minutes",
    "I'd be grateful if you could concentrate on the risks section.",
    "今日のところは議事録の要約だけ頼みたい",
]
NOT_FRAMED = [
    "My main job is nursing, so evenings are out.",
    "What I can do is bring a projector.",
]
ANNOUNCED = [
    "あの、ちょっと相談なんですが",
    "質問があります。",
    "hi, quick question",
    "Can I ask you something?",
    # round 35 (set v): a favour announced, a voice note's first words, a greeting with a smiley
    "hiya, I've got a small favour to ask",
    "ok so, is this thing recording? right",
    "hello there :-)",
    "すいません、しつもんです",
    "あ、もう録音されてます\uff1f",
]
TASK_BESIDE_A_REMARK = [
    "hey, got a favour to ask: can you plan my trip to Rome?",
    "Is it on the list?",  # "is it on …" asks about the task, not whether the microphone is on
    "can u help me plan a surprise party for my mum, first time doing this lol",
    "初めて利用します。相談です。来月の町内会の回覧板の文面を作りたい",
    "町内会の会計のことでご相談です。",
]


def test_none_of_these_phrasings_is_training_or_development_data() -> None:
    mine = {*SAME_WORK, *FRAMED, *NOT_FRAMED, *ANNOUNCED, *TASK_BESIDE_A_REMARK}
    mine |= {m for row in SECOND_REQUESTS for m in row if m}
    assert not mine & every_known_text()


@pytest.mark.parametrize(("goal", "fact", "second"), [r for r in SECOND_REQUESTS if r[2]])
async def test_another_piece_of_work_asked_for_as_well_is_a_second_goal(
    ctx: Any, call: Any, goal: str, fact: str, second: str
) -> None:
    assert w.opens_separate_request(second)
    _, _, third = await play(call, ctx, goal, fact, second)
    assert third["classification"]["intent"][0] == "PROBLEM_DEFINITION", third["classification"]
    mission = sections(third["prompt"])["Mission"]
    assert goal.rstrip("。.") in mission
    assert second.rstrip("。.?\uff1f") in mission


def test_a_separate_question_named_so_is_a_separate_request() -> None:
    assert w.opens_separate_request(SECOND_REQUESTS[1][0])


@pytest.mark.parametrize("text", SAME_WORK)
def test_the_same_work_changed_is_no_second_request(text: str) -> None:
    assert not w.opens_separate_request(text)


@pytest.mark.parametrize("text", FRAMED)
def test_the_part_the_user_needs_help_with_narrows_the_goal(text: str) -> None:
    assert w.narrows_goal(text) or st.narrows_scope(text)


@pytest.mark.parametrize("text", NOT_FRAMED)
def test_a_job_or_what_the_user_can_do_is_no_frame(text: str) -> None:
    assert not w.FOCUS_FRAME.search(text.lower())


async def test_a_framed_part_joins_the_mission(ctx: Any, call: Any) -> None:
    *_, last = await play(
        call, ctx, "I need to write a grant report for the library.", "It's due on 30 June.", FRAMED[0]
    )
    mission = sections(last["prompt"])["Mission"]
    assert FRAMED[0] in mission and "grant report" in mission, last["prompt"]


@pytest.mark.parametrize("text", ANNOUNCED)
def test_a_request_announced_with_nothing_in_it_is_not_yet_the_task(text: str) -> None:
    assert st.only_about_the_conversation(text)


@pytest.mark.parametrize("text", TASK_BESIDE_A_REMARK)
def test_a_remark_beside_the_task_does_not_hide_it(text: str) -> None:
    assert not st.only_about_the_conversation(text)


async def test_after_an_announced_request_the_next_message_states_the_goal(ctx: Any, call: Any) -> None:
    first, second = await play(call, ctx, ANNOUNCED[0], "実家の屋根の修理業者を選ぶので迷っていまして")
    assert first["classification"]["intent"] == ["UNCLEAR"], first["classification"]
    assert "屋根の修理業者" in sections(second["prompt"])["Mission"], second["prompt"]


JOINED_ON = [
    (
        "I need a revision plan for my driving theory test.",
        "The test is in 5 weeks.",
        "and there's a hazard perception practice session in 2 weeks",
    ),
    ("手作り石けんのネットショップを開きたい", "送料は全国一律600円にしたい", "あと、8000円以上で送料無料にしよかな"),
]


def test_none_of_the_joined_on_phrasings_is_training_or_development_data() -> None:
    assert not {m for row in JOINED_ON for m in row} & every_known_text()


@pytest.mark.parametrize(("goal", "first", "joined"), JOINED_ON)
async def test_a_sentence_joined_on_with_no_word_of_change_adds(
    ctx: Any, call: Any, goal: str, first: str, joined: str
) -> None:
    *_, last = await play(call, ctx, goal, first, joined)
    constraints = sections(last["prompt"])["Constraints"]
    assert first in constraints and joined in constraints, last["prompt"]


async def test_joined_on_with_a_word_of_change_still_changes(ctx: Any, call: Any) -> None:
    goal, first, joined = JOINED_ON[0]
    changed = "oh and actually the test got moved, it's in 4 weeks now"
    *_, last = await play(call, ctx, goal, first, joined, changed)
    constraints = sections(last["prompt"])["Constraints"]
    assert changed in constraints and joined in constraints and first not in constraints, last["prompt"]


SWITCHES = [
    (
        "I want to open an online shop for my candles.",
        "we sell through Etsy at the moment, fees are brutal",
        "I'd like to launch before December.",
        "alright, let's go with Squarespace",
    ),
    ("陶器のネットショップを始めたい", "いまはminneで少し売ってます", "発送は週2回", "手数料がきついからSTORESにする"),
    ("趣味の写真ブログを始めたい", "書くのはnoteのつもり", "週1回更新", "やっぱ広告つけたいしWordPressにしよ"),
]


def test_none_of_the_switches_is_training_or_development_data() -> None:
    assert not {m for row in SWITCHES for m in row} & every_known_text()


@pytest.mark.parametrize(("goal", "named", "other", "switch"), SWITCHES)
async def test_a_move_to_another_named_thing_replaces_the_statement_naming_the_old_one(
    ctx: Any, call: Any, goal: str, named: str, other: str, switch: str
) -> None:
    *_, last = await play(call, ctx, goal, named, other, switch)
    constraints = sections(last["prompt"])["Constraints"]
    assert switch in constraints and other in constraints and named not in constraints, last["prompt"]


def test_names_and_moves_to_them() -> None:
    assert nm.names_in("Google Sheets now, IT migrated us", "en") >= {"google sheets"}
    assert nm.names_in("会社のPCはExcel2016です", "ja") == {"pc", "excel2016"}
    assert nm.names_in("Tom is the designer and the budget is tight", "en") == frozenset()  # any word opens
    assert nm.switched_to("we sell through Etsy at the moment", "en") == frozenset()  # no move: no word of it
    assert nm.switched_to("Management decided we're switching to Teams.", "en") == {"teams"}


@pytest.mark.parametrize("text", ["訂正。", "Correction:", "Update -", "変更です。"])
def test_a_word_of_change_alone_sets_nothing(text: str) -> None:
    assert nm.only_a_cue(text)


@pytest.mark.parametrize("text", ["Correction: it's 16 people", "訂正。16人でした。", "update: moved to Friday"])
def test_a_word_of_change_with_what_changes_sets_it(text: str) -> None:
    assert not nm.only_a_cue(text)


@pytest.mark.parametrize(
    ("goal", "fact", "second", "asked"),
    [
        (
            "月末の在庫集計を楽にしたい",
            "商品は200種類くらい",
            "別件。発注書のテンプレートも。",
            "発注書のテンプレートも",
        ),
        (
            "I want to plan a reading list for my book club.",
            "We meet every third Thursday.",
            "Separate question: could you suggest icebreakers for new members?",
            "could you suggest icebreakers for new members",
        ),
    ],
)
async def test_a_separate_matter_named_in_a_sentence_of_its_own_opens_the_next(
    ctx: Any, call: Any, goal: str, fact: str, second: str, asked: str
) -> None:
    assert not every_known_text() & {goal, fact, second}
    *_, last = await play(call, ctx, goal, fact, second)
    assert last["classification"]["intent"][0] == "PROBLEM_DEFINITION", last["classification"]
    assert asked in sections(last["prompt"])["Mission"], last["prompt"]


def test_a_separate_matter_announced_before_a_fact_opens_nothing() -> None:
    assert w.only_separates("別件です。") and w.only_separates("Separate question:")
    assert not w.asks_for_something("The budget is 200 euros.")
    assert w.asks_for_something("発注書のテンプレートも。")


async def test_a_confirmed_proposal_replaces_what_the_question_was_about(ctx: Any, call: Any) -> None:
    messages = (
        "I need to sort out the accounts for our bridge club.",
        "year end is 31 July",
        "and the AGM on 14 September is when I present them",
        "could we push the AGM back to 28 September?",
        "chair says fine, 28 September it is",
    )
    assert not every_known_text() & set(messages)
    *_, last = await play(call, ctx, *messages)
    parts = sections(last["prompt"])
    stated = parts["Mission"] + parts.get("Constraints", "")
    assert "year end is 31 July" in stated and messages[-1] in stated, last["prompt"]
    assert "14 September" not in stated, last["prompt"]


def test_an_introduction_that_leads_on_to_a_problem_is_no_introduction() -> None:
    assert st.introduces_self("書道教室をやっています。")
    assert st.introduces_self("経理を担当しております、田中です")
    assert not st.introduces_self("古着屋をやっているんですが、在庫が全然減らなくて困ってます")


async def test_a_problem_after_an_introduction_is_the_goal(ctx: Any, call: Any) -> None:
    first = "古着屋をやっているんですが、在庫が全然減らなくて店が回りません。"
    assert not every_known_text() & {first}
    (turn,) = await play(call, ctx, first)
    assert turn["classification"]["intent"][0] == "PROBLEM_DEFINITION", turn["classification"]
    assert "在庫が全然減らなくて" in sections(turn["prompt"])["Mission"], turn["prompt"]


def test_enough_is_no_ten_minutes() -> None:
    from mcpist.modules.context._values import values_of

    assert values_of("完走できたら十分です") == ()
    assert [v.kind for v in values_of("会議は十分で終わらせたい")] == ["duration"]
    assert [v.kind for v in values_of("三十分くらい")] == ["duration"]
    assert w.narrows_goal("とりあえず最後まで弾けたら十分や")
