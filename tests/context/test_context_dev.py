"""The development sets (authors d to v, never trained on) and the structural rules authors c, d and e brought out."""

from __future__ import annotations

from collections import Counter

from mcpist.modules.context import _corpus, _train
from mcpist.modules.context._features import is_filler, is_interrogative
from mcpist.modules.context._reading import sentences_of
from mcpist.modules.context._text import detect_language
from mcpist.modules.context._values import mask_replaced, values_of
from mcpist.modules.context._wants import narrows_goal, restates_goal, states_wish, wishes_an_outcome


def test_the_development_sets_are_bilingual_and_never_trained_on() -> None:
    dev = _corpus.dialogs(pattern="dev_*.txt")
    assert {_corpus.author(d.source) for d in dev} == set("defghijklmnopqrstuv")
    trained = {text for text, _ in _train.training_set().turns}
    for name, minimum in (
        ("d", 50),
        ("e", 40),
        ("f", 50),
        ("g", 50),
        ("h", 50),
        ("i", 50),
        ("j", 50),
        ("k", 50),
        ("l", 50),
        ("m", 50),
        ("n", 60),
        ("o", 50),
        ("p", 50),
        ("q", 50),
        ("r", 50),
        ("s", 50),
        ("t", 50),
        ("u", 50),
        ("v", 50),
    ):
        dialogs = [d for d in dev if _corpus.author(d.source) == name]
        assert len(dialogs) >= minimum, name
        languages = Counter(detect_language(d.turns[0].user) for d in dialogs)
        assert min(languages.values()) >= 0.45 * len(dialogs), name
        assert all(any(t.goal for t in d.turns) for d in dialogs), name
        assert not trained & {t.user for d in dialogs for t in d.turns if t.intent != ["UNCLEAR"]}  # "sweet" may repeat


def test_list_numbers_are_no_sentences() -> None:
    message = "Where things stand:\n1. 60 players expected\n2) Saturday March 8\n③ 5 rounds"
    assert sentences_of(message) == ["Where things stand:", "60 players expected", "Saturday March 8", "5 rounds"]
    assert sentences_of("How many? 2.") == ["How many?", "2."]  # an answer, not a list number
    # a title or "No. 1" ends no sentence: the goal that names them stays one sentence
    assert sentences_of("I want to play Chopin's Ballade No. 1 at the recital. Dear Ms. Patel, hi.") == [
        "I want to play Chopin's Ballade No. 1 at the recital.",
        "Dear Ms. Patel, hi.",
    ]
    assert sentences_of("The answer is no. We go.") == ["The answer is no.", "We go."]


def test_masking_keeps_what_a_count_counts() -> None:
    # the goal's object survives when its count is replaced; other values go whole
    assert mask_replaced("keep two beehives alive", values_of("five beehives"), "X") == "keep X beehives alive"
    assert mask_replaced("a trip under $2000", values_of("$2500"), "X") == "a trip under X"


def test_a_replaced_value_masks_only_itself_in_the_goal() -> None:
    # the goal's own numbers and dates stay when its budget or schedule changes
    goal = "I need to fire 30 mugs for the Christmas fair on 6 December, and my kiln budget is £400."
    assert mask_replaced(goal, values_of("make that £600"), "X") == (
        "I need to fire 30 mugs for the Christmas fair on 6 December, and my kiln budget is X."
    )
    assert mask_replaced("I want to lose 10 kg in 6 months", values_of("8 months"), "X") == "I want to lose 10 kg in X"
    assert mask_replaced("taco night for 12 this sat", values_of("18 now"), "X") == "taco night for X this sat"
    assert mask_replaced("予算は3万円です", (), "X") == "予算はXです"  # one value, nothing said of the new one


def test_questions_without_a_question_mark() -> None:
    asked = [
        "refractor or dobsonian for a kid",
        "oil based or solid balm which lasts longer",
        "I am wondering whether I should knit it in one piece or in sections",
        "any idea how to warm up people who hate warming up",
        "I would welcome your thoughts on whether social media or leaflets reach farmers better.",
        "worth getting my own shoes straight away",
        "弓は最初から買うべきかな",
        "赤からか白からか",
        "ツアーに参加するか自分たちでレンタルするか迷っています",
        "SNSとチラシのどちらが届くのか、ご意見をいただけますと幸いです。",
        "マイク安くていいのどれ",
        "ポイント練習って何したらよかと",
        "スズメバチ対策って冬もいるの",
    ]
    assert [q for q in asked if not is_interrogative(q)] == []
    # polite requests, stated choices and tentative values stay conditions
    stated = [
        "please keep it under 30 minutes",
        "Saturday or Sunday is fine",
        "no nuts or shellfish",
        "2 or 3 kids",
        "予算は3万円でお願いします",
        "オイル仕上げでお願いします",
        "予算は2万円くらいかな",
        "まあ今年はやめとこうかな",
        "ABSじゃないとダメな部品なの、耐熱が必要で",
        "あと12週間しかなか",
    ]
    assert [s for s in stated if is_interrogative(s)] == []


def test_greetings_and_openers_are_small_talk() -> None:
    for text in ["hey u there", "morning all", "Long time lurker, first post.", "Dear Sir or Madam,", "おはよー"]:
        assert is_filler(text), text
    assert not is_filler("morning rehearsals only")


def test_a_narrower_goal_and_a_background_goal() -> None:
    assert narrows_goal("一番見たいのは土星の輪")
    assert narrows_goal("Mostly I want to interview older residents before their stories are lost.")
    assert not narrows_goal("mainly want it under $500")  # a value: a condition
    assert not narrows_goal("特に辛いものは食べたくない")  # a wish turned down: a constraint
    assert not states_wish("最近肩こりがひどくて整体に通ってるんですけど")  # background, not yet the goal
    assert states_wish("中学の部活以来ですが弓道を始めようと思います")


def test_a_restated_goal_joins_the_mission_with_its_values() -> None:
    restated = [
        "The point is to sell my ceramics internationally, not just locally.",
        "ideally one that can feed a family of four all summer",
        "Actually what I need most is a photo book for my dad's 70th in June.",
        "the real target is to finish the Bristol 10K on October 5",
        "最終的には副業で月5万円稼げるようにしたいんです",
        "というより在宅ワークに集中できる環境を作りたい",
        "一番大事なのは足の悪い父でも回れるコースにすることです",
    ]
    assert [r for r in restated if not (restates_goal(r) and narrows_goal(r))] == []
    for text in [
        "ideally under $500",
        "the point is what should I pack?",
        "最終的には車は使いたくない",
        "目標は半年で800点です。",
    ]:
        assert not restates_goal(text), text


def test_a_wish_for_an_outcome_is_no_condition() -> None:
    assert wishes_an_outcome("1時間で終わるようにしたいです")
    assert wishes_an_outcome("I want to be able to answer within 24 hours")
    assert not wishes_an_outcome("予算は5万円にしたい")
    assert not wishes_an_outcome("budget is $80")
