"""The non-secret fields a module declares for its accounts: parsed from `--set NAME=VALUE` and checked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mcpist.errors import InvalidArgument
from mcpist.modules.api import Module


def parse_fields(pairs: Sequence[str]) -> dict[str, str]:
    """`NAME=VALUE` pairs (`--set`) as a dict.

    Raises:
        InvalidArgument: a pair has no `=`, or a name is given twice.
    """
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InvalidArgument(f"--set takes NAME=VALUE, not {pair!r}", {"field": "set"})
        if name in out:
            raise InvalidArgument(f"--set names {name!r} twice", {"field": name})
        out[name] = value.strip()
    return out


def check_fields(module: Module, fields: Mapping[str, str], *, partial: bool = False) -> dict[str, str]:
    """The account fields `module` declares, checked; `partial` skips the required check (an update).

    Raises:
        InvalidArgument: an unknown field, a missing required one, or a value the field refuses.
    """
    declared = module.account_fields
    for name, value in fields.items():
        spec = declared.get(name)
        if spec is None:
            known = ", ".join(sorted(declared)) or "none"
            raise InvalidArgument(f"{module.name} accounts have no field {name!r}; fields: {known}", {"field": name})
        problem = spec.problem(value)
        if problem:
            raise InvalidArgument(f"{module.name} account field {name!r} {problem}", {"field": name})
    if not partial:
        missing = [f.name for f in declared.values() if f.required and f.name not in fields]
        if missing:
            hints = " ".join(f"--set {m}=..." for m in missing)
            raise InvalidArgument(
                f"{module.name} accounts need {', '.join(missing)} ({hints}): "
                + "; ".join(f"{m}: {declared[m].description}" for m in missing),
                {"field": missing[0]},
            )
    return dict(fields)
