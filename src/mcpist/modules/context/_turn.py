"""The working state of one planned turn (`_Turn`): making and changing items, and deciding what a
new statement replaces (`_Turn.replacement`) or refines (`_Turn.parent_of`).

Replacement is by attribute: a new statement replaces the stored constraint that sets the same
attribute (the same-attribute model over meaning, value types and revision cues), never one that
merely shares a word.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from . import _attributes as at
from . import _features as f
from . import _naming as nm
from ._intent import Label, Side, Vector, Weights
from ._model import Exchange, Item, Kind, Store, Tier
from ._reading import Reading, Sentence
from ._rules import Classification
from ._text import detect_language
from ._totals import moved_total

REPLACE = 0.5  # same-attribute probability from which a new statement replaces a stored one
REPLACE_REVISED = 0.3  # the same when the message says it changes something (a cue, or the model reads a refinement)
LIFTED_MARGIN = 3.0  # a lifted condition's candidate must rank this many times above the next
KIN = 0.05  # a change of value replaces the only statement with a value of its kind from this
SWITCH_MARGIN = 2.0  # a move to another named thing replaces the named statement ranked this far above the next
LIFTED = 0.1  # a lifted condition ("no limit on pages") replaces the candidate it sets with this, by the margin above
ATTACH = 0.2  # below this similarity a refinement that replaces nothing attaches to the goal ...
GOAL_MARGIN = 0.1  # ... and so does one this close to the goal as to the condition most like it

TermsOf = Callable[[str], list[str]]


@dataclass
class TurnPlan:
    store: Store  # the store after this turn, for synthesis
    expected_turns: int
    exchange: Exchange
    classification: Classification
    new_items: list[Item]
    changes: dict[str, dict[str, str | None]]
    dropped: list[str]
    prune_through: int
    term_docs: list[str]
    keywords: list[tuple[str, float]]
    superseded_texts: list[str] = field(default_factory=list)
    stored_as: list[str] = field(default_factory=list)


def _mentioning(items: list[Item], names: Iterable[str]) -> list[Item]:
    """The items whose text mentions any of `names` (lower-cased)."""
    names = list(names)
    return [item for item in items if any(n in f.normalize(item.text).lower() for n in names)]


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass
class _Turn:
    """The working state of one planned turn."""

    store: Store
    items: list[Item]
    plan: TurnPlan
    reading: Reading
    vectors: Mapping[str, Vector]
    weights: Weights
    terms_of: TermsOf
    keywords_of: Callable[[list[str]], list[tuple[str, float]]]
    now: datetime

    def make(self, tier: Tier, kind: Kind, text: str, label: Label, reason: str, own: bool = True) -> Item:
        """A new item; `own`: the message's own words (counted in `stored_as`), not a part of an older statement."""
        terms = self.terms_of(text)
        item = Item(
            id=_new_id(),
            tier=tier,
            kind=kind,
            text=text,
            keywords=[k for k, _ in self.keywords_of(terms)],
            terms=sorted(set(terms)),
            slots=sorted({v.kind for v in f.values_of(text)}),
            turn=self.plan.exchange.turn,
            created_at=self.now,
            label=label,
            reason=reason,
        )
        self.plan.new_items.append(item)
        self.items.append(item)
        if own:
            self.plan.stored_as.append(tier)
        return item

    def change(self, item: Item, **values: str | None) -> None:
        for key, value in values.items():
            setattr(item, key, value)
        if not any(item is new for new in self.plan.new_items):
            self.plan.changes.setdefault(item.id, {}).update(values)

    def side(self, item: Item) -> Side:
        language = detect_language(item.text)
        return Side(
            text=item.text,
            vector=self.vectors[item.text],
            attribute=self.vectors[at.attribute_text(item.text, language)],
            values=f.values_of(item.text),
            terms=frozenset(item.terms),
            topic=at.topic_of(item.text, language),
        )

    def replacement(self, s: Sentence) -> tuple[Item, float] | None:
        """The stored item the sentence sets anew, if any."""
        text = f.normalize(s.text)
        turn = self.plan.exchange.turn
        candidates = [
            old for old in self.items if old.active and not old.pinned and old.kind != "problem" and old.turn != turn
        ]
        # "three new lads joined so we're on 17" after "got 14 kids", 「3名追加で、参加15名」 after 「参加12名」: a
        # change and the total it comes to set the old amount anew, said as an addition or with no word of change
        totals = [old for old in candidates if moved_total(s.text, old.text) is not None]
        if totals:
            return totals[-1], 1.0
        if (self.reading.narrowing and not self.reading.revision) or f.adds(text):
            return None  # "more specifically ...", "add Osaka as well": detail or addition, no replacement
        if f.PART.search(text) and not (self.reading.revision or f.CHANGE.search(text)):
            return None  # 「うち2人は今年の新卒」, "two of them never played": about some of a group, not its size
        topic = at.topic_of(s.text, self.reading.language)
        terms = frozenset(self.terms_of(s.text))
        if (not s.values and not terms and topic is None) or nm.only_a_cue(s.text):
            return None  # "ok go with that", 「それでお願いします」, 「訂正。」: nothing in it says what it sets
        lifts = nm.REMOVAL.search(text) is not None
        revises = bool(self.reading.revision or self.reading.accepted or lifts) or s.top == "REFINEMENT"
        if f.LEADING_AND.search(text) and not (self.reading.revision or self.reading.accepted or f.CHANGE.search(text)):
            return None  # "and there's a biology mock in 2 weeks" beside "exams start in 6 weeks": joined on, added
        # 「WindowsではなくMac」 names what it replaces: only an item that says it can be the one, and
        # when no stored item says it, the revision is about something never stored
        named = nm.named_replacements(s.text, self.reading.language)
        if named:
            mentioned = _mentioning(candidates, named)
            candidates, revises = (mentioned, True) if mentioned else (candidates, False)
        # "we're switching to Buttondown because Mailchimp's pricing jumped": a move that also names what it leaves,
        # named in a stored statement while the new name is in none, replaces that statement
        moved = frozenset() if named else nm.switched_to(s.text, self.reading.language)
        if len(moved) > 1:
            mentioned = _mentioning(candidates, moved)
            left = sorted(n for n in moved if _mentioning(mentioned, [n]))
            if mentioned and len(left) < len(moved):
                candidates, revises, named = mentioned, True, left
        # "BookStack vetoed by security": a stored statement that names what is turned down is the one
        rejected = nm.rejected_names(s.text, self.reading.language)
        turned_down = _mentioning(candidates, rejected)
        if turned_down:
            named, candidates, revises = rejected, turned_down, True
        # "could we push the AGM back to 4 October?", then "chair says fine, 4 October it is": the value the user's
        # last question proposed sets what that question was about
        proposed = self.proposal(s)
        about = [old for old in candidates if proposed & frozenset(old.terms)]
        if about and not named:
            candidates, revises = about, True
        bar = REPLACE_REVISED if revises else REPLACE
        # the sentence that states the goal is masked in the mission once replaced: only a message that
        # says it changes something may do that (「3級は去年取りました」 leaves 「簿記2級に合格したい」); a
        # condition listed beside it is a constraint like any other (「会期は6月1日から」)
        if not (self.reading.revision or self.reading.accepted):
            candidates = [c for c in candidates if not self.states_goal(c)]
        else:
            # only values are masked in the goal: its own sentence is replaced through a value of its kind
            candidates = [c for c in candidates if not self.states_goal(c) or self.shares_kind(s, c, strict=True)]
        new = Side(s.text, s.vector, s.attribute, s.values, terms, topic)
        probs = self.weights.same_attribute(new, [self.side(c) for c in candidates])
        scored = list(zip(candidates, probs, strict=True))
        attribute = at.attribute_of(s.text, self.reading.language)
        worded = bool(self.reading.revision or self.reading.accepted or f.CHANGE.search(text))
        if attribute is not None and not named and not worded:
            # with no word of change the attribute must agree: 「見守りは保護者4人」 does not set 「参加は中学生30人」,
            # 「自由記述は必ず1問」 not 「設問数は10問以内」 (a word of change may name the same thing anew:
            # 「食費は週5000円」→「予算、週6000円まで上げても」)
            scored = [(old, p if self.same_attribute(attribute, old) else 0.0) for old, p in scored]
        elif attribute is not None and not named:
            # a word of change says something changes; when a stored item names the attribute the sentence
            # names, that is the one (「平日も1時間に増やせます」 after 「平日は30分」 and 「週末は2時間」)
            naming = {old.id for old, _ in scored if self.names_attribute(attribute, old)}
            if naming:
                scored = [(old, p if old.id in naming else 0.0) for old, p in scored]
        best: tuple[Item, float] | None = None
        for old, p in scored:
            if p >= bar and (best is None or p >= best[1]):
                best = (old, p)
        if best is None and scored and lifts and not s.values:
            # a condition lifted ("format doesn't matter") sets no value for the model to match: the stored
            # statement it ranks far above the others is the one lifted
            ranked = sorted(scored, key=lambda pair: -pair[1])
            second = ranked[1][1] if len(ranked) > 1 else 0.0
            shared = terms & frozenset(ranked[0][0].terms)  # 「文字数の制限はなし」 lifts 「文字数は400字以内」
            if ranked[0][1] >= LIFTED and ranked[0][1] >= LIFTED_MARGIN * second and shared:
                best = ranked[0]
            # a lifted limit that names what it counted lifts the one statement that counts it, however the model
            # ranks it: "no page limit after all" lifts "max 10 pages", 「枚数の制限はなし」 lifts 「資料は10枚以内」
            counted = [(old, p) for old, p in scored if self.counts_what_is_named(text, old)]
            if best is None and len(counted) == 1:
                best = counted[0]
        if best is None and named and revises and len(scored) == 1:
            best = scored[0]  # the one stored statement that names what is replaced or turned down
        if best is None and s.values and revises and scored:
            # a change of value and the one stored statement with a value of that kind:
            # 「7千円に下げることになりました」 after 「会費は1人1万円です」 beside a count and a time
            kin = [(old, p) for old, p in scored if self.shares_kind(s, old, strict=True)]
            if len(kin) == 1 and kin[0][1] >= KIN:
                best = kin[0]
        if best is None and scored:
            best = self.switched(s, scored)
        # no word of change and below REPLACE: a new fact ("1 team leader per 15 temps" beside "120 temps"),
        # not a replacement; a lower bar for a value the model ranks far above the others (0.2, 3x the next)
        # lost 34 first labels and 22 prompts on the 412 development dialogs of eight authors (round 15)
        return best

    def proposal(self, s: Sentence) -> frozenset[str]:
        """The words of the user's previous message when it asked about the value this sentence sets ("could we
        push the AGM back to 4 October?" before "4 October it is"), less the sentence's own; else none."""
        before = [e for e in self.store.exchanges if e.turn < self.plan.exchange.turn]
        if not before or not s.values:
            return frozenset()
        asked = f.normalize(before[-1].message)
        if not f.is_interrogative(asked) or not any(v.text in asked for v in s.values):
            return frozenset()
        return frozenset(self.terms_of(asked)) - frozenset(self.terms_of(s.text))

    def switched(self, s: Sentence, scored: list[tuple[Item, float]]) -> tuple[Item, float] | None:
        """What a move to another named thing replaces ("we're switching to Flutter" after "stack's React and
        Firebase", 「Shopifyにするわ」 after 「BASEで始める」): the stored statement naming something else that
        the model ranks first, if it ranks it well above any other that names something."""
        language = self.reading.language
        new = nm.switched_to(s.text, language)
        if not new:
            return None
        named = [(old, p) for old, p in scored if (names := nm.names_in(old.text, language)) and not names & new]
        ranked = sorted(named, key=lambda pair: -pair[1])
        if not ranked or ranked[0][1] < KIN or (len(ranked) > 1 and ranked[0][1] < SWITCH_MARGIN * ranked[1][1]):
            return None
        return ranked[0]

    def shares_kind(self, s: Sentence, item: Item, strict: bool = False) -> bool:
        """A value of the same kind and, when both say what they count, the same unit ("8 servers" is no
        "5 cooks", "six weeks" no "22 years"); a bare number is any numeric kind unless `strict`."""
        for a in s.values:
            for b in f.values_of(item.text):
                bare = not strict and "number" in (a.kind, b.kind) and {a.kind, b.kind} <= f.NUMERIC
                kind = a.kind == b.kind or bare
                if kind and (not a.unit or not b.unit or a.unit == b.unit):
                    return True
        return False

    def counts_what_is_named(self, text: str, item: Item) -> bool:
        """Whether a stored statement holds a value whose unit `text` (normalised) names: "page" in "no page
        limit" for "max 10 pages", 「枚」 in 「枚数の制限はなし」 for 「10枚以内」."""
        lowered = text.lower()
        for v in f.values_of(item.text):
            unit = v.unit.lower()
            if v.kind in f.NUMERIC and unit and re.search(rf"(?<![a-z]){re.escape(unit)}", lowered):
                return True
        return False

    def same_attribute(self, attribute: str, item: Item) -> bool:
        """Whether a stored statement can set `attribute`: it names none surely, the same, or mentions it."""
        other = at.attribute_of(item.text, detect_language(item.text))
        text = f.normalize(item.text).lower()
        return other is None or other == attribute or attribute in text or other in attribute

    def names_attribute(self, attribute: str, item: Item) -> bool:
        """Whether a stored statement surely names `attribute` as what it sets."""
        other = at.attribute_of(item.text, detect_language(item.text))
        return other is not None and (other == attribute or attribute in other or other in attribute)

    def same_topic(self, topic: str, item: Item) -> bool:
        """Whether a stored statement can be about `topic` (「人数は6人です」 is not about 「卵は使わないで」):
        it names no topic, the same one, or mentions it."""
        other = at.topic_of(item.text, detect_language(item.text))
        return other is None or other == topic or topic in f.normalize(item.text).lower() or other in topic

    def states_goal(self, item: Item) -> bool:
        """A constraint kept from a goal's own sentence: the goal's only one, or one the model reads as the goal."""
        goals = [g for g in self.items if g.active and g.kind == "problem" and g.turn == item.turn]
        if not any(item.text in g.text for g in goals):
            return False
        if any(item.text == g.text for g in goals):
            return True
        probs = self.weights.intent(self.vectors[item.text], f.features(item.text, detect_language(item.text)))
        return max(probs, key=lambda label: probs[label]) == "PROBLEM_DEFINITION"

    def in_goal(self, item: Item) -> bool:
        """Whether a stored statement is part of an active goal's text."""
        return any(g.active and g.kind == "problem" and item.text in g.text for g in self.items)

    def latest_goal(self) -> Item | None:
        goals = [item for item in self.items if item.active and item.kind == "problem"]
        return goals[-1] if goals else None

    def scopes_goal(self, s: Sentence, parent: Item | None) -> bool:
        """Whether a request to keep the work to one part is about the goal, given what it would refine
        (`parent_of`): unless the stored condition most like it shares a word with it (「日本語だけでお願い」
        beside 「英語と日本語の両方で」), the part is of the work ("let's just get the first day sorted" beside
        "change of plan - the week after Easter")."""
        if parent is None or parent.tier == "core":
            return True
        return not (frozenset(self.terms_of(s.text)) & frozenset(parent.terms))

    def parent_of(self, s: Sentence) -> Item | None:
        """What a refinement that replaces nothing refines: the most similar stored item, but the goal when
        nothing is close or the goal is about as close as the condition most like it.

        Having replaced nothing, it narrows what the user wants, even said as a change
        (「いきなり定期開催は不安なので、まずは体験会を1回やってみることにします」): under the goal, the
        mission shows it; only a refinement clearly about one condition stays beside that condition.
        """
        turn = self.plan.exchange.turn
        scored = [
            (float(s.vector @ self.vectors[item.text]), i, item)
            for i, item in enumerate(self.items)
            if item.active and item.turn != turn
        ]
        goals = [(sim, item) for sim, _, item in scored if item.kind == "problem"]
        fallback = self.latest_goal()
        if not scored:
            return fallback
        similarity, _, best = max(scored, key=lambda t: (t[0], t[1]))
        if similarity < ATTACH:
            return fallback
        near = [(sim, goal) for sim, goal in goals if sim >= similarity - GOAL_MARGIN]
        if best.tier == "evolving" and near:
            return max(near, key=lambda t: t[0])[1]
        return best
