"""HELD-OUT REGRESSION FLOOR, NOT TUNING.

tests/context/heldout/dialogs_heldout_v2.json was written by someone else, without looking at the
classifier or its training data, and was run once, after the model, its data and its rules were
final (2026-11-25):

    .venv/bin/python benchmarks/context_eval.py tests/context/heldout/dialogs_heldout_v2.json

    52 dialogs, 372 turns: intent first label 333/372 = 89.5% (en 87.8%, ja 91.3%); exact set 87.9%;
    goal kept 45/52 = 86.5%; final prompt right 22/52 = 42.3%

Round 2 (training data widened by another author to 2,000 turns, structural fixes judged on cross-domain
and cross-author splits of the training data only) was run once on it and once on heldout_v3 (50 dialogs by
a third author, 2026-11-25):

    v2: first label 346/372 = 93.0%; exact 91.4%; goal kept 44/52 = 84.6%; prompt right 25/52 = 48.1%
    v3: first label 356/388 = 91.8%; exact 91.0%; goal kept 43/50 = 86.0%; prompt right 31/50 = 62.0%

Round 3 (a third author's development set, never trained on; structural fixes judged on it and on the
training-side splits only) was run once on v2, v3 and on heldout_v4 (52 dialogs by a fourth author, written
and committed before the run, 2026-11-25):

    v2: first label 341/372 = 91.7%; exact 90.1%; goal kept 45/52 = 86.5%; prompt right 26/52 = 50.0%
    v3: first label 353/388 = 91.0%; exact 90.2%; goal kept 43/50 = 86.0%; prompt right 29/50 = 58.0%
    v4: first label 410/449 = 91.3%; exact 88.9%; goal kept 46/52 = 88.5%; prompt right 26/52 = 50.0%

Round 4 (a fifth author's development set d, never trained on; c folded into training; question
detection, greetings, background openers, narrowing goals, replacement guards, all judged on d and the
training-side splits only) was run once more on each (v4's second run, 2026-11-25):

    v2: first label 347/372 = 93.3%; exact 91.7%; goal kept 46/52 = 88.5%; prompt right 27/52 = 51.9%
    v3: first label 353/388 = 91.0%; exact 90.2%; goal kept 44/50 = 88.0%; prompt right 31/50 = 62.0%
    v4: first label 414/449 = 92.2%; exact 89.5%; goal kept 46/52 = 88.5%; prompt right 27/52 = 51.9%

Round 5 (a sixth author's development set e built around goal statements: restated and narrowed goals,
complaint-then-wish openers, narrower masking) was run once more: every figure on v2, v3 and v4 is the same
as round 4's, to the turn.

Round 7 (2026-11-26: where the goal goes decided by the dialog's structure, judged on d, e, f and the
training-side splits; same weights) was run once on each:

    v2: first label 347/372 = 93.3%; exact 91.7%; goal kept 48/52 = 92.3%; prompt right 28/52 = 53.8%
    v3: first label 353/388 = 91.0%; exact 90.2%; goal kept 47/50 = 94.0%; prompt right 34/50 = 68.0%
    v4: first label 414/449 = 92.2%; exact 89.5%; goal kept 46/52 = 88.5%; prompt right 27/52 = 51.9%

Round 8 (2026-11-26: replacement by attribute, judged on d, e, f and the training-side splits; same
weights) was run once on each:

    v2: first label 349/372 = 93.8%; exact 92.2%; goal kept 48/52 = 92.3%; prompt right 29/52 = 55.8%
    v3: first label 353/388 = 91.0%; exact 90.2%; goal kept 47/50 = 94.0%; prompt right 33/50 = 66.0%
    v4: first label 414/449 = 92.2%; exact 89.5%; goal kept 46/52 = 88.5%; prompt right 27/52 = 51.9%

Round 9 (2026-11-26: a request to keep the work to one part of the goal joins the mission, a request for
help after a self-introduction states the goal, cue words fixed and the weights retrained; judged on d-h
and the training-side splits) was run once on each:

    v2: first label 348/372 = 93.5%; exact 91.9%; goal kept 48/52 = 92.3%; prompt right 29/52 = 55.8%
    v3: first label 352/388 = 90.7%; exact 89.9%; goal kept 47/50 = 94.0%; prompt right 34/50 = 68.0%
    v4: first label 413/449 = 92.0%; exact 89.3%; goal kept 47/52 = 90.4%; prompt right 27/52 = 51.9%

Round 10 (2026-11-26: a stored statement turned down by name is the one replaced, a lifted condition
replaces the one it shares a word with; same weights) was run once: every figure as after round 9. Its
third change (a change of value replaces the only statement with a value of its kind) was run once:

    v2: first label 348/372 = 93.5%; exact 91.9%; goal kept 48/52 = 92.3%; prompt right 30/52 = 57.7%
    v3: first label 352/388 = 90.7%; exact 89.9%; goal kept 47/50 = 94.0%; prompt right 33/50 = 66.0%
    v4: first label 412/449 = 91.8%; exact 89.1%; goal kept 47/52 = 90.4%; prompt right 27/52 = 51.9%

Round 11 (2026-11-26: a short message that only introduces the user is background, not the goal; a
question inside the goal's message is no condition) was run once after each of the two changes: every
figure as after round 10.

Rounds 12 to 17 (2026-11-26, judged on the development sets d-h, j, l, n and o and the training-side
splits) were each run once. Round 12 (openings are filler or background), 13 (focus words) and the
learned narrowing tried in 14: every figure as after round 10. Round 14 (frames that say what matters most):

    v4: goal kept 47/52 -> 48/52; the rest as after round 10

Round 15 (no replacement without a word of change below the pair model's 0.5):

    v2: first label 352/372 = 94.6%; exact 93.0%; goal kept 48/52 = 92.3%; prompt right 30/52 = 57.7%
    v3: first label 357/388 = 92.0%; exact 91.2%; goal kept 47/50 = 94.0%; prompt right 36/50 = 72.0%
    v4: first label 414/449 = 92.2%; exact 89.5%; goal kept 48/52 = 92.3%; prompt right 28/52 = 53.8%

Round 16 (frames with a value): v4 first label 415/449 = 92.4%, goal kept 49/52 = 94.2%, prompt right
29/52. Round 17 (someone else's wish is background): v4 first label 416/449 = 92.7%, exact 90.0%; the rest
as after round 16.

Round 18 (2026-11-26, judged on the development sets d-q: a separate request asked as a question is a
second goal, a question about the assistant keeps nothing, the first question after background joins the
goal and is labelled a question first): first label, goals and prompts as after round 17; exact set v2
339/372 = 91.1%, v3 349/388 = 89.9%, v4 401/449 = 89.3%. Round 19 (judged on d-r: remarks on the
conversation before the task, the name under a closing and a short reaction beside thanks are filler, "most
important is" a frame; weights retrained): v4 first label 418/449 = 93.1%, exact 403/449 = 89.8%; the rest
as after round 18. Round 20 (a request to keep to one part attaches to the goal, 「…中心で」-like frames):

    v3: first label 358/388 = 92.3%; exact 90.2%; goal kept 48/50 = 96.0%; prompt right 37/50 = 74.0%

Round 21 ("… is what I need most help with" narrows the goal): every figure as after round 20.

Nothing was changed after those runs. The floors sit a little under those figures so that a change
that costs accuracy fails; raising a figure by tuning on this file would make it worthless.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from context_evaluation import play

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Floor:
    """One independent set: its size (so a changed file is noticed) and the figures it must keep."""

    path: Path
    turns: int
    dialogs: int
    first: float
    exact: float
    goal_kept: float
    prompt_right: float


FLOORS = {
    "v2": Floor(HERE / "heldout" / "dialogs_heldout_v2.json", 372, 52, 0.91, 0.89, 0.86, 0.44),
    "v3": Floor(HERE / "heldout_v3" / "dialogs_heldout_v3.json", 388, 50, 0.89, 0.89, 0.88, 0.56),
    "v4": Floor(HERE / "heldout_v4" / "dialogs_heldout_v4.json", 449, 52, 0.89, 0.87, 0.85, 0.46),
}


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(FLOORS))
async def test_each_independent_held_out_set_stays_above_its_floor(ctx: Any, call: Any, name: str) -> None:
    floor = FLOORS[name]
    if not floor.path.is_file():
        pytest.skip(f"{floor.path} is not there")
    score = await play(ctx, call, json.loads(floor.path.read_text(encoding="utf-8")))
    print(f"\nheld-out {name} (floor, not tuning):\n{score.line()}")
    assert score.turns == floor.turns and score.dialogs == floor.dialogs
    assert score.first / score.turns >= floor.first
    assert score.exact / score.turns >= floor.exact
    assert score.goal_kept / score.dialogs >= floor.goal_kept
    assert score.prompt_right / score.dialogs >= floor.prompt_right
