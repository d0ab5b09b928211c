"""JSON Schemas and validators derived from tool signatures (pydantic), kept compact."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from mcpist.errors import InvalidArgument

from .api import ToolSpec

_DROP = {"title"}


def compact(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline every `$ref`, drop titles and `$defs`: what an LLM reads, nothing more."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                key = ref.removeprefix("#/$defs/")
                if key in seen:
                    return {"type": "object"}  # recursive type: stop expanding
                merged = {**defs[key], **{k: v for k, v in node.items() if k != "$ref"}}
                return walk(merged, (*seen, key))
            out: dict[str, Any] = {}
            for k, v in node.items():
                if k == "$defs":
                    continue
                if k in _DROP and not isinstance(v, dict):
                    continue
                if k == "properties" and isinstance(v, dict):
                    out[k] = {name: walk(sub, seen) for name, sub in v.items()}
                else:
                    out[k] = walk(v, seen)
            return out
        if isinstance(node, list):
            return [walk(item, seen) for item in node]
        return node

    result = walk(schema, ())
    assert isinstance(result, dict)
    return result


@dataclass(frozen=True)
class ToolSchema:
    """A tool's validated input model and JSON Schemas."""

    input_model: type[BaseModel]
    input_schema: dict[str, Any]
    output_adapter: TypeAdapter[Any] | None
    output_schema: dict[str, Any] | None

    def validate(self, params: dict[str, Any]) -> dict[str, Any]:
        """Check params against the schema; return them as keyword arguments.

        Raises:
            InvalidArgument: a field is missing, unknown or of the wrong type; names the field.
        """
        try:
            model = self.input_model.model_validate(params)
        except ValidationError as exc:
            problems = [
                {"field": ".".join(str(p) for p in err["loc"]) or "(params)", "problem": err["msg"]}
                for err in exc.errors(include_url=False, include_input=False)
            ]
            first = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InvalidArgument(
                f"invalid parameter '{first['field']}': {first['problem']}{more}", {"errors": problems}
            ) from None
        return {name: getattr(model, name) for name in type(model).model_fields}

    def dump_output(self, value: Any) -> Any:
        if self.output_adapter is not None:
            return self.output_adapter.dump_python(value, mode="json", exclude_none=True)
        return TypeAdapter(Any).dump_python(value, mode="json")


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
            output_schema = compact(output_adapter.json_schema(mode="serialization"))
    return ToolSchema(model, input_schema, output_adapter, output_schema)
