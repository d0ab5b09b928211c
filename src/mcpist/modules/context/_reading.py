"""Reading one user message: its sentences, what the model makes of each, and the role each plays.

The model (`_intent.py`) scores each sentence; the dialog's structure then decides:
- the first substantive message states the goal, unless it is only a greeting, thanks or small talk
  (the model reads it as small talk and it is nearly wordless, or the model's next reading of it is
  not a goal: 「おつかれ〜」, "hiya 🙂"):
  its most goal-like sentence and the others but those that only set a value (questions included);
  when it only gives background or a complaint (no wish, no question), the first wish that sets no value,
  or wishes for an outcome (「1時間で終わるようにしたい」), joins it;
- a sentence that says what the user wants most (「一番見たいのは土星の輪」, "mostly I want to ...")
  narrows the goal: it joins the mission under the goal, which stays, also after a goal that only gave
  background; so does one that says what the goal is in other words ("the point is to ...",
  「要は…」「というより…」), values and all, even after "actually"; a wh-clause as the subject ("what I
  actually need is a chore chart") states, it does not ask;
- after that, a declarative sentence that is not a question is a requirement by default; a new goal
  joins the mission when the model is sure, when it is a wish the model reads as a goal, when the user
  opens a separate request, or when the stored goal was small talk the model does not read as one;
- a question (by its form, with or without a question mark: 「…かな」「AかBか」, "A or B", "wondering
  whether ...", by the model, or a request for information) is never stored as a
  constraint, unless the message accepts what it asks (「〜に延ばせる? じゃあそれで」) or it asks to set
  a value (「7日分にしてもらえますか」).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from . import _attributes as at
from . import _features as f
from . import _structure as st
from . import _wants as w
from ._intent import Label, Vector, Weights
from ._text import Language, content_words, detect_language, split_sentences

Role = Literal["goal", "statement", "question", "filler"]

_ACCEPT_ALONE = 30  # a sentence this short that accepts belongs to the sentence before it
SURE_GOAL = 0.8  # after the goal, a sentence joins the mission when the model is this sure ...
NEW_GOAL = 0.65  # ... or this sure and it says the user wants something (「…したい」, "I also want ...")
WEAK_GOAL = 0.5  # a stored goal the model reads as one below this is small talk taken for the goal: then
AFTER_WEAK_WISH = 0.3  # a sentence it reads as a goal, or a wish from this probability, joins the mission
THANKS_BESIDE = 24  # letters (a kanji counts two): a sentence this short that sets nothing is part of thanks beside it
ASKED_AFTER_BACKGROUND = 20  # letters (a kanji counts two): a question this long after background joins the goal
SMALL_TALK = 0.7  # first message: a sentence read as small talk with this probability does not state the goal
CONTENT_WORDS = 3  # ... nor one read as small talk below it with fewer content words, unless a goal is its next reading


@dataclass(frozen=True)
class Sentence:
    text: str
    vector: Vector
    attribute: Vector
    values: tuple[f.Value, ...]
    probs: dict[Label, float]
    interrogative: bool
    filler: bool

    @property
    def top(self) -> Label:
        return max(self.probs, key=lambda label: self.probs[label])


@dataclass(frozen=True)
class Reading:
    message: str
    language: Language
    sentences: tuple[Sentence, ...]
    accepted: str | None  # 「じゃあそれで」: the message adopts the value its question proposes
    revision: str | None
    narrowing: str | None


# the number of a list item ("1.", "2)", "(3)", 「①」): a bullet, not a sentence of its own
_LIST_MARK = re.compile(r"^(?:\(?\d{1,2}[.)](?!\d)|[\u2460-\u2473\u2776-\u277f])\s*")


# a statement with a short question about it after its last comma: "Priya has to sign off each stage, does that
# slow us down?", 「プランターは3つなんですけど、1つに2株って多すぎますか?」; the statement is said either way
_TAG_EN = re.compile(
    r"^(?P<lead>.+)(?:,|\s[-\u2013\u2014])\s+(?P<tag>(?:(?:but|so|and)\s+)?(?:does|do|did|is|are|was|will|would|could"
    r"|can|should|has|have|isn't|doesn't|won't|wouldn't|right|ok|okay|any|what|how|which|where|when|why|maybe|or"
    r"|(?:this|that|it)(?:'s| is| will| would))\b[^,]*\?+)\s*$",
    re.IGNORECASE,
)
# 「…けど」「…ですが」: a lead that a question about it may follow
_BUT_JA = "けど|けれど|けれども|ですが|ますが|んだが"
_TAG_JA = re.compile(
    f"^(?P<lead>.+(?:{_BUT_JA}|です|ます|ました|でした|ので|から|欲しい|ほしい|たい|ねん|んだ|んや|てて|ていて))"
    "、(?P<tag>[^、]+(?:[?\uff1f]+|(?:か|かね|かな|でしょうか)[。.]?))\\s*$"
)
# ... or with no comma after 「けど」「ですが」 when it only asks whether that is all right: 「平日は水やりは朝だけしか
# できないけど大丈夫かな」, 「予算は3万円までなんですが問題ないでしょうか」
_TAG_JA_OK = re.compile(
    f"^(?P<lead>.+(?:{_BUT_JA}))(?P<tag>(?:それで|これで)?(?:大丈夫|問題な|平気|足り|間に合)"
    "[^、。?\uff1f]{0,8}(?:[?\uff1f]+|(?:か|かな|かね|でしょうか)[。.]?))\\s*$"
)
# a lead that is itself a question or only a condition of the question ("if the budget is $500, what …?"), or
# only softens the request (「恐れ入りますが、…いただけますでしょうか」)
_NOT_A_STATEMENT = re.compile(
    r"^(?:if|when|unless|whether|assuming|supposing|is|are|do|does|did|can|could|would|will|should|what|how|why"
    r"|which|who|where)\b|[?\uff1f]"
    r"|^(?:恐れ入ります|恐縮です|すみません|すいません|申し訳(?:ありません|ございません|ないです)|お手数です|失礼です"
    r"|お忙しいところ(?:恐縮です|すみません|申し訳ありません)?)が$",
    re.IGNORECASE,
)
# a tag that only asks for help with what the lead says ("…, can you help me?", 「…、手伝ってくれる?」) is part of it
_ONLY_HELP = re.compile(
    r"^(?:(?:so|and|but)\s+)?(?:(?:can|could|would|will) (?:you|u|someone|anyone) (?:please )?(?:help|assist)"
    r"(?: me| us)?(?: out)?(?: with (?:it|this|that))?(?: please)?|any (?:ideas|tips|advice|suggestions|thoughts))\?+$"
    r"|^(?:手伝って|助けて|相談に乗って)\S{0,10}[?\uff1f]+$",
    re.IGNORECASE,
)
# options the question weighs ("tents or cabins, what's easier for a mixed group?"): no statement
_OPTIONS = re.compile(r"\bor\b", re.IGNORECASE)
# a question about what was just said ("is that going to be enough?", 「それで足りますか」): not what the user came for
_ASKS_ABOUT_IT = re.compile(
    r"^(?:(?:but|so|and)\s+)?(?:is|does|will|would|can|could|should|was|did|isn't|doesn't|won't) (?:that|this|it)\b"
    r"|^(?:それ|これ|そんなの|そんなん)(?:で|って|は|も|じゃ|だと|なら)",
    re.IGNORECASE,
)
TAG_LEAD_WORDS = 3  # an English statement before a tag question says at least this many words ...
TAG_LEAD_CHARS = 5  # ... a Japanese one this many characters


def split_tag_question(text: str) -> list[str]:
    """`text`, or the statement and the short question about it that follows it after a comma (or a dash)."""
    japanese = detect_language(text) == "ja"
    found = (_TAG_JA.match(text) or _TAG_JA_OK.match(text)) if japanese else _TAG_EN.match(text)
    if found is None:
        return [text]
    lead, tag = found.group("lead").strip(), found.group("tag").strip()
    words = len(lead) if japanese else len(lead.split())
    if _NOT_A_STATEMENT.search(lead) or words < (TAG_LEAD_CHARS if japanese else TAG_LEAD_WORDS):
        return [text]
    if _ONLY_HELP.search(tag) or _OPTIONS.search(lead):
        return [text]
    # what only the whole says stays whole: "the main job is getting sponsors, can we centre on that?" narrows the
    # goal, 「それとは別件やけど、ブログの書き出しも考えてくれへん?」 asks for a separate piece of work
    for says in (w.opens_separate_request, w.narrows_goal, w.focuses, st.narrows_scope):
        if says(text) and not says(lead):
            return [text]
    return [lead + ("、" if japanese else ","), tag]


def sentences_of(message: str) -> list[str]:
    """The message's sentences and bullet points; 「じゃあそれで」 stays with the question it accepts, and a short
    question about a statement is a sentence of its own (`split_tag_question`)."""
    out: list[str] = []
    parts = [piece for part in split_sentences(message) for piece in split_tag_question(part)]
    for n, part in enumerate(parts):
        bullet = part.lstrip("・-*•● ")
        text = _LIST_MARK.sub("", bullet).strip() if n + 1 < len(parts) or _LIST_MARK.sub("", bullet) else bullet
        if not text:
            continue
        if out and f.is_wordless(text):
            out[-1] += text  # "thanks!!" → "thanks!" + "!": punctuation and emoji end the sentence before
        elif out and f.ACCEPT.search(text) and len(text) <= _ACCEPT_ALONE:
            out[-1] += " " + text
        else:
            out.append(text)
    return out or [message.strip()]


def texts_to_embed(message: str, language: Language) -> list[str]:
    out: list[str] = []
    for s in sentences_of(message):
        out += [s, at.attribute_text(s, language)]
    return out


# (a Latin name only: a line of kanji after 「よろしくお願いします」 may as well be what the user wants)
_SIGNATURE = re.compile(r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|Rev)\.?\s+)?[A-Z][\w'-]*\.?(?:\s+[A-Z][\w'.-]*){0,3}$")


# a Japanese letter's signature, on its own last line after a blank one and a closing: a surname, under the group or
# the department it writes for (「山本」「営業二課\u3000山本」「三丁目町内会\u3000佐藤」); no figure, no punctuation
_JA_SIGNATURE = re.compile(
    r"(?:[^\s\d。、.,!?\uff01\uff1f「」()\uff08\uff09:\uff1a]{1,20}[\u3000 ]+){0,3}[\u4e00-\u9fff々]{1,4}(?:より|拝)?$"
)
_ENDS_SENTENCE = re.compile(r"[.!?\u3002\uff01\uff1f]\s*$")
_ARTICLE = re.compile(r"(?:the|a|an|this|that|our|my|next|last)\b", re.IGNORECASE)
_JA_CLOSING = re.compile(r"(?:よろしく|宜しく)お願い(?:いた|致)?します|お願い申し上げます|以上|敬具")

# how a letter opens and closes ("Hi again,", "Dear Ms Lee,"; "Best wishes,", "Cheers,"): only to find its signature
_GREETING = re.compile(r"(?:hi|hello|hey|hiya|dear|good (?:morning|afternoon|evening))\b[^.!?]{0,30}[,!]?\s*$", re.I)
_CLOSING = re.compile(
    r"(?:(?:best|kind|warm|many)(?: regards| wishes| thanks)?|regards|cheers|thanks(?: again| in advance)?|thank you"
    r"|sincerely|yours(?: sincerely| truly)?|all the best|speak soon|ta)[,.!]?\s*$",
    re.I,
)


def read(message: str, language: Language, vectors: Mapping[str, Vector], weights: Weights) -> Reading:
    """`vectors` must hold every text of `texts_to_embed(message, language)`."""
    sentences: list[Sentence] = []
    lines = message.strip().splitlines()
    # whether the last line sits under a finished sentence (a blank line may come between)
    above = next((line for line in reversed(lines[:-1]) if line.strip()), "")
    under_sentence = _ENDS_SENTENCE.search(above) is not None
    for text in sentences_of(message):
        values = f.values_of(text)
        line = text.strip()
        # the name under a closing ("Thanks in advance,\nOwen", "Kind regards,\nDr. Helen Price") signs it, and so
        # does a name alone on the last line of a message that opened with a greeting ("Hi,\n\n…\n\nOwen")
        name = _SIGNATURE.match(line) is not None
        last_line = len(lines) > 1 and line == lines[-1].strip()
        greeted = bool(sentences) and (sentences[0].filler or _GREETING.match(sentences[0].text) is not None)
        closed = bool(sentences) and (sentences[-1].filler or _CLOSING.match(sentences[-1].text) is not None)
        # ... or on the last line under a finished sentence ("…closer to 85 now.\nRachel"; not the last of a list,
        # "Tools:\nSlack\nNotion"); a value or an article makes it an answer: "…when?\nNext Friday", "The Crown"
        ended = last_line and under_sentence and not values
        signed = name and (closed or (last_line and greeted) or (ended and not _ARTICLE.match(line)))
        if not signed and last_line and _JA_SIGNATURE.fullmatch(line) is not None:
            # a Japanese one: with the group it writes for under a finished sentence (「…します。\n総務課\u3000田中」),
            # or any after a blank line under a closing
            closing = bool(sentences) and _JA_CLOSING.search(sentences[-1].text) is not None
            signed = (ended and "\u3000" in line) or (len(lines) > 2 and not lines[-2].strip() and closing)
        sentences.append(
            Sentence(
                text=text,
                vector=vectors[text],
                attribute=vectors[at.attribute_text(text, language)],
                values=values,
                probs=weights.intent(vectors[text], f.features(text, language)),
                interrogative=f.is_interrogative(text),
                filler=signed or f.is_filler(text),
            )
        )
    if any(s.filler and f.thanks(s.text) for s in sentences):
        # a short reaction beside thanks is part of them: 「ありがとうございます、がんばります」, 「天才、ありがと〜」
        sentences = [
            replace(s, filler=True)
            if not s.filler and st.content_len(s.text) <= THANKS_BESIDE and f.sets_nothing(s.text)
            else s
            for s in sentences
        ]
    return Reading(
        message=message,
        language=language,
        sentences=tuple(sentences),
        accepted=f.cue(f.ACCEPT, message),
        revision=f.cue(f.REVISION, message) or f.cue(f.CHANGE, message),
        narrowing=f.cue(f.NARROWING, message),
    )


def _model_role(s: Sentence, reading: Reading) -> Role:
    if s.filler or (s.top == "UNCLEAR" and not s.values):
        return "filler"
    # a request to set a value is a requirement, even phrased as a question (「7日分にしてもらえますか」)
    setting = bool(s.values) and f.SETTING_REQUEST.search(f.normalize(s.text)) is not None
    asking = s.interrogative or s.top == "QUESTION" or f.asks_for_information(s.text)
    if asking and not reading.accepted and not setting:
        return "question"
    return "goal" if s.top == "PROBLEM_DEFINITION" else "statement"


def _sets_value(s: Sentence) -> bool:
    """A statement that sets a value (「予算は5万円以内です。」): a condition rather than the goal."""
    return any(v.kind != "date" for v in s.values) and s.top != "PROBLEM_DEFINITION" and not s.interrogative


def _may_state_goal(s: Sentence, language: Language) -> bool:
    """Whether a sentence the model reads as small talk, without being sure, may still state the goal: its
    next reading is a goal ("help me pack": small talk or a goal), or it says enough to be about something
    (three content words); 「おつかれ〜」 or "hey 👋 quick q" (small talk or a fact, and nearly wordless) do not."""
    p = s.probs["PROBLEM_DEFINITION"]
    runner_up = all(p >= q for label, q in s.probs.items() if label not in ("UNCLEAR", "PROBLEM_DEFINITION"))
    return runner_up or content_words(s.text, language) >= CONTENT_WORDS


DOUBT = 0.8  # small talk at this share of the top reading or more is a reading the model doubts


def _doubted(s: Sentence, language: Language) -> bool:
    return (
        not s.values
        and s.probs["UNCLEAR"] >= DOUBT * max(s.probs.values())
        and content_words(s.text, language) < CONTENT_WORDS
    )


def _first_roles(reading: Reading, model: list[Role]) -> list[Role]:
    """The first substantive message states the goal: its most goal-like sentence, and every other
    sentence but those that set a value (「予算は5万円以内です。」, constraints). A question is part of
    the goal here (「離乳食ってどうやって進めればいいんですか」 asks what the user wants solved).

    Small talk the model is not sure about still states the goal when nothing else does and it may be one
    (`_may_state_goal`): the mission is never empty once something substantive was said (a later, clearer
    goal joins it, see `roles`), and a greeting alone (「おつかれ〜」) leaves the goal to the next message.
    """
    sentences = reading.sentences
    # nearly wordless and about as likely small talk as anything else (「ちわっす〜」: a statement at 0.45, small
    # talk at 0.43): small talk the model doubts, as if it had read it so by a hair
    model = [
        "filler" if r == "statement" and _doubted(sentences[i], reading.language) else r for i, r in enumerate(model)
    ]
    content = [i for i, r in enumerate(model) if r != "filler"]
    if not content:
        spoken = [i for i, s in enumerate(sentences) if not s.filler]
        if not spoken:
            return model
        best = max(spoken, key=lambda i: sentences[i].probs["PROBLEM_DEFINITION"])
        if sentences[best].probs["UNCLEAR"] >= SMALL_TALK or not _may_state_goal(sentences[best], reading.language):
            return model
        content = [best]
    best = max(content, key=lambda i: (sentences[i].probs["PROBLEM_DEFINITION"], -i))
    out: list[Role] = ["filler"] * len(model)
    for i in content:
        out[i] = "statement" if i != best and _sets_value(sentences[i]) else "goal"
    return out


def roles(
    reading: Reading, has_goal: bool, goal_strength: float = 1.0, goal_wishes: bool = True, goal_intro: bool = False
) -> list[Role]:
    """The role of each sentence, by the model and the dialog's structure; once there is a goal, a request to
    keep the work to one part of it ("can we just focus on the ground transport?", 「告知文だけお願いします」)
    is a statement whatever its form, which the plan puts under the goal (`st.narrows_scope`)."""
    out = _roles(reading, has_goal, goal_strength, goal_wishes, goal_intro)
    if not has_goal:
        return out
    # "lead with the rollback plan", 「大事なのは雨の日の段取り」: a frame that says what matters most, too
    scoped = [
        r != "filler" and (st.narrows_scope(s.text) or w.FOCUS_FRAME.search(f.normalize(s.text)) is not None)
        for s, r in zip(reading.sentences, out, strict=True)
    ]
    return ["statement" if scope else r for scope, r in zip(scoped, out, strict=True)]


def _roles(reading: Reading, has_goal: bool, goal_strength: float, goal_wishes: bool, goal_intro: bool) -> list[Role]:
    """The role of each sentence, by the model and the dialog's structure.

    `goal_strength` is how sure the model is that the stored goal is one (its probability of
    PROBLEM_DEFINITION): when small talk became the goal, a later statement of a goal joins it.
    `goal_wishes` says whether the stored goal says what the user wants: when it is only background
    (「最近肩こりがひどくて」), the first wish that sets no value is the goal it led to and joins it.
    `goal_intro` says that the stored goal only introduces the user (a long introduction; a short one is
    kept as background instead): then the first request for help joins it as well, even as a question.
    After background the first question that names something ("how do i resize a jumper pattern for a
    kid?", 「船のアジ釣りって何を持っていけばいい」) joins it too: it asks what the user came for.
    """
    out = [_model_role(s, reading) for s in reading.sentences]
    if not has_goal:
        return _first_roles(reading, out)
    if not goal_wishes:
        for i, s in enumerate(reading.sentences):
            # a value makes a wish a condition (「予算は5万円にしたい」), unless it wishes for an outcome
            # (「会議資料に毎週半日かかる」 → 「1時間で終わるようにしたい」)
            valued = any(v.kind != "date" for v in s.values) and not w.wishes_an_outcome(s.text)
            wish = w.states_wish(s.text) and not f.is_interrogative(s.text)
            # a decision the user is torn on is the goal too: 「学資保険か新NISAかで迷っています」
            if out[i] == "statement" and not valued and (wish or st.asks_for_help(s.text)):
                out[i] = "goal"
            elif (
                out[i] == "question"
                and not _ASKS_ABOUT_IT.search(f.normalize(s.text))
                and ((goal_intro and st.asks_for_help(s.text)) or st.content_len(s.text) >= ASKED_AFTER_BACKGROUND)
            ):
                out[i] = "goal"  # after "I'm a retired chemistry teacher.": "Can you help me fix my novel?"
        if "goal" in out:
            # "mostly I want to interview older residents": a narrower goal stays under the goal, as below
            return [
                "statement" if r == "goal" and w.narrows_goal(s.text) and not reading.revision else r
                for s, r in zip(reading.sentences, out, strict=True)
            ]
    weak = goal_strength < WEAK_GOAL
    if weak and not reading.revision and any(s.top == "PROBLEM_DEFINITION" for s in reading.sentences):
        # small talk was taken for the goal (「今日暑かったね」): the first message the model reads as a
        # goal states it, as a first message would, a question included (「…どう組めばいいの」)
        first = _first_roles(reading, out)
        # 「主にお年寄りに話を聞く番組にしたい」 still narrows the goal: the plan keeps it under the goal
        return [
            "statement" if r == "goal" and w.narrows_goal(s.text) else r
            for s, r in zip(reading.sentences, first, strict=True)
        ]
    for i, s in enumerate(reading.sentences):
        text = f.normalize(s.text)
        p = s.probs["PROBLEM_DEFINITION"]
        wish = f.WISH.search(text) is not None and not f.NEGATED_WISH.search(text)
        if weak and out[i] == "statement" and wish and p >= AFTER_WEAK_WISH and not reading.revision:
            out[i] = "goal"  # small talk was taken for the goal: 「北海道旅行したいんだけど」 joins it
        if w.only_separates(s.text):
            out[i] = "filler"  # 「別件。」 sets nothing: it says what the next sentence does
            continue
        # 「別件。月次グラフの作り方も。」: the separate matter named in a sentence of its own opens the next one
        announced = i > 0 and w.only_separates(reading.sentences[i - 1].text) and w.asks_for_something(s.text)
        separate = (w.opens_separate_request(s.text) or announced) and not reading.revision
        if out[i] in ("question", "statement") and separate:
            out[i] = "goal"  # "Separately, could you also draft three interview questions?": a second goal
        if out[i] != "goal":
            continue
        if w.narrows_goal(s.text) and (not reading.revision or w.restates_goal(s.text)):
            out[i] = "statement"  # a narrower goal: the plan keeps it under the goal, in the mission
            continue
        # 「あと別件で、…したい」, "separately, ...": the user says a new request starts; "I also need to get
        # our Instagram going": a wish that sets no value (a value makes it a condition) and the model reads
        # as a goal; otherwise only a goal the model is sure of
        opens = separate or f.NEW_TOPIC.search(text) is not None
        wished = wish and (p >= NEW_GOAL or not (s.values or f.NEGATED_WISH.search(text)))
        if reading.revision or not (opens or wished or p >= SURE_GOAL or weak):
            out[i] = "statement"
    return out


def external_roles(reading: Reading, labels: list[Label], has_goal: bool) -> list[Role]:
    """Roles that follow labels given from outside (the LLM or the cue rules) for the whole message."""
    model = roles(reading, has_goal)
    given = set(labels)
    content = [r != "filler" for r in model]
    if not has_goal and any(content) and "PROBLEM_DEFINITION" not in given:
        given.add("PROBLEM_DEFINITION")  # the mission is never empty once something was said
    wants_goal = "PROBLEM_DEFINITION" in given
    wants_statement = bool(given & {"CONSTRAINT_ADDITION", "REFINEMENT"})
    out: list[Role] = []
    for role, has in zip(model, content, strict=True):
        if not has:
            out.append("filler")
        elif role == "goal" and wants_goal:
            out.append("goal")
        elif role in ("goal", "statement") and wants_statement:
            out.append("statement")
        elif role == "question":
            out.append("question")
        else:
            out.append("goal" if wants_goal else "statement" if wants_statement else "question")
    if wants_goal and "goal" not in out and any(content):
        first = content.index(True)
        out[first] = "goal"
    if wants_statement and "statement" not in out:
        out = ["statement" if r == "question" else r for r in out]
    return out


def strongest(probs: Mapping[Label, float]) -> tuple[Label, float]:
    label = max(probs, key=lambda k: probs[k])
    return label, float(np.round(probs[label], 2))
