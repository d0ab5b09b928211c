"""Prompt synthesis (seed 004 §4.5): the template filled from the store, in Japanese or English."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import _features as f
from ._model import Exchange, Item, Store
from ._text import Language
from ._values import mask_replaced


@dataclass(frozen=True)
class Template:
    mission: str
    mission_intro: str
    constraints: str
    constraints_intro: str
    recent: str
    current: str
    user: str
    assistant: str
    keywords: str
    no_goal: str
    none: str
    no_message: str
    conflict_note: str
    outdated: str


TEMPLATES: dict[Language, Template] = {
    "ja": Template(
        mission="# Mission (あなたの使命)",
        mission_intro=(
            "あなたはユーザーの課題解決を支援するAIアシスタントです。以下の核となる目的を常に念頭に置いてください。"
        ),
        constraints="# Constraints (遵守すべき制約と決定事項)",
        constraints_intro="以下の条件を必ず満たすように応答を生成してください。",
        recent="# Recent Conversation (直近の会話)",
        current="# User's Current Message (ユーザーの現在のメッセージ)",
        user="ユーザー",
        assistant="アシスタント",
        keywords="キーワード",
        no_goal="(まだ示されていません)",
        none="(まだありません)",
        no_message="(まだメッセージはありません)",
        conflict_note="※ 目的の記述と下の制約が食い違う場合は、下の制約(最新の決定)を優先してください。",
        outdated="(制約を参照)",
    ),
    "en": Template(
        mission="# Mission",
        mission_intro=(
            "You are an AI assistant helping the user solve their problem. Always keep the following core goal in mind."
        ),
        constraints="# Constraints",
        constraints_intro="Make sure your response satisfies every condition below.",
        recent="# Recent Conversation",
        current="# User's Current Message",
        user="User",
        assistant="Assistant",
        keywords="Keywords",
        no_goal="(not stated yet)",
        none="(none yet)",
        no_message="(no message yet)",
        conflict_note=(
            "Where the goal above conflicts with a constraint below, the constraint (the latest decision) wins."
        ),
        outdated="(see Constraints)",
    ),
}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _goal_text(goal: Item, store: Store, mark: str) -> str:
    """The goal as stated, without the conditions in it that were replaced since.

    The goal is never rewritten, but a condition stated inside it is also kept as a constraint; once
    a later statement replaces that constraint, the values it replaces are masked here (its whole sentence
    when it has no value but restricts: "No tiles on the walls."), so the prompt never states an outdated
    value as the goal. Only those: the goal's own numbers and dates ("fire 30 mugs for the fair on 6
    December") stay when its budget changes, and a sentence that describes the problem ("our bathroom is a
    disaster.") stays, since it may be the one that names the goal; the conflict note covers it.
    """
    text = goal.text
    for old in store.items:
        if old.tier != "evolving" or old.turn != goal.turn or old.superseded_by is None or old.text not in text:
            continue
        new = store.by_id(old.superseded_by)
        if f.values_of(old.text):
            masked = mask_replaced(old.text, f.values_of(new.text) if new is not None else (), mark)
        elif f.restricts(old.text):
            masked = ""  # a condition without a value ("No nuts."): it goes whole
        else:
            continue  # it describes the problem ("our bathroom is a disaster."): the goal's words stay
        text = text.replace(old.text, masked)
    return _one_line(text) or goal.text


def _tree(items: list[Item], text_of: Callable[[Item], str] = lambda item: item.text) -> list[str]:
    """One line per item, a refinement indented under the item it refines."""
    ids = {item.id for item in items}
    children: dict[str, list[Item]] = {}
    for item in items:
        if item.parent_id in ids:
            children.setdefault(item.parent_id or "", []).append(item)
    lines: list[str] = []

    def walk(item: Item, depth: int) -> None:
        lines.append(f"{'  ' * depth}- {_one_line(text_of(item))}")
        for child in children.get(item.id, []):
            walk(child, depth + 1)

    for item in items:
        if item.parent_id not in ids:
            walk(item, 0)
    return lines


def _stale_core(store: Store) -> bool:
    """Whether a goal statement also carried a constraint that has since been replaced."""
    core_turns = {item.turn for item in store.active("core")}
    return any(
        item.tier == "evolving" and item.turn in core_turns and item.superseded_by is not None for item in store.items
    )


def _conditions(store: Store, core: list[Item]) -> list[Item]:
    """The active constraints to list: not one that is the whole of a goal's statement, which the mission says
    already (it is kept as a constraint so that a later value can replace it, and the mission then masks it)."""
    goals = {_one_line(item.text) for item in core if item.kind == "problem"}
    return [item for item in store.active("evolving") if _one_line(item.text) not in goals]


def synthesize(store: Store, language: Language) -> str:
    """The prompt for the main LLM; the latest exchange is the current message."""
    t = TEMPLATES[language]
    current: Exchange | None = store.exchanges[-1] if store.exchanges else None
    recent = store.exchanges[:-1]
    core = store.active("core")
    out = [t.mission, t.mission_intro]
    out += _tree(core, lambda item: _goal_text(item, store, t.outdated) if item.kind == "problem" else item.text)
    if not core:
        out.append(t.no_goal)
    words = list(dict.fromkeys(word for item in core for word in item.keywords))
    if words:
        out.append(f"{t.keywords}: {', '.join(words)}")
    if _stale_core(store):
        out.append(t.conflict_note)
    out += ["", t.constraints, t.constraints_intro]
    out += _tree(_conditions(store, core)) or [f"- {t.none}"]
    out += ["", t.recent]
    for exchange in recent:
        out.append(f"{t.user}: {exchange.message.strip()}")
        if exchange.response is not None:
            out.append(f"{t.assistant}: {exchange.response.strip()}")
    if not recent:
        out.append(t.none)
    out += ["", t.current, current.message.strip() if current else t.no_message]
    return "\n".join(out)


def sections(prompt: str) -> dict[str, str]:
    """Split a synthesised prompt into its `# ` sections (used by tests and clients that want one part)."""
    out: dict[str, str] = {}
    name = ""
    for line in prompt.splitlines():
        if line.startswith("# "):
            name = line[2:].split(" (")[0]
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out
