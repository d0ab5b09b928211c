"""JSON Schemas and validators derived from tool signatures (pydantic), kept compact."""

from __future__ import annotations

import copy
import inspect
import json
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from mcpist.errors import InvalidArgument

from .api import ToolSpec

# discriminator is OpenAPI, not JSON Schema, and its mapping points into the dropped $defs
_SKIP = {"$defs", "discriminator"}
_VALUES = {"default", "const", "enum", "examples"}  # JSON values, not schemas: copied as they are
_NULL = {"type": "null"}


def compact(schema: dict[str, Any], *, output: bool = False) -> dict[str, Any]:
    """Inline every `$ref`, drop titles and `$defs`: what an LLM reads, nothing more.

    An optional property whose default is null loses its null branch and its default: leaving it
    out means the same. With `output`, a result schema: tool results are dumped without their None
    fields, so every nullable property becomes optional and non-null, and defaults go.
    """
    defs: dict[str, Any] = schema.get("$defs", {})

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                key = ref.removeprefix("#/$defs/")
                rest = {k: v for k, v in node.items() if k != "$ref"}
                if key in seen:
                    return {"type": "object", **walk(rest, seen)}  # recursive type: stop expanding
                return walk({**defs[key], **rest}, (*seen, key))
            out: dict[str, Any] = {}
            for k, v in node.items():
                if k in _SKIP or (k == "title" and not isinstance(v, dict)) or (output and k == "default"):
                    continue
                if k == "additionalProperties" and v is True:  # JSON Schema's default
                    continue
                if k in _VALUES:
                    out[k] = copy.deepcopy(v)
                elif k == "properties" and isinstance(v, dict):
                    out[k] = {name: walk(sub, seen) for name, sub in v.items()}
                else:
                    out[k] = walk(v, seen)
            if isinstance(out.get("properties"), dict):
                _drop_nulls(out, output)
            return out
        if isinstance(node, list):
            return [walk(item, seen) for item in node]
        return node

    result = walk(schema, ())
    assert isinstance(result, dict)
    return result


def _drop_nulls(obj: dict[str, Any], output: bool) -> None:
    """Turn `anyOf: [X, null]` into X where null and absence mean the same (see `compact`)."""
    required: list[str] = obj.get("required", [])
    for name, prop in obj["properties"].items():
        branches = prop.get("anyOf") if isinstance(prop, dict) else None
        if not isinstance(branches, list) or _NULL not in branches or len(branches) < 2:
            continue
        if output:
            if name in required:
                required.remove(name)
        elif name in required or "default" not in prop or prop["default"] is not None:
            continue
        rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
        kept = [b for b in branches if b != _NULL]
        obj["properties"][name] = {**kept[0], **rest} if len(kept) == 1 else {"anyOf": kept, **rest}
    if "required" in obj and not required:
        del obj["required"]


def _field_path(params: Any, loc: tuple[int | str, ...], missing: bool) -> str:
    """The dotted path of the failing field, without the union-member tags pydantic puts in `loc`."""
    path: list[str] = []
    value = params
    for i, step in enumerate(loc):
        in_dict = isinstance(value, dict) and step in value
        in_list = isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value)
        if in_dict or in_list:
            value = value[step]
        elif not (missing and i == len(loc) - 1):
            continue  # `int`, `str`, a discriminator value...: names a union member, not a field
        path.append(str(step))
    return ".".join(path) or "(params)"


@dataclass(frozen=True)
class ToolSchema:
    """A tool's validated input model and JSON Schemas."""

    input_model: type[BaseModel]
    input_schema: dict[str, Any]
    output_adapter: TypeAdapter[Any] | None
    output_schema: dict[str, Any] | None

    def validate(self, params: dict[str, Any]) -> dict[str, Any]:
        """Check params against the schema; return them as keyword arguments. A list or object parameter
        sent as a string holding one (a model encoding it twice: `"tags": "[\\"a\\"]"`) is read as what
        it holds; nothing else is coerced.

        Raises:
            InvalidArgument: a field is missing, unknown or of the wrong type; names the field.
        """
        try:
            model = self.input_model.model_validate(params)
        except ValidationError as exc:
            decoded = _decoded(params, exc)
            if decoded is None:
                raise _invalid(params, exc) from None
            try:
                model = self.input_model.model_validate(decoded)
            except ValidationError as again:
                raise _invalid(decoded, again) from None
        return {name: getattr(model, name) for name in type(model).model_fields}

    def dump_output(self, value: Any) -> Any:
        if self.output_adapter is not None:
            return self.output_adapter.dump_python(value, mode="json", exclude_none=True)
        return TypeAdapter(Any).dump_python(value, mode="json")


_CONTAINER_ERRORS = frozenset(
    {"list_type", "dict_type", "tuple_type", "set_type", "model_type", "model_attributes_type", "union_tag_invalid"}
)


def _decoded(params: dict[str, Any], exc: ValidationError) -> dict[str, Any] | None:
    """`params` with each top-level string that was refused for not being a list or an object replaced by
    the JSON list or object it holds; None when there is no such string."""
    fixed = dict(params)
    for err in exc.errors(include_url=False, include_input=False):
        loc = err["loc"]
        name = loc[0] if loc else None
        if not isinstance(name, str) or not isinstance(fixed.get(name), str) or err["type"] not in _CONTAINER_ERRORS:
            continue
        try:
            value = json.loads(fixed[name])
        except ValueError:
            continue
        if isinstance(value, list | dict):
            fixed[name] = value
    return fixed if fixed != params else None


def _invalid(params: dict[str, Any], exc: ValidationError) -> InvalidArgument:
    problems = [
        {"field": _field_path(params, err["loc"], err["type"] == "missing"), "problem": err["msg"]}
        for err in exc.errors(include_url=False, include_input=False)
    ]
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return InvalidArgument(f"invalid parameter '{first['field']}': {first['problem']}{more}", {"errors": problems})


def _object_schema(tp: Any) -> bool:
    return inspect.isclass(tp) and issubclass(tp, BaseModel)


def build_schema(module_name: str, spec: ToolSpec) -> ToolSchema:
    """Derive the schemas of one tool from its signature.

    Raises:
        ValueError: a parameter lacks a type annotation.
    """
    hints = get_type_hints(spec.fn, include_extras=True)
    fields: dict[str, Any] = {}
    for i, param in enumerate(inspect.signature(spec.fn).parameters.values()):
        if i == 0:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ValueError(f"{module_name}.{spec.name}: *args and **kwargs are not allowed in tools")
        if param.name not in hints:
            raise ValueError(f"{module_name}.{spec.name}: parameter {param.name!r} needs a type annotation")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (hints[param.name], default)
    model_name = "".join(part.title() for part in f"{module_name}_{spec.name}".replace(".", "_").split("_"))
    model: type[BaseModel] = create_model(f"{model_name}Params", __config__=ConfigDict(extra="forbid"), **fields)
    input_schema = compact(model.model_json_schema())
    input_schema.setdefault("properties", {})
    returns = hints.get("return")
    output_adapter: TypeAdapter[Any] | None = None
    output_schema: dict[str, Any] | None = None
    if returns is not None and returns is not type(None) and returns is not Any:
        output_adapter = TypeAdapter(returns)
        if _object_schema(returns):
            output_schema = compact(output_adapter.json_schema(mode="serialization"), output=True)
    return ToolSchema(model, input_schema, output_adapter, output_schema)
