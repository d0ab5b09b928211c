"""What a sentence says the user wants, as against background: a wish of their own (not someone else's), a
restatement of the goal, a narrower goal, and what matters most. Used by `_reading`, `_structure` and
`_plan` to decide where a sentence goes; none of it is a model feature (`_features.features` does not read it).
"""

from __future__ import annotations

import re

from ._features import (
    ASK,
    GOAL_NOUN,
    INFO_REQUEST,
    NARROWING,
    NEGATED_WISH,
    WISH,
    cues,
    is_interrogative,
    normalize,
    values_of,
)

_I = re.IGNORECASE


def states_wish(text: str) -> bool:
    """Whether a sentence says what the user wants (a wish, a goal word, a question or a request), rather
    than only giving background (「最近肩こりがひどくて」, "I did archery at uni years ago")."""
    t = normalize(text)
    if NEGATED_WISH.search(t):
        return False
    # someone else's wish is background ("my niece wants to be a designer", 「娘が「もっと弾きたい」って言ってて」),
    # unless it is asked of the user ("my supervisor needs me to …")
    t = THIRD_PARTY_WISH.sub(" ", t)
    return any(p.search(t) for p in (WISH, GOAL_NOUN, ASK, INFO_REQUEST)) or is_interrogative(t)


THIRD_PARTY_WISH = re.compile(
    r"\b(?:he|she|they|(?:my|his|her|their|the) (?:\w+ ){0,2}\w+)\s+(?:\w+\s+)?"
    r"(?:wants?|wanted|needs?|would like|'d like|keeps? (?:asking|saying))\b(?!\s+(?:me|us)\b)"
    r"|たい[!」』\s]*(?:って|と)(?:ずっと|いつも|毎日)?\s*(?:言|いっ|ゆ)",
    re.IGNORECASE,
)


# the user says what the goal really is, in other words or more narrowly: "the point is to ...", "what I
# need most is ...", 「最終的には…」「というより…」. Said of the goal itself, so a value in it is part of the
# goal (「最終的には副業で月5万円稼げるように」, "finish the Bristol 10K on October 5"), not a condition
RESTATES_GOAL = cues(
    r"最終的に(?:は)?|要は|要するに|というより|っていうより|一番(?:大事|大切|重要|の目的|の目標|の願い)|いちばん大事"
    r"|本当の(?:目的|目標|狙い)|(?:目的|目標|ゴール|狙い)は|せめて",
    r"\bthe (?:whole |real |main |actual |ultimate |end )?(?:point|goal|target|aim|objective|idea) is\b",
    r"\bmy (?:real |main |actual |ultimate |end )?(?:goal|target|aim|objective) is\b|\bor rather\b|\bin other words\b",
    r"\bwhat (?:i|we) (?:really |actually )?(?:need|want|care about)(?: most| above all)? is\b|\bultimately\b",
    r"\bideally (?:one|something|i'?d|we'?d|i want|we want)\b|\bbasically,? (?:i|we) (?:want|need)\b",
)


_GOAL_ACTION = re.compile(
    r"\bis to\b|\b(?:that|which) can\b|\bable to\b|ように|ようになり|(?:する|にする|できる)こと", _I
)


def wishes_an_outcome(text: str) -> bool:
    """A wish for what should become possible rather than for a value: 「1時間で終わるようにしたい」, "I want
    to be able to ..." (「予算は5万円にしたい」 sets a value)."""
    t = normalize(text)
    return bool(WISH.search(t) and _GOAL_ACTION.search(t)) and not NEGATED_WISH.search(t)


def restates_goal(text: str) -> bool:
    """Whether a sentence says what the goal is, in other words or more narrowly ("the point is to sell my
    ceramics internationally", 「要は会議で発言できるようになりたい」): it joins the mission with its values.
    With a value it must say what the user wants done (a wish, "is to ...", 「…ように」): 「目標は半年で800点です」
    sets a target for the goal, a condition like any other."""
    t = normalize(text)
    if RESTATES_GOAL.search(t) is None or NEGATED_WISH.search(t) or is_interrogative(t):
        return False
    valued = any(v.kind != "date" for v in values_of(t))
    return not valued or bool(WISH.search(t) or _GOAL_ACTION.search(t))


def narrows_goal(text: str) -> bool:
    """What the user wants most, a narrower goal that joins the mission beside the first one: 「一番見たいのは
    土星の輪」, 「特に終着駅の情景を作りこみたい」, "mostly I want to interview older residents", "mostly the
    career side" (`FOCUS`), "lead with the rollback plan", 「肝心なのは資金繰り」 (`FOCUS_FRAME`). A value makes it
    a condition ("mainly under $500") except in a frame ("start with the first four weeks"), a wish turned down
    a constraint; a sentence that says what the goal is (`restates_goal`) keeps its values."""
    if restates_goal(text):
        return True
    t = normalize(text)
    framed = FOCUS_FRAME.search(t) is not None
    focus = framed or FOCUS.search(t) is not None
    if not (focus or NARROWING.search(t)) or NEGATED_WISH.search(t):
        return False
    if any(v.kind != "date" for v in values_of(t)):
        # "start with the first four weeks": the frame says what the user wants done first, value and all
        return framed
    # "mostly the long-term career side": what the user cares about most needs no verb of wishing
    return focus or bool(WISH.search(t) or GOAL_NOUN.search(t))


# what the user cares about most, a stronger word than `NARROWING`'s 「特に」 (which is also "nothing in
# particular") or "start with"; not a model feature
FOCUS = cues(
    # 「とりあえず制限時間内にゴールできたら十分」: what would be enough is what the user is after
    r"一番は|いちばんは|一番の|(?:できたら|できれば|られたら|られれば|れたら|れば|たら)(?:それで)?(?:十分|じゅうぶん|満足)",
    # "mostly" opening the sentence says what matters most; inside it, how things are ("arrivals mostly on
    # June 14", "I ship mostly to Germany")
    r"^(?:(?:and|but|so|oh|ok|okay|well|honestly|tbh|really|though),?\s+)*(?:mostly|mainly|primarily)\b",
    r"\bmain (?:thing|focus|point|priority)\b|\babove all\b|\bmost of all\b",
    r"\bwhat (?:\w+ ){0,2}cares? (?:most )?about\b|\bfirst and foremost\b",
)
# the sentence is built to say what matters most: "the priority is the stall layout", "weekend coverage is the
# real headache", "it's all about staying in his own house", "lead with the rollback plan", "centre it on …",
# 「大事なのは雨の日の段取り」「ポイントは冬場の寒さ対策」「結局知りたいのは…」「まずは初日の内容から」. Grammar, not
# topic words; not a model feature
FOCUS_FRAME = cues(
    r"(?:大事|大切|重要|肝心|肝|問題|課題|ネック|一番の悩み|気がかり)なのは|(?:ポイント|鍵|カギ|焦点|重点|キモ|肝)は"
    r"|(?:たい|ほしい|欲しい)のは|まずは\S{1,20}(?:から|だけ|を目指|を目標に)|を中心に|を軸に|に焦点を|を重視|に重点を"
    r"|\S中心で[。!]?$|が(?:メイン|主役|中心)(?:で|に|です)",
    r"\b(?:the )?(?:(?:top |main |real |big |key )?priority|crux|core of it|heart of it|key thing"
    r"|important (?:thing|part|bit)|real (?:issue|problem|headache|question|worry))"
    r"(?: here| for (?:me|us|him|her|them))? is\b",
    r"\b(?:the )?most important(?: (?:thing|part|bit))?(?: for (?:me|us|him|her|them))? is\b"
    r"|\bwhat matters (?:most|more)(?: to (?:me|us|him|her|them))? is\b"
    r"|\bis (?:what|where) (?:i|we) (?:really |most )?(?:need|want)(?: the)?(?: most)? help(?: with)?(?: most)?\b",
    # "the bit I really need you for is …", "what I can't crack is …", "the main job is …" (not "our chief concern
    # is …", as often a condition: "… the liability clauses")
    r"\bthe (?:bit|part|piece|thing) (?:that )?(?:i|we) (?:really |actually |most |mostly )?need(?: you| help| a hand)?"
    r"(?: (?:for|with|on))? is\b|\bwhat (?:i|we) (?:just )?(?:can'?t|cannot|couldn'?t) (?:\w+ ){0,2}is\b"
    r"|\bthe (?:main|real|hard|tricky|difficult|key) (?:job|task|work) (?:here )?is\b",
    r"\bis the (?:real |main |big |biggest |key )?(?:priority|crux|core of it|heart of it|headache|bit that matters"
    r"|part that matters|thing that matters)\b",
    # (not "about" a quantity: "it's about 60 square metres")
    r"\bit'?s (?:all |really |mostly |mainly |honestly )?about (?![\d$£€¥~]|(?:a|an|one|two|three|four|five|six|seven"
    r"|eight|nine|ten|twenty|fifty|a hundred|half|twice|the same)\b)",
    # asked for (opening the sentence, or after "let's", "can you" …), not "we start with 20 people"
    r"^(?:(?:ok|okay|so|and|but|please|pls|then|maybe|let'?s|can you|could you|can we|could we|i'?d like you to),?\s+)*"
    r"(?:lead|start|open|begin|kick off) with\b|\bcent(?:re|er) (?:it |this |that |the \w+ )?on\b"
    r"|^(?:could|can|should|would)\s+(?:\w+\s+){0,3}(?:lead|start|open|begin) with\b"
    r"|^(?:(?:ok|okay|so|and|but|please|pls|then|maybe|let'?s|can you|could you|can we|could we),?\s+)*"
    r"(?:focus|concentrate) on\b|\bprioriti[sz]e\b"
    # asked of the assistant inside a longer sentence: "I would be grateful if you could concentrate on …"
    r"|\b(?:if|would like|'d like|want) you (?:could |to )?(?:please )?(?:just )?(?:focus|concentrate) on\b",
)


def focuses(text: str) -> bool:
    """A focus word or frame in it (`FOCUS`, `FOCUS_FRAME`)."""
    t = normalize(text)
    return FOCUS.search(t) is not None or FOCUS_FRAME.search(t) is not None


# a separate matter, said to be one: "Separately, could you also draft …", 「あと別件なのですが、…もお願い
# できますでしょうか」 (not "one more thing" or 「ついでに」, which as often add a condition to the same work)
_SEPARATE = cues(
    r"別件|それとは別に|話(?:は|が)?変わ(?:る|り|って)",
    r"\bseparately\b|\bunrelated\b|\bseparate (?:thing|request|question|task|one|job|matter|issue)\b"
    r"|\bon a (?:different|separate) note\b|\b(?:different|separate) (?:topic|matter)\b",
)
_ASKS_TO_DO = cues(
    r"お願い|いただけ|頂け|頂戴|頼[まみむめ]|もらえ|くれ(?:る|ない|ます)|ください|下さい|(?:作っ|書い|考え|まとめ|調べ)て",
    r"\b(?:could|can|would|will) (?:you|u)\b|\bplease\b|\b(?:i'd|i would) like you to\b"
    # an imperative after the matter is named: "separate thing: explain payments on account"
    r"|:\s*(?:explain|write|draft|help me|make|create|list|tell me|give me|suggest|plan|find|compare|summari[sz]e"
    r"|translate|design|put together)\b",
)


# a second piece of writing asked for as well: "could you also help me write a thank-you email to the panel?",
# 「お礼メールの下書きも頼める?」 (not "could you also make it shorter", "could you also write it in French": the
# same work, changed)
_WRITE_EN = r"(?:please )?(?:help me )?(?:write|draft|prepare|put together|create|design)"
_ALSO_WRITE = cues(
    r"(?:下書き|文面|文案|原稿|見積もり|見積り|案内文|挨拶文|メール|手紙)(?:について|の作成)?も(?:あわせて|併せて)?"
    r"(?:ご支援|ご協力|お手伝い)?(?:お願い|頼[まみむめ]|作って|書いて|考えて|頂戴|いただけ|頂け)",
    # "could you also write …", "also can u write …", "one more thing: could you write a short poem for her card?"
    rf"\b(?:could|can|would|will) (?:you|u) also {_WRITE_EN} (?:a|an|the|some|my|our)\b"
    rf"|\balso,? (?:could|can|would|will) (?:you|u) {_WRITE_EN} (?:a|an|the|some|my|our|(?!this\b)\w{{3,}}s)\b"
    rf"|\bone more thing\b[^?]*\b(?:could|can|would|will) (?:you|u) {_WRITE_EN} (?:a|an|some)\b",
)


def opens_separate_request(text: str) -> bool:
    """Whether a sentence asks for something and says it is a separate matter, or asks for another piece of
    writing as well: a second goal, even as a question."""
    t = normalize(text)
    if NEGATED_WISH.search(t):
        return False
    return (_SEPARATE.search(t) is not None and _ASKS_TO_DO.search(t) is not None) or _ALSO_WRITE.search(t) is not None


_ONLY_SEPARATES = cues(
    r"^(?:(?:あと|また|それと|で)[、,]?\s*)?(?:別件|それとは別に|話(?:は|が)?変わりますが)"
    r"(?:です|なんですが|なんですけど|ですが|ですけど|で(?:恐縮|すみません)(?:です|ですが)?)?[\s.。:、,!-]*$",
    r"^(?:(?:oh|and|also|ok|okay)[,\s]+)?(?:separately|separate (?:thing|question|request|matter)|unrelated"
    r"|on a (?:different|separate) note|different (?:topic|matter))[\s.:,!-]*$",
)


def only_separates(text: str) -> bool:
    """A sentence that only says a separate matter follows (「別件。」, "Separate question:"): the next one opens it."""
    return _ONLY_SEPARATES.search(normalize(text).strip()) is not None


def asks_for_something(text: str) -> bool:
    """A request, a question, or 「…も。」 ("… too"), which asks for it by leaving the request unsaid."""
    t = normalize(text).strip()
    return bool(_ASKS_TO_DO.search(t) or is_interrogative(t) or re.search(r"も[。.!]?$", t))
