"""One turn's update of the context store (seed 004 §5.2 "更新と抽出"), computed before anything is written.

Planning is pure: it takes the store as read, the reading of the message (sentences, vectors,
model scores), the corpus statistics, and returns every row to insert or update plus the
message's classification. `respond` can then call the LLM between planning and writing, so a
failed call leaves nothing half-stored.

Replacement is by attribute: a new statement replaces the stored constraint that sets the same
attribute (the same-attribute model over meaning, value types and revision cues), never one that
merely shares a word. A refinement that replaces nothing attaches to what it narrows; when that
is the goal, it joins the mission.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from . import _explain as why
from . import _features as f
from . import _naming as nm
from . import _structure as st
from . import _tfidf
from . import _wants as w
from ._intent import Label, Side, Vector, Weights
from ._model import Exchange, Item, Kind, Store, Tier
from ._reading import Reading, Role, Sentence, external_roles, roles
from ._rules import Classification
from ._text import detect_language

REPLACE = 0.5  # same-attribute probability from which a new statement replaces a stored one
REPLACE_REVISED = 0.3  # the same when the message says it changes something (a cue, or the model reads a refinement)
LIFTED_MARGIN = 3.0  # a lifted condition's candidate must rank this many times above the next
KIN = 0.05  # a change of value replaces the only statement with a value of its kind from this
SWITCH_MARGIN = 2.0  # a move to another named thing replaces the named statement ranked this far above the next
LIFTED = 0.1  # a lifted condition ("no limit on pages") replaces the candidate it sets with this, by the margin above
ATTACH = 0.2  # below this similarity a refinement that replaces nothing attaches to the goal ...
GOAL_MARGIN = 0.1  # ... and so does one this close to the goal as to the condition most like it
TITLE_CHARS = 80
_IMPORTANT = {"PROBLEM_DEFINITION", "CONSTRAINT_ADDITION", "REFINEMENT"}
_CONDITIONS = {"CONSTRAINT_ADDITION", "REFINEMENT"}

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


def texts_to_embed(store: Store) -> list[str]:
    """The stored texts whose vectors `plan_turn` needs (besides the message's own)."""
    out: list[str] = []
    for item in store.items:
        if item.active:
            out += [item.text, f.attribute_text(item.text, detect_language(item.text))]
    return out


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

    def make(self, tier: Tier, kind: Kind, text: str, label: Label, reason: str) -> Item:
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
            attribute=self.vectors[f.attribute_text(item.text, language)],
            values=f.values_of(item.text),
            terms=frozenset(item.terms),
            topic=f.topic_of(item.text, language),
        )

    def replacement(self, s: Sentence) -> tuple[Item, float] | None:
        """The stored item the sentence sets anew, if any."""
        text = f.normalize(s.text)
        if (self.reading.narrowing and not self.reading.revision) or f.adds(text):
            return None  # "more specifically ...", "add Osaka as well": detail or addition, no replacement
        if f.PART.search(text) and not (self.reading.revision or f.CHANGE.search(text)):
            return None  # 「うち2人は今年の新卒」, "two of them never played": about some of a group, not its size
        topic = f.topic_of(s.text, self.reading.language)
        terms = frozenset(self.terms_of(s.text))
        if (not s.values and not terms and topic is None) or nm.only_a_cue(s.text):
            return None  # "ok go with that", 「それでお願いします」, 「訂正。」: nothing in it says what it sets
        lifts = nm.REMOVAL.search(text) is not None
        revises = bool(self.reading.revision or self.reading.accepted or lifts) or s.top == "REFINEMENT"
        if f.LEADING_AND.search(text) and not (self.reading.revision or self.reading.accepted or f.CHANGE.search(text)):
            return None  # "and there's a biology mock in 2 weeks" beside "exams start in 6 weeks": joined on, added
        # 「WindowsではなくMac」 names what it replaces: only an item that says it can be the one, and
        # when no stored item says it, the revision is about something never stored
        turn = self.plan.exchange.turn
        candidates = [
            old for old in self.items if old.active and not old.pinned and old.kind != "problem" and old.turn != turn
        ]
        named = nm.named_replacements(s.text, self.reading.language)
        if named:
            mentioned = [old for old in candidates if any(n in f.normalize(old.text).lower() for n in named)]
            candidates, revises = (mentioned, True) if mentioned else (candidates, False)
        # "BookStack vetoed by security": a stored statement that names what is turned down is the one
        rejected = nm.rejected_names(s.text, self.reading.language)
        turned_down = [old for old in candidates if any(n in f.normalize(old.text).lower() for n in rejected)]
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
        attribute = f.attribute_of(s.text, self.reading.language)
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

    def same_attribute(self, attribute: str, item: Item) -> bool:
        """Whether a stored statement can set `attribute`: it names none surely, the same, or mentions it."""
        other = f.attribute_of(item.text, detect_language(item.text))
        text = f.normalize(item.text).lower()
        return other is None or other == attribute or attribute in text or other in attribute

    def names_attribute(self, attribute: str, item: Item) -> bool:
        """Whether a stored statement surely names `attribute` as what it sets."""
        other = f.attribute_of(item.text, detect_language(item.text))
        return other is not None and (other == attribute or attribute in other or other in attribute)

    def same_topic(self, topic: str, item: Item) -> bool:
        """Whether a stored statement can be about `topic` (「人数は6人です」 is not about 「卵は使わないで」):
        it names no topic, the same one, or mentions it."""
        other = f.topic_of(item.text, detect_language(item.text))
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


def plan_turn(
    store: Store,
    *,
    reading: Reading,
    external: Classification | None,
    external_by: str = "llm",
    terms_of: TermsOf,
    vectors: Mapping[str, Vector],
    weights: Weights,
    df: Mapping[str, int],
    n_docs: int,
    max_keywords: int,
    core_max_items: int,
    turn_window: int,
    now: datetime,
) -> TurnPlan:
    """Plan one user turn. `df` and `n_docs` are the user's corpus statistics before this message.

    `external` is a classification from the LLM or the cue rules; without it the model and the
    dialog's structure label the message.
    """
    language = reading.language
    turn_no = store.session.turns + 1
    message_terms = terms_of(reading.message)
    distinct = sorted(set(message_terms))
    df_now = {term: df.get(term, 0) + 1 for term in distinct}

    def keywords_of(terms: list[str]) -> list[tuple[str, float]]:
        return _tfidf.keywords(terms, df_now, n_docs + 1, max_keywords)

    items = [replace(item) for item in store.items]
    after = Store(replace(store.session), items, [replace(e) for e in store.exchanges])
    exchange = Exchange(turn_no, reading.message, language, [], "", [], now)
    plan = TurnPlan(
        store=after,
        expected_turns=store.session.turns,
        exchange=exchange,
        classification=Classification(intent=["UNCLEAR"], reason="-"),
        new_items=[],
        changes={},
        dropped=[],
        prune_through=turn_no - turn_window,
        term_docs=distinct,
        keywords=[],
    )
    t = _Turn(after, items, plan, reading, vectors, weights, terms_of, keywords_of, now)
    goals = store.goals()
    has_goal = bool(goals)
    given = list(external.intent) if external else None
    asks_after_background = False
    if given:
        sentence_roles = external_roles(reading, given, has_goal)
    elif not has_goal and not any(item.label == "UNCLEAR" for item in items) and _only_introduces(reading):
        # "I'm a nurse on nights.", 「人事担当の佐藤と申します」 before anything is asked: who the user is, kept
        # as background the answer respects, and the goal is left to the message that says what they want
        sentence_roles = ["filler"] * len(reading.sentences)
        t.make("evolving", "constraint", reading.message.strip(), "UNCLEAR", why.introduction(language))
    elif not has_goal and st.only_about_the_conversation(reading.message):
        # "can you read spreadsheets?", 「日本語で大丈夫ですか」, "first time using this, bear with me" before
        # the task: nothing to keep yet, and the goal is left to the message that states the task
        sentence_roles = ["filler"] * len(reading.sentences)
    else:
        strength = max((_goal_strength(t, g) for g in goals), default=1.0)
        wishes = not goals or any(w.states_wish(g.text) for g in goals)
        # the goal so far only says who the user is: the first request for help states it
        intro = bool(goals) and all(st.introduces_self(g.text) for g in goals)
        sentence_roles = roles(reading, has_goal, strength, wishes, intro)
        # a question that joins background ("how do I train for a via ferrata?") is asked first; after an
        # introduction a request for help states the goal ("Can you help me figure out a wiring plan?"), and so
        # does another piece of work asked for as well ("Could you also help me write a welcome message?")
        separate = any(w.opens_separate_request(s.text) for s in reading.sentences)
        asks_after_background = has_goal and not wishes and not intro and not separate
    by_role: dict[Role, list[Sentence]] = {"goal": [], "statement": [], "question": [], "filler": []}
    for s, role in zip(reading.sentences, sentence_roles, strict=True):
        by_role[role].append(s)
    reasons: list[str] = []

    goal = by_role["goal"]
    if goal:
        probs = goal[0].probs
        reason = why.first_goal(language, probs) if not has_goal else why.new_goal(language, probs)
        if external is not None and has_goal:
            reason = why.external(language, external_by, external.reason)
        t.make("core", "problem", " ".join(s.text for s in goal), "PROBLEM_DEFINITION", reason)
        reasons.append(reason)
        _prune_core(t, core_max_items)
        main = max(goal, key=lambda s: s.probs["PROBLEM_DEFINITION"])
        for s in goal:
            if not s.interrogative and (
                any(v.kind != "date" for v in s.values) or (s is not main and s.top in _CONDITIONS)
            ):
                # the goal is never rewritten, so a condition inside it is also kept where a later
                # value can replace it (the prompt then masks it in the goal and says the newer one wins);
                # a question states none ("Should I offer free shipping?" is what is to be decided)
                t.make("evolving", "constraint", s.text, "CONSTRAINT_ADDITION", why.goal_condition(language))

    refined_any = False
    for s in by_role["statement"]:
        cue = reading.revision or reading.narrowing
        if given:
            refinement = given[0] == "REFINEMENT" or ("REFINEMENT" in given and "CONSTRAINT_ADDITION" not in given)
        else:
            # the model weighs the cue words; a replacement below makes it a refinement in any case
            refinement = s.top == "REFINEMENT"
        # 「一番見たいのは土星の輪」: a narrower goal joins the mission under the goal, replacing nothing
        # (a word of change elsewhere in it, "money's a wash now", does not make "mostly the career side" a change)
        said = not reading.revision or w.restates_goal(s.text) or w.focuses(s.text)
        focus = not given and has_goal and said and w.narrows_goal(s.text)
        # "let's just rework chapters 11 to 14 first": the work kept to one part of the goal, when the goal is
        # what it is about (「日本語だけでお願い」-like requests about a condition stay beside the condition)
        parent: Item | None = None
        if not given and has_goal and st.narrows_scope(s.text):
            parent = t.parent_of(s)
            if t.scopes_goal(s, parent):
                focus = True
            elif s.interrogative:
                by_role["question"].append(s)  # "can we just do first come first served?": a question after all
                continue
        found = None if focus else t.replacement(s)
        if found is not None or focus:
            refinement = True
        label: Label = "REFINEMENT" if refinement else "CONSTRAINT_ADDITION"
        reason = why.refinement(language, cue, s.probs) if refinement else why.requirement(language, s.probs)
        if external is not None:
            reason = why.external(language, external_by, external.reason)
        if reading.accepted:
            reason = why.join(language, [why.accepted(language, reading.accepted), reason])[:-1]
        if found is not None:
            old, p = found
            item = t.make(old.tier, "refinement", s.text, label, reason + " / " + why.replaces(language, old.text, p))
            item.parent_id = old.parent_id
            t.change(old, superseded_by=item.id, replaced_reason=why.replaced_by(language, s.text, p, reading.revision))
            plan.superseded_texts.append(old.text)
            for child in items:
                if child.parent_id == old.id and child.active:
                    t.change(child, parent_id=item.id)
            reasons.append(why.replaces(language, old.text, p))
        elif refinement:
            parent = t.latest_goal() if focus else parent or t.parent_of(s)
            tier: Tier = parent.tier if parent is not None else "core"
            item = t.make(tier, "refinement", s.text, label, reason)
            if parent is not None:
                item.parent_id = parent.id
                item.reason += " / " + why.refines(language, parent.text)
        else:
            t.make("evolving", "constraint", s.text, label, reason)
        refined_any = refined_any or refinement
        reasons.append(reason)

    if by_role["question"]:
        reasons.append(why.question(language))
    if not reasons:
        reasons.append(why.filler(language))
    if external is not None:
        plan.classification = external
    else:
        plan.classification = Classification(
            intent=_labels(by_role, refined_any, has_goal, asks_after_background),
            reason=why.join(language, reasons),
        )

    labels = set(plan.classification.intent)
    plan.keywords = keywords_of(message_terms) if labels & _IMPORTANT else []
    exchange.intent = list(plan.classification.intent)
    exchange.reason = plan.classification.reason
    exchange.keywords = [k for k, _ in plan.keywords]
    after.items = sorted(items, key=lambda item: (item.turn, item.created_at, item.tier != "core"))
    after.exchanges = [e for e in after.exchanges if e.turn > plan.prune_through] + [exchange]
    after.session.turns = turn_no
    after.session.language = language
    after.session.updated_at = now
    if after.session.title is None or (goal and not has_goal):
        after.session.title = _title(" ".join(s.text for s in goal) if goal else reading.message)
    return plan


INTRO_CHARS = 90  # a self-introduction longer than this goes on to say more (`st.content_len`)


def _only_introduces(reading: Reading) -> bool:
    """A short message that only says who the user is: "Hi! I run sales at a small startup.", 「はじめまして。
    人事部の佐藤と申します。」, not "I teach 5th grade and … so now I have to design a robotics curriculum"."""
    spoken = [s for s in reading.sentences if not s.filler]
    if not spoken or st.content_len(reading.message) > INTRO_CHARS:
        return False
    return st.introduces_self(reading.message) and all(
        st.introduces_self(s.text) or f.is_filler(s.text) for s in spoken
    )


def _goal_strength(t: _Turn, goal: Item) -> float:
    """How sure the model is that a stored goal states one (small talk taken for the goal is weak)."""
    language = detect_language(goal.text)
    vector = t.vectors.get(goal.text)
    if vector is None:
        return 1.0
    return t.weights.intent(vector, f.features(goal.text, language))["PROBLEM_DEFINITION"]


def _labels(
    by_role: dict[Role, list[Sentence]], refined: bool, has_goal: bool, asked_first: bool = False
) -> list[Label]:
    goal, statements, questions = by_role["goal"], by_role["statement"], by_role["question"]
    asks = bool(questions) or any(s.interrogative for s in goal)
    out: list[Label] = []
    if goal and (not has_goal or not statements):
        out.append("PROBLEM_DEFINITION")
    if statements:
        out.append("REFINEMENT" if refined else "CONSTRAINT_ADDITION")
    if goal and "PROBLEM_DEFINITION" not in out:
        out.append("PROBLEM_DEFINITION")
    if asks and len(out) < 2:
        out.append("QUESTION")
    if asked_first and goal and all(s.interrogative for s in goal) and "QUESTION" in out:
        out.remove("QUESTION")
        out.insert(0, "QUESTION")
    return out[:2] or ["UNCLEAR"]


def _prune_core(t: _Turn, limit: int) -> None:
    """Keep at most `limit` goals: the first is never dropped; refinements of a dropped goal move to the first."""
    goals = [item for item in t.items if item.tier == "core" and item.kind == "problem" and item.active]
    original = min(goals, key=lambda item: (item.turn, item.created_at))
    while len(goals) > limit:
        oldest = next((item for item in goals if item is not original and not item.pinned), None)
        if oldest is None:
            break  # every other goal is pinned
        goals.remove(oldest)
        t.plan.dropped.append(oldest.id)
        for child in t.items:
            if child.parent_id == oldest.id and child.active:
                t.change(child, parent_id=original.id)
    t.items[:] = [item for item in t.items if item.id not in t.plan.dropped]


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
