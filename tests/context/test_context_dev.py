"""The development set (author d, never trained on) and the structural rules authors c and d brought out."""

from __future__ import annotations

from collections import Counter

from mcpist.modules.context import _corpus, _train
from mcpist.modules.context._features import is_filler, is_interrogative, narrows_goal, states_wish
from mcpist.modules.context._reading import sentences_of
from mcpist.modules.context._text import detect_language
from mcpist.modules.context._values import mask_values


def test_the_development_set_is_bilingual_and_never_trained_on() -> None:
    dev = _corpus.dialogs(pattern="dev_*.txt")
    assert len(dev) >= 50 and {_corpus.author(d.source) for d in dev} == {"d"}
    languages = Counter(detect_language(d.turns[0].user) for d in dev)
    assert min(languages.values()) >= 0.45 * len(dev)
    assert all(any(t.goal for t in d.turns) for d in dev)
    trained = {text for text, _ in _train.training_set().turns}
    assert not trained & {t.user for d in dev for t in d.turns if t.intent != ["UNCLEAR"]}  # "sweet", 🙏 may repeat


def test_list_numbers_are_no_sentences() -> None:
    message = "Where things stand:\n1. 60 players expected\n2) Saturday March 8\n③ 5 rounds"
    assert sentences_of(message) == ["Where things stand:", "60 players expected", "Saturday March 8", "5 rounds"]
    assert sentences_of("How many? 2.") == ["How many?", "2."]  # an answer, not a list number


def test_masking_keeps_what_a_count_counts() -> None:
    # the goal's object survives when its count is replaced; other values go whole
    assert mask_values("keep two beehives alive", {"count"}, "X") == "keep X beehives alive"
    assert mask_values("a trip under $2000", {"money"}, "X") == "a trip under X"


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
