"""One turn's update of the context store (seed 004 §5.2 "更新と抽出"), computed before anything is written.

Planning is pure: it takes the store as read, the reading of the message (sentences, vectors,
model scores), the corpus statistics, and returns every row to insert or update plus the
message's classification. `respond` can then call the LLM between planning and writing, so a
failed call leaves nothing half-stored.

Replacement is by attribute: a new statement replaces the stored constraint that sets the same
attribute (the same-attribute model over meaning, value types and revision cues), never one that
merely shares a word (`_turn._Turn.replacement`). A refinement that replaces nothing attaches to what it
narrows; when that is the goal, it joins the mission.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime

from . import _attributes as at
from . import _explain as why
from . import _features as f
from . import _naming as nm
from . import _structure as st
from . import _tfidf
from . import _wants as w
from ._clauses import kept_clauses
from ._intent import Label, Vector, Weights
from ._model import Exchange, Item, Store, Tier
from ._reading import Reading, Role, Sentence, external_roles, roles
from ._rules import Classification
from ._text import detect_language
from ._totals import moved_total
from ._turn import TermsOf, TurnPlan, _Turn

TITLE_CHARS = 80
_IMPORTANT = {"PROBLEM_DEFINITION", "CONSTRAINT_ADDITION", "REFINEMENT"}
_CONDITIONS = {"CONSTRAINT_ADDITION", "REFINEMENT"}
# what keeps the work to a part of it, which the model's reading as a refinement may rest on
_KEEPS_TO = re.compile(r"\b(?:only|just|mainly|mostly)\b|だけ|のみ|中心", re.IGNORECASE)

__all__ = ["TurnPlan", "plan_turn", "texts_to_embed"]


def texts_to_embed(store: Store) -> list[str]:
    """The stored texts whose vectors `plan_turn` needs (besides the message's own)."""
    out: list[str] = []
    for item in store.items:
        if item.active:
            out += [item.text, at.attribute_text(item.text, detect_language(item.text))]
    return out


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
            if not s.interrogative and (bool(s.values) or (s is not main and s.top in _CONDITIONS)):
                # the goal is never rewritten, so a condition inside it is also kept where a later
                # value can replace it (the prompt then masks it in the goal and says the newer one wins),
                # a date too ("the craft fair on 6 December", then "moved to 13 December");
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
        # a narrower goal replaces nothing, unless it names what it turns from ("rather than system design, let's
        # focus on behavioural questions" after "focus only on system design questions")
        found = t.replacement(s) if not focus or nm.named_replacements(s.text, language) else None
        if found is not None or focus:
            refinement = True
        elif refinement and not given and not cue and parent is None and not _KEEPS_TO.search(f.normalize(s.text)):
            # the model reads "still on shift work so like 15 hrs a week tops" as a refinement; with no word of
            # change, nothing replaced and nothing kept to ("only", 「だけ」), a statement is a new condition
            refinement = False
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
            # "30-minute slot and the audience is mostly mid-level engineers", then "cut to 20 minutes": what
            # the newer statement does not set stays (a goal's own sentence keeps it in the mission already)
            rest = (
                None
                if t.in_goal(old)
                else kept_clauses(
                    old.text, s.values, frozenset(terms_of(s.text)), terms_of, language, moved_total(s.text, old.text)
                )
            )
            if rest is not None:
                same: Label = "REFINEMENT" if old.label == "REFINEMENT" else "CONSTRAINT_ADDITION"
                kept = t.make(old.tier, old.kind, rest, same, why.kept_part(language, old.text, s.text), own=False)
                kept.parent_id = old.parent_id
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
