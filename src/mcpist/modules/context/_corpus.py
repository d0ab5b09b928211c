"""The labelled training set in `data/`: dialogs, single turns and "same attribute?" pairs.

The files are plain text, one line per user turn, so that they are quick to write and read and
small to ship:

    == ja-cook-03 cooking voice              a dialog: id, domain, style
    U | こんにちは
    PQ goal=作り置き | 平日の作り置きを考えたいんだけど何から始める
    C budget=5000円 | 食費は週5000円
    R budget=7000円 | やっぱ7000円まで

    labels: P PROBLEM_DEFINITION, C CONSTRAINT_ADDITION, R REFINEMENT, Q QUESTION, U UNCLEAR (one
    or two, the first is the main one); `goal=phrase` names the goal, `key=phrase` an attribute the
    turn sets (`;` between several); setting a key again replaces its earlier phrase; `\\n` in a
    text is a line break (a bulleted message).

`dev_*.txt` files hold dialogs in the same format by authors the models were not trained on:
development sets to measure how the module carries over to new phrasings (`benchmarks/context_cv.py
--train a,b,c --test d e`); the training never reads them. Author e's set is built around how goals are
stated (over two messages, as a complaint, restated, narrowed, with numbers and dates). Author c's set,
tuned on for two rounds, is training data now (`dialogs_c_*.txt`).

`turns_*.txt` holds single turns outside any dialog (`LABELS | text`), `pairs_*.txt` pairs written
to share words or value types with or without sharing the attribute (`+ old || new` for the same
attribute, `- old || new` for another). Lines starting with `#` are comments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).parent / "data"
CODES = {
    "P": "PROBLEM_DEFINITION",
    "C": "CONSTRAINT_ADDITION",
    "R": "REFINEMENT",
    "Q": "QUESTION",
    "U": "UNCLEAR",
}


@dataclass
class Turn:
    user: str
    intent: list[str]
    goal: str | None = None
    sets: dict[str, str] = field(default_factory=dict)


@dataclass
class Dialog:
    id: str
    domain: str
    style: str
    source: str  # the file it comes from
    turns: list[Turn] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        """The shape `benchmarks/context_eval.py` plays: {"id", "turns": [{"user", "intent", "goal"?, "sets"?}]}."""
        turns: list[dict[str, object]] = []
        for t in self.turns:
            row: dict[str, object] = {"user": t.user, "intent": t.intent}
            if t.goal is not None:
                row["goal"] = t.goal
            if t.sets:
                row["sets"] = dict(t.sets)
            turns.append(row)
        return {"id": self.id, "turns": turns}


@dataclass(frozen=True)
class Pair:
    old: str
    new: str
    same: bool
    old_phrase: str = ""  # in a dialog: the phrase of each that the evaluation looks for
    new_phrase: str = ""


def _turn(line: str, where: str) -> Turn:
    head, sep, text = line.partition(" | ")
    if not sep or not text.strip():
        raise ValueError(f"{where}: expected 'LABELS [key=phrase; ...] | text'")
    codes, _, notes = head.strip().partition(" ")
    if not 1 <= len(codes) <= 2 or any(c not in CODES for c in codes):
        raise ValueError(f"{where}: unknown labels {codes!r}")
    turn = Turn(user=text.strip().replace("\\n", "\n"), intent=[CODES[c] for c in codes])
    for note in (n.strip() for n in notes.split(";")):
        if not note:
            continue
        key, eq, phrase = note.partition("=")
        if not eq or not phrase.strip() or phrase.strip() not in turn.user:
            raise ValueError(f"{where}: {note!r} must be key=phrase with the phrase in the text")
        if key.strip() == "goal":
            turn.goal = phrase.strip()
        else:
            turn.sets[key.strip()] = phrase.strip()
    return turn


def _lines(path: Path) -> Iterator[tuple[str, str]]:
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield f"{path.name}:{number}", line


def read_dialogs(path: Path) -> list[Dialog]:
    out: list[Dialog] = []
    for where, line in _lines(path):
        if line.startswith("=="):
            parts = line[2:].split()
            if len(parts) != 3:
                raise ValueError(f"{where}: expected '== id domain style'")
            out.append(Dialog(parts[0], parts[1], parts[2], path.stem))
        elif not out:
            raise ValueError(f"{where}: a turn before the first '== id domain style'")
        else:
            out[-1].turns.append(_turn(line, where))
    return out


def read_turns(path: Path) -> list[Turn]:
    return [_turn(line, where) for where, line in _lines(path)]


def read_pairs(path: Path) -> list[Pair]:
    out: list[Pair] = []
    for where, line in _lines(path):
        sign, old, sep, new = line[:1], *line[1:].partition(" || ")
        if sign not in "+-" or not sep or not old.strip() or not new.strip():
            raise ValueError(f"{where}: expected '+ old || new' or '- old || new'")
        out.append(Pair(old.strip(), new.strip(), sign == "+"))
    return out


def dialogs(data: Path = DATA, pattern: str = "dialogs_*.txt") -> list[Dialog]:
    """The training dialogs; `pattern="dev_*.txt"` gives the development sets, which the training never reads."""
    return [d for path in sorted(data.glob(pattern)) for d in read_dialogs(path)]


def single_turns(data: Path = DATA, files: Callable[[str], bool] | None = None) -> list[Turn]:
    paths = [p for p in sorted(data.glob("turns_*.txt")) if files is None or files(p.stem)]
    return [t for path in paths for t in read_turns(path)]


def written_pairs(data: Path = DATA, files: Callable[[str], bool] | None = None) -> list[Pair]:
    paths = [p for p in sorted(data.glob("pairs_*.txt")) if files is None or files(p.stem)]
    return [p for path in paths for p in read_pairs(path)]


def author(source: str) -> str:
    """The author of a data file by its name: dialogs_b_ja_2, turns_b, pairs_b → b."""
    parts = source.split("_")
    return parts[1] if len(parts) > 1 else ""


def dialog_pairs(dialog: Dialog) -> Iterator[list[Pair]]:
    """For each turn that sets one attribute, its pairs with every attribute still held before it
    (one group: the candidates a replacement is chosen from)."""
    held: dict[str, tuple[str, str]] = {}
    for turn in dialog.turns:
        keys = list(turn.sets)
        if len(keys) == 1 and held:
            phrase = turn.sets[keys[0]]
            yield [Pair(text, turn.user, key == keys[0], old, phrase) for key, (text, old) in held.items()]
        for key in keys:
            held.pop(key, None)  # the store lists the newest last
            held[key] = (turn.user, turn.sets[key])
