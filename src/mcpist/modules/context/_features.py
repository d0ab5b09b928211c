"""Cheap, deterministic features of a sentence: typed values, cue words and punctuation.

None of these decides anything alone: they are inputs of the learned intent and same-attribute
models (`_intent.py`), next to the sentence embedding. The value spans also give the "attribute
text" (the sentence with its values masked), whose embedding says *what* is being set.
"""

from __future__ import annotations

import math
import re
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ._values import NUMERIC as NUMERIC
from ._values import VALUE_KINDS as VALUE_KINDS
from ._values import Value as Value
from ._values import ValueKind as ValueKind
from ._values import magnitude as magnitude
from ._values import normalize as normalize
from ._values import shape as shape
from ._values import values_of as values_of

_I = re.IGNORECASE


def cues(*patterns: str) -> re.Pattern[str]:
    """One case-blind pattern matching any of `patterns`."""
    return re.compile("|".join(patterns), _I)


REVISION_WORDS = (
    r"やっぱり?|やっぱ|やはり|訂正(?:です)?|変更です|\bactually\b|\bscratch that\b|\bchange of plans?\b|\binstead\b"
    r"|\bafter all\b|\bon second thought\b|\bcorrection:?|\bon reflection\b|\bafter thinking about it\b"
)
REVISION_WORD = re.compile(REVISION_WORDS, _I)  # the words alone, to take them out of a sentence
REVISION = cues(
    REVISION_WORDS,
    r"訂正|ではなく|じゃなく|じゃなくて|でなく|の代わりに|をやめて|はやめて|撤回|間違い|方針転換|さっきの|先ほどの",
    r"\bi meant\b|\brather than\b|\bforget (?:what|about)\b|\bturns out\b|\bupdate:|\bwrong\b|\bno,",
    # 「いや、…」「いや毎日は無理」 opening a sentence: "no, …" (not 「いやー」「いやあ」, a sigh,
    # nor 「いやだ」, a dislike)
    r"^(?:あ[、,]\s*)?いや(?:いや)?(?=[、,\s]|[\u3400-\u9fff\u30a1-\u30fa0-9])",
    # a condition dropped or a count redone: "scrap the evenings", "plot twist: …", "Recounted. £11.5k."
    r"\bscrap (?:that|the|it)\b|\bplot twist\b|\bre-?counted\b|数え直した",
    # an apology, or a second look, before a fact corrects it: 「すみません、…35台でした」「確認したら東向きでした」
    r"(?:すみません|ごめん|失礼しました|申し訳)[^。]*でした|(?:確認|調べ|見直|数え直)したら",
    # an amount found on looking, asking or redoing: 「規定を見たら3万字以上でした」,
    # 「集計し直したところ、398万円でした」, 「読んだら」「頼んだら」 too (not 「どうやったら」, a question how to)
    r"(?<!どうやっ)(?<!どうし)(?:た|(?<=[んい])だ)(?:ら|ところ)[、,]?[^。?\uff1f]*?\d[^。?\uff1f]*?"
    r"(?:でした|だった|やった|ありました|あった|いました|になっていました)(?![^。]*[?\uff1f])",
    r"\b(?:sorry|oops|my bad|my mistake)\b[^.]*\b(?:it'?s|it is|it was|we have|there are|actually)\b",
)
# a change of value without a revision word: 「延ばす」「増えた」, "bump", "grew", or a relaxed condition that
# revises a stricter one (「有料でも月千円までなら大丈夫」, "books are okay too")
CHANGE = cues(
    r"変更|変え|変わ|延ば|伸ば|延長|前倒|短縮|増や|減ら|増え|減っ|減り|(?<!仕)上げ|下げ|ずら|移す|移し|切り替え|早め|遅らせ|繰り",
    r"になりました|になった|ことになりました|ことにした|ことにしました|まで出せ|までなら|だけでいい",
    r"でも(?:大丈夫|構いません|構わない|かまわない|いい|良い|OK|可)|なら(?:大丈夫|構いません|構わない|OK|いい|良い|可)",
    r"\bmake (?:it|that)\b|\bchang(?:e|ed|ing)\b|\bswitch(?:ing|ed)?\b|\bmov(?:e|es|ed|ing)\b|\bbump(?:ed)?\b",
    r"\bslipped\b|\bshifted\b|\bextend(?:ed)?\b|\bpush(?:ed)?\b|\brevise[ds]?\b|\bno longer\b|\brescheduled\b",
    # news announced about the work ("good news, …", "update from the office: …", 「朗報です」「続報です」)
    r"\b(?:good|bad) news\b|\bupdate from\b|\b(?:omg|quick|small|big|another|latest|new) update\b|朗報|悲報|続報",
    # what holds from a time on, or has come to be: 「来月から20人体制」「1月19日となりました」, "from next month",
    # "as of today", "they've brought it forward", "Leeds came back with £52k"
    r"(?:来月|今月|来週|今週|来年|今年|次回|今回|年明け|来期|今期)から|となりました|となった",
    # what it is coming to, estimated anew: 「40人近くになりそう」「超えそう」, "closer to 85", "it's looking like 300"
    r"になりそう|になるそう|になるみたい|になるらしい|になるかも|超えそう|\bcloser to\b|\blooking like\b",
    r"\bfrom (?:next|this coming) (?:week|month|year|term|season|quarter)\b",
    r"\bfrom now on\b|\bas of (?:today|now|this|next)\b",
    r"\b(?:brought|bring|bringing) (?:[a-z]+ ){0,2}forward\b|\bcame back (?:with|at)\b",
    # "now" as against before ("95 guests now"), not the present state ("right now", "for now")
    r"(?<!\bright )(?<!\bfor )(?<!\bjust )\bnow\b",
    r"\b(?:lower|raise|drop|increase|reduce|cut|grew|grown|went up|goes up|way up|down to)\b|\bafter thinking\b",
    r"\b(?:is|are|would be|'s|'re) (?:fine|okay|ok|acceptable)\b|\bworks too\b|\bapproved\b|\bsigned off\b",
    # a decision or a preference over what was said: 「ガス炉にします」「〜のほうがよく売れます」, "propane it is"
    r"(?:に(?:します|する|しよう|した|しました)|で(?:します|しよう))(?:わ|よ|ね)?[。!\uff01]?\s*$",
    r"の(?:ほう|方)が(?:いい|良|よ[いかさ]|好|売れ|安|便利|楽|向い|合っ|まし|マシ|助か|嬉し|うれし|ありがた)",
    r"\bit is[.!]?\s*$|\b(?:suits?|works?|fits?|sells?|sounds?) (?:me |us )?better\b|\b(?:is|are) better\b",
)
ACCEPT = cues(
    r"じゃあ?それで|それでお願い|それでいこう|それで進め|それで行き|ならそれで",
    r"\bthen let'?s go with (?:that|it)\b|\blet'?s go with that\b|\bthat works,? (?:then|let)|\bgo with that\b",
)
ADDITIVE = cues(
    r"\balso\b|\bas well\b|\badditionally\b|\bin addition\b|\btoo\b|さらに|加えて|追加で|あわせて|も追加|もお願い"
)
# an explicit addition adds, whatever else it says ("On second thought, add Osaka as well")
ADDS = cues(r"\balso\b|\bas well\b|\badditionally\b|\bin addition\b|さらに|加えて|追加で|も追加|もお願い")
_MAKE_IT = re.compile(r"\bmake (?:it|that)\b", _I)
_LEADING_ADD = re.compile(r"^(?:(?:oh|and|plus|ok)[,\s]+)*(?:also|additionally|in addition)\b", _I)
# a sentence that opens by joining on ("and there's a mock exam in 2 weeks", 「あと、5000円以上で送料無料に」):
# with no word of change it adds to what was said, it changes nothing
LEADING_AND = cues(r"^(?:あと|あとは|それと|それから|ちなみに)[、,\s]", r"^(?:(?:oh|um+|er+)[,\s]+)?(?:and|plus)\b")
_CLAUSE = re.compile(r"[,;、:]|\s(?:but|and|so|because)\s|けど|ので|から(?=[、,])")


def adds(text: str) -> bool:
    """An explicit addition: "add Osaka as well". When the sentence sets a value, the word of addition
    must be in the clause that holds it ("make that $100, I forgot I also need breakfast stuff" changes)."""
    t = normalize(text)
    if not ADDS.search(t):
        return False
    if _LEADING_ADD.match(t) and not _MAKE_IT.search(t):
        return True  # "Also whatever they get, £1 goes into the savings jar": the whole sentence is added
    clauses = [c for c in _CLAUSE.split(t) if c.strip()]
    valued = [c for c in clauses if values_of(c)]
    return any(ADDS.search(c) for c in valued) if valued else True


# a count of some of a group already counted ("two of them", 「うち2人は」): a part, not a new total
PART = cues(
    r"(?:^|[、,\s]|その)うち\s*(?:\d|[一二三四五六七八九十])|の(?:うち|中で)\s*(?:\d|[一二三四五六七八九十])",
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|some|most|half|many|few|all)"
    r" of (?:them|us|those|these)\b",
)
# the user opens a separate request: "separately, ...", 「あと別件で」
NEW_TOPIC = cues(
    r"別件|もう一つ|もうひとつ|話(?:は|が)?変わ|それとは別に|ついでに",
    r"\bseparately\b|\banother thing\b|\bunrelated\b|\bon a different note\b|\bdifferent topic\b|\bone more thing\b",
)
NARROWING = cues(
    r"具体的には|具体的に言うと|特に|とくに|中心に|重点|に絞|を優先|から始め|まずは|もっと言うと|細かく言うと",
    r"\bmore specifically\b|\bspecifically\b|\bin particular\b|\bespecially\b|\bmostly\b|\bmainly\b",
    r"\bfocus(?:ed)? on\b",
    r"\bnarrow\b|\bto be (?:more )?(?:specific|precise)\b|\bprimarily\b|\bstart with\b",
    r"主に|おもに|一番|いちばん|本当は|ほんとは|本音|\bmain thing\b|\bmost of all\b|\babove all\b",
    r"\breally (?:want|like|need)\b|\bwhat i'?d really\b",
)
_FILLER_WORDS = (
    r"ok(?:ay)?|k+|cool|nice|great|perfect|awesome|thanks?(?: (?:a lot|so much))?|thank you(?: so much)?|thx|ty|cheers"
    r"|h+m+|lol|yes|yeah|yep|sure|alright|got it|understood|sounds good|interesting"
    r"|(?:hi|hello|hey)(?: there| all| everyone| guys| team| folks)?|(?:good )?(?:morning|evening|afternoon)"
    r"|let me think(?: about it)?|i see|noted|makes sense|that helps|this is great"
    r"|おけ|おk|了解(?:です|しました)?|承知(?:です|しました|いたしました)?|ありがと(?:う)?(?:ございます|ございました)?|どうも"
    r"|なるほど(?:ね)?|はい|いいね|いいです(?:ね)?|いい感じ(?:です)?|うーん|ふむ(?:ふむ)?|そっか|わかりました|分かりました"
    r"|こんにちは|こんばんは|おはよう(?:ございます)?|はじめまして|お世話になっております|よろしく(?:お願いします)?|やあ"
    r"|ちょっと考えます|助かりました|助かった|参考にします|また連絡します|どうしようかな"
    r"|ha(?:ha)+|lol|lmao|omg|wow|brb|ugh|phew|yay|笑|w+|草|たしかに|うんうん|へえ|すごい|おつかれさまです|おつです"
    r"|hope (?:you(?:'re| are)|your (?:day|week)(?:'s| is)|all is|everyone(?:'s| is))[\w' ]{0,20}"
    r"|お疲れさまです|お疲れ様です|いつもお世話になっております|以上です|以上となります"
    # greetings in other registers and in romaji, and a smiley: "hiya", "konbanwa", 「おつかれ〜」「まいど」「(^^)」
    r"|hiya|howdy|greetings|konnichiwa|konbanwa|ohayou?|おつかれ(?:さま|様)?(?:です|でした)?|まいど|\(\^+[_\-o.ω]?\^+;?\)"
    r"|(?:are )?(?:you|u) there|(?:good )?(?:morning|evening|afternoon) (?:all|everyone|team|folks)|so|ok so"
    r"|dear (?:sir or madam|sir|madam|all|team|colleagues)|(?:long[- ]time )?lurker|first (?:time )?post(?: here)?"
    r"|(?:quick )?(?:bit of )?background(?: first)?|(?:this|it) (?:might|may|will|could) (?:be|get) (?:a bit )?long"
    r"|bear with me|yours (?:faithfully|sincerely|truly)|(?:kind |best |warm )?regards"
    r"|おはよ[ーう]?|おーい|失礼(?:いた)?します|初投稿です|長文失礼します|(?:何卒|なにとぞ)?よろしくお願い(?:いた)?します"
    # greetings and salutations of any length, asking for a moment, and a header before notes
    r"|hiya|heya|howdy|yo|greetings|dear [\w.' ]{1,30}"
    r"|(?:i )?hope (?:this|my) (?:message |e-?mail |note )?finds you well|(?:i )?hope you can help(?: me)?"
    r"|(?:hey,? )?(?:got|have you got) a (?:sec|second|minute|moment)|quick question|can i ask (?:you )?something"
    # (a header ends with its colon: "minutes of the last meeting say we have £500" is a fact)
    r"|(?:(?:meeting )?(?:notes|minutes)(?: from| of| for)?|memo)\b[\w' ]{0,40}:|memo|(?:meeting )?(?:notes|minutes)"
    r"|お世話になります|やっほー?"
    # a closing with the name under it; 「夜分に失礼します」「突然のご相談、失礼いたします」
    r"|(?:(?:yours (?:faithfully|sincerely|truly)|(?:kind |best |warm )?regards|many thanks),?|best,)"
    r"\s*[A-Za-z][\w .'-]{0,40}"
    r"|(?:夜分(?:遅く)?に|突然の(?:ご連絡|ご相談|メール)?、?)失礼(?:いた)?します"
    r"|(?:ちょっと|少し)?(?:相談|質問)(?:いい|いいですか|してもいい(?:ですか)?|があります|があるんですが|あるんだけど)"
    r"|(?:いま|今)大丈夫(?:ですか)?|\S{0,12}(?:メモ|議事録)(?:です)?"
    # a business letter's closing: 「以上、よろしくお願いいたします」「引き続きよろしくお願い申し上げます」, its apology
    # for writing again 「度々申し訳ございません」 and its courtesies 「お忙しいところ恐れ入りますが」
    r"|以上|引き続き|今後とも|どうぞ|(?:何卒|なにとぞ)?(?:よろしく|宜しく)?お願い申し上げます|(?:何卒|なにとぞ)?宜しくお願い(?:いた|致)?します"
    r"|(?:度々|たびたび|重ね重ね)?(?:申し訳(?:ございません|ありません)|失礼(?:いた)?しました)"
    r"|お手数(?:を)?おかけ(?:します|いたします)(?:が)?|お忙しい(?:ところ|中)(?:恐縮ですが|恐れ入りますが|すみません)?"
    r"|恐れ入りますが|恐縮ですが"
    # the addressee a letter opens with: 「ご担当者様」「サポート窓口\u3000ご担当者様」「〇〇株式会社御中」「田中様」
    r"|(?:[^\s。、.,!?]{1,30}\s+){0,2}[^\s。、.,!?]{0,30}(?:ご担当(?:者)?(?:様|さま)|御中|各位)|[^\s。、.,!?]{1,12}(?:様|さま)"
    # a hesitation, and "that's all I have": 「えー、そんなところです」「はい、えっと、以上です」, "um, that's about it"
    r"|えー+|えっと|ええと|あー+|んー+|um+|uh+|erm+|er+"
    r"|(?:まあ)?そんな(?:ところ|とこ|感じ)(?:です|かな|ですね|っす)?|that'?s (?:about )?(?:it|all)(?: for now)?"
)
_FILLER = re.compile(rf"^(?:(?:{_FILLER_WORDS})[\s,.!?、。\uff01\uff1f~〜ー…w]*)+$", _I)
ASK = cues(
    r"教えて|おすすめ|オススメ|アドバイス|提案して|挙げて|出して|比較して|説明して|知りたい",
    r"\b(?:tell me|explain|suggest|recommend|show me|give me|list|draft|compare|outline|walk me through)\b",
)
# a request for information, a question whatever its form: 「書き方も教えてください」, "walk me through it"
INFO_REQUEST = cues(
    r"教えて|知りたい|説明して|アドバイス(?:を|が)?(?:ください|下さい|ほしい|欲しい|もらえ)|おすすめ(?:は|を)",
    r"\btell me\b|\bexplain\b|\bwalk me through\b|\brecommend\b|\bsuggest\b|\bany (?:advice|tips)\b",
)


def asks_for_information(text: str) -> bool:
    """A request for information that sets nothing (no value, no limit, no must, no narrowing)."""
    t = normalize(text)
    if not INFO_REQUEST.search(t) or values_of(t):
        return False
    return not any(p.search(t) for p in (NARROWING, _NEGATION_EN, _LIMIT, _MUST, REVISION))


_QMARK = re.compile(r"[?\uff1f]")
_JA_Q_END = re.compile(
    r"(?:か|ですか|ますか|でしょうか|かな|かね|の|ない|ある|いい|る|た)[?\uff1f]\s*$|(?:ですか|ますか|でしょうか|ませんか)[。.]?\s*$"
)
_EN_Q_START = re.compile(
    r"^(?:(?:what|how|why|when|where|which|who|whom|whose)\b|(?:is|are|am|was|were|can|could|should|would|will|do|does"
    r"|did|must|may|might|shall|have|has)\s+(?:i|we|you|it|they|he|she|this|that|these|those|there|the|my|our|your|a|an"
    r"|any|anyone|someone|people)\b|any (?:idea|ideas|tips|suggestions|thoughts|advice|recommendations)\b"
    # "is non-solicit normally in an NDA": is / are / does / did open a question, whatever the subject
    r"|(?:is|are|was|were|does|did)\s+(?!not\b|n't\b|fine\b|ok\b|okay\b|good\b|great\b|welcome\b)[\w-]+\s+\w)",
    _I,
)
# a Japanese question without a question mark: a question word and a questioning ending
# (「発酵って何度くらいが正解なのかな」); 「何でも」「どこでも」 (any) are no question words
_JA_WH = re.compile(
    r"(?:何|なに|なん|どう|どこ|いつ|誰|だれ|どれ|どの|どんな|どっち|どちら|いくら|いくつ|なぜ|なんで)"
    r"(?!でも|も|とか|か[^ら]|にか|ぞ)"  # 「なんとか」「何か」「どうにか」: no question words
)
_JA_WH_END = re.compile(r"(?:か|かな|かね|の|っけ|だろう|でしょう|いい|べき|ある|良い|よか|よかと|と|ん|ねん)[。.\s]*$")
_JA_ASKING_END = re.compile(r"(?:だろうか|のかな|かしら|でしょうかね)[。.\s]*$")
# questions by their ending or shape, with no question mark: 「十分かな」(not 「しようかな」, a wish), 「買うべきか」,
# 「赤からか白からか」, 「…するか…するか迷っています」, 「冬もいるの」 after a topic 「って」, 「いいのどれ」
_JA_BARE_Q = re.compile(
    r"(?:(?<!う)かな[あぁー]?|かね|かしら|(?:べき|いい|良い|よい|ええ|よか|ある|いる|要る|できる|なる|た|の)か)[。.\s]*$"
    r"|(?:^|[、,\s])[^、。\s]{1,20}って[^、。]*(?:の|ん)[。.\s]*$"
)
_JA_CHOICE_Q = re.compile(
    r"[^、。\s]{2,30}(?<!何)(?<!何を)(?<!なに)か[、,]?\s*[^、。\s]{2,30}か(?:[。.\s]*$|[、,]?\s*(?:迷|悩|決められ|決めかね))"
    r"|(?:どれ|どっち|どちら|いつ|どこ|だれ|誰|何|なに|いくら|いくつ)[。.\s]*$"
)
# an embedded question handed over: 「どちらが届くのか、ご意見をいただけますと幸いです」
_JA_EMBEDDED_Q = re.compile(
    r"(?:か|のか|かどうか)[、,]?\s*(?:ご意見|ご助言|ご教示|アドバイス|教えて|お聞かせ|伺いたい|知りたい)"
)
# an English question with no question mark: an indirect one ("wondering whether ...", "any idea how ...",
# "thoughts on whether ...", "worth getting my own shoes"), or a choice put as two options ("seed or plug plants")
_EN_INDIRECT_Q = re.compile(
    r"\b(?:wonder(?:ing)?|curious|clarification|thoughts|advice|opinion|views?|any ideas?|guidance|input)\b"
    r"[^.!]{0,30}?\b(?:whether|if|how|what|which|when|where|why|who)\b"
    r"|^(?:(?:is it |would it be |it is )?worth (?:it|\w+ing)\b"
    r"|(?:the )?(?:best|cheapest|easiest|quickest|simplest|safest) (?:\w+ ){0,3}(?:that|to|for)\b)",
    _I,
)
_EN_CHOICE = re.compile(r"^[\w' -]{1,40}\bor\b[\w' -]{1,50}(?:[,;]\s*(?:what|which|how)\b[\w' -]*)?[.!]?$", _I)
# a choice is a statement when it states, limits or accepts: "Saturday or Sunday is fine", "no nuts or shellfish"
_EN_STATED = re.compile(
    r"^(?:i|we|my|our|it|they|he|she|the kids|you)\b|\b(?:is|are|was|were|works?|fine|okay|ok|either|both|whichever"
    r"|don'?t mind|mind|no|not|never|without|must|should|only|under|max|at least|or so|or more|or less|or two)\b",
    _I,
)


def is_choice(text: str) -> bool:
    """Two options put to the assistant ("reds first or whites first", "sump or no sump"), not a stated condition."""
    t = normalize(text).strip()
    return bool(_EN_CHOICE.match(t)) and not _EN_STATED.search(t) and not values_of(t)


def is_indirect_question(text: str) -> bool:
    """A question without a question mark, by an ending or shape the other cues do not cover."""
    t = normalize(text).strip()
    if _JA_BARE_Q.search(t) and not values_of(t):  # 「予算は2万円くらいかな」 states a value, tentatively
        return True
    return bool(_JA_CHOICE_Q.search(t) or _JA_EMBEDDED_Q.search(t) or _EN_INDIRECT_Q.search(t)) or is_choice(t)


_REQUEST_Q = cues(
    r"(?:もらえ|くれ|いただけ|頂け)(?:ます|ません)?か|てくれる[?\uff1f]|できますか|できる[?\uff1f]",
    r"^(?:could|can|would) you\b",
)
# a request to set a value, phrased as a question: 「7日分にしてもらえますか」, "could you make it 25 minutes?"
SETTING_REQUEST = cues(
    r"に(?:して|変更して|延ばして|増やして|減らして|変えて|延長して|短縮して)(?:もらえ|いただけ|くれ|くださ|ほしい)",
    r"^(?:could|can|would) you (?:please )?(?:make|change|move|set|bump|cap|raise|lower|switch|extend|push|limit|keep"
    r"|shorten|reduce|increase)\b",
)
_IMPERATIVE = cues(
    r"てください|て下さい|でください|でお願い|にして|にしといて|ように|こと[。!\uff01]?\s*$|して[。!\uff01]?\s*$|で[。!\uff01]?\s*$",
    # a request in the te-form of a verb of making: 「文面を考えて」「表にまとめて」「候補を選んで」
    r"(?:考え|作っ|書い|まとめ|調べ|選ん|決め|直し|並べ|挙げ)て(?:ほしい|くれ(?:る|ない)?|もらえ\S*)?[。!?\uff01\uff1f]?\s*$",
    r"^(?:please\s+)?(?:use|keep|make|limit|include|avoid|add|send|post|focus|change|move|switch|lower|drop|put|cap|go|let'?s)\b",
)
WISH = cues(
    r"たい|ほしい|欲しい|したく|つもり|予定|考えて(?:い|おり|ます)|検討|(?:よ|お)うと(?:思|考え)",
    r"\b(?:wants?|wanna|would like|'d like|need|needs|hoping|hope|looking to|looking for|trying to|plan(?:ning)? to)\b",
    r"\b(?:i'm|i am|we're|we are) after\b",
    r"\b(?:goal|aim)\b",
)
# a wish turned down is a condition: "I don't want chemical treatments", 「車は使いたくない」
NEGATED_WISH = cues(
    r"たくない|たくありません|ほしくない|欲しくない|ほしくありません|(?:避け|控え|抑え|減らし)たい",
    r"\b(?:don'?t|do not|doesn'?t|does not|never|won'?t)\s+(?:really\s+)?(?:want|wanna|need|like)\b",
)
GOAL_NOUN = cues(
    r"手伝|相談|困って|悩んで|アイデア|企画|計画|仕組み|方法|やりたいこと|目標",
    r"\bhelp\b|\bgoal\b|\bplan\b|\bproject\b|\bideas?\b|\bthe task\b|\bsystem\b|\bprocess\b|\bbrainstorm\b|\bdream\b",
)
_NEGATION = cues(
    r"ない|禁止|避け|不可|NG|やめ|なし|抜き|以外",
    r"\b(?:no|not|never|without|avoid|don'?t|can'?t|cannot|nothing|none)\b",
)
_NEGATION_EN = cues(
    # "NG" in capitals and on its own (「写真はNG」): case-blind, it was the end of every "-ing"
    r"\b(?:no|not|never|without|avoid|don'?t|can'?t|cannot)\b|ない(?!です|でした)|禁止|避け|不可|(?-i:(?<![A-Za-z])NG(?![A-Za-z]))|なし"
)
_LIMIT = cues(
    r"以内|以下|未満|以上|まで|上限|最大|最低|程度|くらい|ぐらい|前後|だけ|のみ|しか|限",
    r"\b(?:under|below|at most|at least|max(?:imum)?|min(?:imum)?|up to|no more than|within|only|tops)\b",
    r"\b(?:cap(?:ped)?|limit)\b",
)
_MUST = cues(r"必須|必ず|絶対|必要|べき|こと[。]?$", r"\b(?:must|has to|have to|need to|needs to|required?|should)\b")

FEATURES: tuple[str, ...] = (
    "qmark",
    "ja_question_end",
    "en_question_start",
    "request_question",
    "indirect_question",
    "ask",
    "imperative",
    "wish",
    "goal_noun",
    "negation",
    "limit",
    "must",
    "revision",
    "change",
    "acceptance",
    "additive",
    "narrowing",
    "filler",
    *(f"value_{kind}" for kind in VALUE_KINDS),
    "length",
    "japanese",
)

Language = Literal["ja", "en"]
Vector = NDArray[np.float32]


def _has(pattern: re.Pattern[str], text: str) -> float:
    return 1.0 if pattern.search(text) else 0.0


_WORDLESS = re.compile(r"^[^\w]*$")
_SYMBOLS = re.compile(r"[\u2190-\u2bff\U0001f000-\U0001faff\ufe0f\u200d]+")  # arrows, pictographs, emoji: "morning 👋"


_THANKS = cues(
    # (not "a thank-you lunch", "thank-you cards": hyphened, it names a kind of thing)
    r"\bthanks?\b(?!-)|\bthank (?:you|u)\b|\bthx\b|\btysm\b|\bappreciate (?:it|that|this)\b"
    r"|さんきゅ|サンキュ|ありがと|助かり|助かる|助かった|感謝|参考になり"
    # in dialect and slang: 「おおきに」, "ta", "domo arigato", "you're a star", "legend", "ur a lifesaver", and a
    # "cheers" that opens the sentence ("cheers, that's loads better")
    r"|おおきに|\bta\b(?!-)|\barigato|^legend\b|^cheers\b"
    r"|\b(?:you'?re|ur|you are) an? (?:star|legend|lifesaver|life saver|hero)\b"
    r"|お礼(?!状)|恐縮(?!(?:です|でございます)?(?:が|けど|けれど|ながら))"  # 「恐縮ですが…」 cushions a request
)


def is_filler(text: str) -> bool:
    """Greetings, thanks and acknowledgements with nothing else in them, or no word at all (👍, 🙏).

    A short sentence of thanks counts too when it sets nothing ("thanks, that already helps",
    「ありがとうございます、少し落ち着きました」), but not one that also limits or asks for something.
    """
    text = normalize(text)
    if _FILLER.match(text) or _WORDLESS.match(text) or _FILLER.match(_SYMBOLS.sub("", text).strip()):
        return True
    return len(text) <= 60 and _THANKS.search(text) is not None and sets_nothing(text)


# how the user feels after an answer: 「参考になりました」「気持ちが楽になりました」 (no change of anything)
_FEELING = re.compile(r"(?:参考|勉強|楽|気が楽|安心|元気)に(?:なり|なっ)")


def sets_nothing(text: str) -> bool:
    """No value, limit, negation, obligation, request, question or change: a reaction ("that already
    helps", 「がんばります」, 「少し気持ちが楽になりました」)."""
    t = _FEELING.sub(" ", normalize(text))
    return not values_of(t) and not any(
        p.search(t) for p in (_NEGATION_EN, _LIMIT, _MUST, _IMPERATIVE, _QMARK, REVISION, CHANGE, ASK)
    )


def thanks(text: str) -> bool:
    """Whether a sentence thanks ("thanks in advance", 「ありがとうございます」), whatever else it says."""
    return _THANKS.search(normalize(text)) is not None


def is_wordless(text: str) -> bool:
    """Only punctuation, symbols or emoji: the tail of the sentence before it ("thanks!!" → "thanks!", "!")."""
    return bool(_WORDLESS.match(normalize(text)))


def restricts(text: str) -> bool:
    """A negation, a limit or an obligation: the sentence is a condition on the answer ("No nuts.",
    「車は使わない」, "it must fit on one page"), not a description of the problem."""
    t = normalize(text)
    return any(p.search(t) for p in (_NEGATION, _LIMIT, _MUST))


# a wh-word with its subject straight after it opens a clause, not a question (a question puts the verb first:
# "what do I need", "how can we ..."); with "is" after that clause it is the sentence's subject: "what I actually
# need is a chore chart", "where we struggle is the budget" (English grammar, not a phrase of any dialog)
_FREE_RELATIVE = re.compile(
    r"^(?:what|where|how|why|when|who)\s+(?:i|we|you|they|he|she|(?:my|our|his|her|their)\s+\w+)\s[^?]*?\s(?:is|was)\s+\S",
    _I,
)


def is_interrogative(text: str) -> bool:
    """A question by its form: a question mark, a Japanese question ending, or an English question opening."""
    text = normalize(text)
    if _QMARK.search(text) or _JA_Q_END.search(text) or _JA_ASKING_END.search(text):
        return True
    if _JA_WH.search(text) and _JA_WH_END.search(text):
        return True
    if is_indirect_question(text):
        return True
    text = _LEAD_IN.sub("", text)  # "btw what does APR mean", "wait what's the difference between …"
    return bool(_EN_Q_START.search(text) and not text.endswith(".") and not _FREE_RELATIVE.match(text))


# words that lead into a question without being part of it (not "actually" or "also": they lead into
# changes and additions as often)
_LEAD_IN = re.compile(
    r"^(?:(?:btw|by the way|so|ok(?:ay)?|oh|hm+|wait|sorry|um+|anyway|quick q(?:uestion)?|random q(?:uestion)?)"
    r"[,:!.]*\s+)+",
    _I,
)


def cue(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(normalize(text))
    return match.group(0).strip() if match else None


def features(text: str, language: Language) -> Vector:
    """The cheap features of one sentence or message, in `FEATURES` order."""
    t = normalize(text)
    kinds = {v.kind for v in values_of(t)}
    row = [
        _has(_QMARK, t),
        _has(_JA_Q_END, t),
        1.0 if _EN_Q_START.search(t) and language == "en" else 0.0,
        _has(_REQUEST_Q, t),
        1.0 if is_indirect_question(t) else 0.0,
        _has(ASK, t),
        _has(_IMPERATIVE, t),
        _has(WISH, t),
        _has(GOAL_NOUN, t),
        _has(_NEGATION, t),
        _has(_LIMIT, t),
        _has(_MUST, t),
        _has(REVISION, t),
        _has(CHANGE, t),
        _has(ACCEPT, t),
        _has(ADDITIVE, t),
        _has(NARROWING, t),
        1.0 if is_filler(t) else 0.0,
        *(1.0 if kind in kinds else 0.0 for kind in VALUE_KINDS),
        math.log1p(len(t)) / 5.0,
        1.0 if language == "ja" else 0.0,
    ]
    return np.asarray(row, dtype=np.float32)
