"""Where a message sits in the dialog's structure, when the model alone misreads it: who the user is
(a self-introduction is background, not the goal), a question that asks for help with the task or a
decision (it states the goal after an introduction), and a request to keep the work to one part of the goal
(it narrows the mission). Used by `_reading.roles` and `_plan`; none of them is a model feature.
"""

from __future__ import annotations

import re

from ._features import GOAL_NOUN, INFO_REQUEST, NEGATED_WISH, WISH, cues, is_interrogative, normalize, values_of
from ._text import detect_language
from ._wants import THIRD_PARTY_WISH, states_wish

_I = re.IGNORECASE

# a question that asks for help with something or for a decision: "can you help me fix the middle of my novel?",
# "should I lease or buy a car?", 「在留資格の変更手続きについて教えていただけますか」
_DECISION = cues(
    r"\bshould (?:i|we)\b|\b(?:is it|would it be) (?:better|worth)\b|\bwhich (?:is|would be) better\b",
    r"\btorn between\b|\bcan'?t decide\b|\b(?:deciding|choose|choosing|pick|picking|decide) between\b",
    r"べきか|どっちがいい|どちらがいい|どちらが良い|か(?:で|を)?迷って|か(?:で|を)?悩んで",
)


def asks_for_help(text: str) -> bool:
    """A question or request that asks for help with a task or a decision, not for one fact
    ("is a permit required?"): it may state the goal when all that came before is background. A request for
    information counts when it names a subject (a dozen letters, a kanji counting two), not 「教えて」 alone."""
    t = normalize(text)
    if NEGATED_WISH.search(t):
        return False
    return bool(GOAL_NOUN.search(t) or _DECISION.search(t) or (INFO_REQUEST.search(t) and content_len(t) >= 12))


# who the user is, said before what they want: "I'm a retired chemistry teacher", "Hello, I am from Brazil",
# "I run a small bike shop", 「人事担当です」「書道教室をやってます」「佐藤と申します」 (not "I'm organizing a
# bake sale": what the user is doing may be the goal)
_SELF_INTRO = cues(
    r"^(?:(?:hi|hello|hey|hiya|yo|good (?:morning|afternoon|evening|day))(?: there| all| everyone)?\b[^a-z]*)?"
    r"(?:(?:ok|so|well),?\s+)*"
    r"(?:(?:i'?m|i am) (?:a|an|the|from)\b|my name is\b|(?:i'?m|i am) \w+,\s"
    r"|i work (?:as|at|in|for|with)\b|i teach\b|i (?:run|own|manage) (?:a|an|the|my|our|\w+ (?:at|for))\b"
    # a role without its article, as a learner writes it: "I am production engineer in a plant in Poland"
    # (not through a verb: "I'm planning a volunteer lunch" says what the user is doing)
    r"|(?:i'?m|i am) (?:(?!\w+ing\b)\w+ ){0,2}(?:engineer|manager|lead|director|officer|nurse|teacher|student|developer"
    r"|analyst|designer|consultant|coordinator|supervisor|owner|founder|volunteer|member|intern|admin\w*)\b"
    r"|i (?:volunteer|write|am writing|'m writing) (?:for|with|at|from)\b|i'?ve (?:just )?(?:joined|started at)\b)"
    # greetings from a place or a team, "<role> here": "hello from Siam Corner", "area manager for a chain here"
    r"|^(?:hi|hello|hey|hiya|greetings)\b[^a-z]*from\b|^(?:hi|hello|hey|hiya)\b[^a-z]*[\w' ]{3,60}\bhere[^\w]*$",
    r"と申します|と言います|担当(?:です|しております|者です|をしています)|から来ました|から来た\S{1,8}です|の出身です|出身の\S{1,8}です"
    r"|(?:を|で)(?:しています|しております|やってます|やっています|営んでおります|営んでいます)|を運営して|に勤めて|で働いて"
    # 「製造課の者です」「市民課の職員でございます」「購買部の山本です」「CSのSVやってます」: who, by team and role
    r"|(?:を|で)(?:している|やっている|やってる)\S{1,8}(?:です|と申します)|の者(?:です|でございます)|職員(?:です|でございます)|(?:部|課|室|係|局|センター|チーム|支店|店)の\S{1,6}(?:です|でございます)[。.!]?$"
    r"|の\S{1,6}でございます|\S(?:やってます|やってる|やっています|やっております)[。.!]?$",
)


def introduces_self(text: str) -> bool:
    """Whether a message says who the user is and nothing they want or ask (either makes it the goal)."""
    t = normalize(text)
    # someone else's wish counts here: "I'm a designer, my client wants a new logo" is the task, not who asks
    wishes = states_wish(t) or THIRD_PARTY_WISH.search(t) is not None
    found = list(_SELF_INTRO.finditer(t))
    if not found or wishes or is_interrogative(t):
        return False
    # a Japanese sentence ends on what it says: 「ネットショップをやっているんですが、カゴ落ちが多くて…」 leads on
    # from the introduction to a problem, which makes it the goal (「配車担当です、急ぎじゃないです」 does not)
    rest = _SENTENCE_END.split(t[found[-1].end() :], maxsplit=1)[0]
    leads_on = _LEADS_ON.match(rest) is not None and content_len(rest) > _INTRO_TAIL
    return not (leads_on and detect_language(t) == "ja")


_SENTENCE_END = re.compile(r"[。.!?\n]")
_LEADS_ON = re.compile(r"(?:が|けど|けれど(?:も)?|ので|から)[、,]")
_INTRO_TAIL = 6  # letters (a kanji counts two) after 「…んですが、」 that say more than who the user is


def content_len(text: str) -> int:
    """Letters and digits, a length comparable across the two languages' scripts (a kanji counts double)."""
    return sum(2 if "\u4e00" <= c <= "\u9fff" else 1 for c in text if c.isalnum())


# a request that keeps the work to one part of the goal: "let's just rework chapters 11 to 14 first", "can we
# just focus on the ground transport?", "so just the return trip", 「第1章のあらすじだけ先に作ろ」,
# 「告知文だけお願いします」, 「初回の画面に絞って」. The restricting word goes with what is to be done,
# never with a quantity ("we only have 5 days", 「2日だけ」 are conditions), and the sentence asks for it.
_SCOPE_EN = re.compile(
    r"\b(?:let'?s|let us|can we|could we|shall we|we should|i'?d (?:rather|like to)|please)\b[^.?!]{0,40}?"
    r"\b(?:just|only|first|focus(?:ing)? on|concentrate on|stick to|start with)\b"
    r"|\b(?:just|only) (?:focus|concentrate)\b"
    r"|\b(?:so|then)\s+(?:just|only)\s+(?:the|a|an|my|our|this|that|those|these)\b"
    r"|^(?:please\s+)?focus on\b"
    # asked to keep to one part: "we would ask you to focus solely on one element", "the client has asked for only
    # the glossary section to begin with", "better we plan the next 3 months of writing only"
    r"|\bfocus(?:ing)? (?:solely|only|exclusively|purely|entirely) on\b"
    r"|\b(?:ask|asking|want|need|like) you to (?:\w+ )?(?:focus|concentrate)\b"
    r"|\bonly (?:the|a|an|my|our|this|that) [\w' -]{1,40}?\b(?:to (?:begin|start) with|for now|for the time being"
    r"|as a (?:pilot|start|first step|trial))\b"
    r"|\b(?:we|i|let'?s|let us) (?:\w+ ){0,2}?(?:plan|cover|tackle|look at|write|draft)\b[^.?!,;]{1,40}?\bonly\b"
    r"(?!\s+(?:if|when|to|after|before)\b)",
    _I,
)
_PLEASE_JA = "(?:ください|下さい|ほしい|欲しい|もらえ|もらい|くれ|いただ|頂)"  # 「…して」 asked of someone
_SCOPE_JA = re.compile(
    r"(?:だけ|のみ)(?:を)?(?:先に|まず|とりあえず)?(?:お願い|頼[まみむめん]|手伝|一緒に|考え|作|やり|やろ|見て|教え|決め|書い|書こ|まとめ|相談|進め|詰め"
    # asked for, not what the user can do (「平日の夜だけ練習できる」 is a condition)
    rf"|(?:練習|確認|チェック|添削|準備|整理)(?:させて|して{_PLEASE_JA}|しよう|しましょう)|(?:直して|調べて){_PLEASE_JA})"
    r"|に(?:絞って|絞り|絞ろ|絞りましょう|集中し)|を優先(?:して|しましょう|しよう)"
)
_COUNTED_JA = re.compile(r"[0-9\u3007一二三四五六七八九十百千万][^\s、。だのを]{0,3}(?:だけ|のみ)")
_COUNTED_EN = re.compile(
    r"\b(?:just|only)\s+(?:\w+\s+)?(?:about\s+|around\s+|a\s+)?"
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|once|twice)\b"
    r"|\b(?:just|only)\s+(?:use|using|with|in|via|under|within|keep|stay)\b",
    _I,
)


def narrows_scope(text: str) -> bool:
    """A request to keep the work to one part of the goal (see `_SCOPE_EN`): it narrows the mission, whatever
    values it names ("chapters 11 to 14") and even said as a change or a question ("actually, can we just
    focus on ...?"); a restriction of a quantity ("let's only invite 10 people") is a condition."""
    t = normalize(text)
    if _COUNTED_EN.search(t) or _COUNTED_JA.search(t):
        return False
    return bool(_SCOPE_EN.search(t) or _SCOPE_JA.search(t))


# a question about the assistant before any task: what it can do, or whether the user may ask ("can you read
# spreadsheets?", "do you know much about web hosting?", "are you able to help with academic matters, or only
# general questions?", 「日本語で大丈夫ですか」「お金の話してもええ」「ちょっと聞いてくれる」); a request
# for the task itself ("can you help me write a cover letter?", 「議事録をまとめてくれる」) is the goal
_ABOUT_ASSISTANT = cues(
    r"^(?:(?:quick q(?:uestion)?|hi|hey|hello|so|ok|um+)\b[,!.:]?\s*)*"
    r"(?:do (?:you|u) know (?:much|anything|a lot|a thing)(?: at all)? about\b"
    r"|(?:are|r) (?:you|u) (?:able|allowed) to (?:help|talk|answer|give|discuss|deal)\b"
    r"|(?:can|could|do) (?:you|u) (?:read|see|open|handle|understand|speak|process|access|view|work with)"
    r" (?!my\b|our\b|this\b|these\b|that\b|the\b|it\b|me\b)[\w-]+"
    r"(?: (?:files?|docs?|documents?|images?|photos?|code|data))?"
    r"\s*(?:[?,]|$)"
    r"|(?:can|could) (?:you|u) (?:give|offer) (?:advice|tips|help) (?:on|about|with) [\w -]{1,30} or is (?:that|it)\b"
    r"|is (?:it|this) (?:ok|okay|alright|fine) (?:if i|to) (?:ask|talk)\b|can i ask (?:you )?about\b)",
    r"^(?:\S{0,6}[、,]\s*)?(?:(?:日本語|英語)で(?:も)?(?:大丈夫|いい|OK|ok|平気)"
    r"|\S{0,12}(?<!に)(?:話|相談|質問)(?:を)?(?:して|し)?も(?:いい|ええ|大丈夫|よろし)"  # not 「…さんに相談しても」
    r"|\S{0,12}(?:聞いて|きいて)(?:も)?(?:いい|ええ|もらえ|くれ)"
    r"|\S{0,12}(?:相談|質問)(?:って|は|とか|も|に)?(?:でき|乗って|乗れ|受け付け))",
)


# a remark about the conversation itself before any task: "hi, first time using this thing", "I hope my
# English is okay", "It's been a rough month, so bear with me", 「初めて利用します」「長くなりますが」
_ABOUT_CONVERSATION = cues(
    r"\bfirst time (?:using|trying|on|here|asking|doing this|writing)\b|\bhope my (?:english|japanese|writing) is\b"
    r"|\b(?:sorry|excuse) (?:for|about) my (?:english|bad english|typos|spelling)\b|\bmy english (?:is not|isn'?t)\b"
    r"|\bbear with me\b|\bplease be patient\b|\bset this up for me\b"
    r"|\b(?:this|it)(?:'s| is)? (?:going to|gonna|might|may|will) (?:be|get)"
    r" (?:a bit |a little |rather |quite )?long\b"
    r"|^(?:(?:hi|hey|hiya|hello|so|ok|okay)\b[,!.]*\s*)*(?:(?:a )?quick (?:question|one|q)"
    r"|i (?:have|got|'ve got) a (?:quick )?question|can i ask (?:you )?(?:something|a question)"
    r"|(?:i'?ve got|i have|i got|got|have) a (?:quick |small |little )?favou?r to ask)"
    r"(?: for you| of you)?\s*[.!:?]*$"
    # a voice note's first words ("um okay so hi, is this recording"), a greeting with a smiley ("hi there :)")
    r"|\bis (?:this|it)(?: thing)? (?:recording|working|on)(?=\s*[,.!?]|\s*$|\s+(?:yeah|yes|ok|okay|right|hello|hi)\b)"
    r"|^(?:hi|hey|hello|hiya)(?: there| all)?[\s!.,]*(?::-?\)|:-?d|\(:)\s*$",
    r"初めて(?:の)?(?:利用|使|質問|相談|投稿)|長く(?:なりますが|なるけど|なっちゃうけど|なってすみません)"
    r"|(?:孫|息子|娘|家族|子ども|子供)に(?:教わって|教えてもらって|設定してもらって|入れてもらって)"
    r"|日本語(?:が|は)?(?:下手|変|おかしい)|(?:うまく|上手く)(?:説明|伝え)(?:でき|られ)(?:ない|るか)"
    # a request announced with nothing yet to say what it is, after fillers at most: 「あの、ちょっと相談なんですけど」
    # 「質問があります」 (not 「実家の片付けについてご相談です」)
    r"|^(?:[\u3040-\u309f\u30fc]{1,8}[、,!]\s*)*(?:ちょっと|少し|ひとつ|一つ)?(?:ご)?(?:相談|質問|そうだん|しつもん)"
    r"(?:なん|です|があ|させて|いい|ええ|に?乗って)"
    # 「えーっと、あ、これもう始まってます?」: a voice note's first words
    r"|(?:これ|もう)(?:もう)?(?:始まって|はじまって|録音(?:して|され)て)(?:ます|る)",
)


_NAMES_A_TASK = 20  # letters (a kanji counts two) beside a remark: more asks for the task itself


def only_about_the_conversation(text: str) -> bool:
    """Whether a short message before the task only asks what the assistant can do or whether the user may
    ask (`_ABOUT_ASSISTANT`), or remarks on the conversation itself (`_ABOUT_CONVERSATION`): not yet the
    task, which a later message states."""
    t = normalize(text).strip()
    if content_len(t) > 90 or values_of(t):
        return False
    remark = _ABOUT_CONVERSATION.search(t) is not None
    rest = _ABOUT_CONVERSATION.sub("", t).strip(" 、,.。!")
    if WISH.search(rest):  # "I hope my English is okay" wishes nothing of the task
        return False
    if remark and asks_for_help(rest) and content_len(rest) >= _NAMES_A_TASK and not _ABOUT_ASSISTANT.search(rest):
        return False  # "can u help me edit my podcast episode, first time doing this lol" asks for the task
    if remark:
        return True
    return is_interrogative(t) and content_len(t) <= 70 and _ABOUT_ASSISTANT.search(t) is not None
