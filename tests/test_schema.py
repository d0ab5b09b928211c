"""Schemas from signatures: what is published (compact) and how params are checked (named fields)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from mcpist.errors import InvalidArgument
from mcpist.modules import Module, ToolContext
from mcpist.modules.registry import Registry
from mcpist.modules.schema import ToolSchema, compact


class Address(BaseModel):
    """A postal address."""

    city: str
    zip: str | None = None


class Person(BaseModel):
    title: str = Field(description="Mr, Ms, Dr...")
    name: str
    home: Address
    work: Address | None = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


def refs_in(schema: Any) -> list[str]:
    text = json.dumps(schema)
    return [key for key in ("$ref", "$defs", "#/$defs") if key in text]


def tool_schema(fn: Any) -> ToolSchema:
    module = Module("t", summary="s")
    module.tool("f")(fn)
    found = Registry([module]).tool("t", "f")
    assert found is not None
    return found.schema


# --- compact -------------------------------------------------------------------------------------------


def test_nested_refs_are_inlined_and_defs_dropped() -> None:
    schema = compact(Person.model_json_schema())
    assert refs_in(schema) == []
    assert schema["properties"]["home"]["properties"]["city"] == {"type": "string"}
    assert schema["properties"]["home"]["description"] == "A postal address."


def keywords(schema: Any) -> set[str]:
    """The keywords used anywhere in a schema; property names are not keywords."""
    if isinstance(schema, list):
        return set().union(*(keywords(item) for item in schema))
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key == "properties":
            found |= set().union(*(keywords(sub) for sub in value.values()))
        elif key not in ("required", "enum", "const", "default"):
            found |= keywords(value)
    return found


def test_titles_are_dropped_but_a_property_called_title_is_kept() -> None:
    raw = Person.model_json_schema()
    assert "title" in keywords(raw)
    schema = compact(raw)
    assert "title" not in keywords(schema)
    assert schema["properties"]["title"] == {"description": "Mr, Ms, Dr...", "type": "string"}
    assert "title" in schema["required"]


def test_a_recursive_type_stops_after_one_level() -> None:
    schema = compact(Node.model_json_schema())
    assert refs_in(schema) == []
    children = schema["properties"]["children"]
    assert children["type"] == "array"
    assert children["items"] == {"type": "object"}


def test_a_recursive_ref_keeps_its_own_description() -> None:
    raw = {
        "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N", "description": "the next"}}}},
        "$ref": "#/$defs/N",
    }
    assert compact(raw)["properties"]["next"] == {"type": "object", "description": "the next"}


def test_an_optional_null_default_is_published_as_the_plain_type() -> None:
    schema = compact(Person.model_json_schema())
    assert "work" not in schema["required"]
    assert "anyOf" not in schema["properties"]["work"] and "default" not in schema["properties"]["work"]
    assert schema["properties"]["work"]["type"] == "object"
    assert schema["properties"]["home"]["properties"]["zip"] == {"type": "string"}


def test_null_stays_where_it_means_something() -> None:
    class Params(BaseModel):
        must_say: int | None  # required: the caller must send a value, null included
        five: int | None = 5  # null differs from leaving it out
        either: int | str | None = None

    props = compact(Params.model_json_schema())["properties"]
    assert props["must_say"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert props["five"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 5}
    assert props["either"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}


def test_output_schemas_show_none_fields_as_optional() -> None:
    class Result(BaseModel):
        id: str
        note: str | None  # required, yet dumped without it when None
        count: int = 0

    schema = compact(Result.model_json_schema(mode="serialization"), output=True)
    assert schema["required"] == ["id"]
    assert schema["properties"]["note"] == {"type": "string"}
    assert schema["properties"]["count"] == {"type": "integer"}


def test_values_are_copied_as_they_are() -> None:
    raw = {
        "type": "object",
        "properties": {
            "opts": {"type": "object", "default": {"title": "kept", "$defs": 1}},
            "mode": {"enum": [{"title": "x"}], "const": {"title": "y"}},
        },
    }
    props = compact(raw)["properties"]
    assert props["opts"]["default"] == {"title": "kept", "$defs": 1}
    assert props["mode"] == {"enum": [{"title": "x"}], "const": {"title": "y"}}


def test_a_discriminator_does_not_point_into_dropped_defs() -> None:
    class Params(BaseModel):
        pet: Annotated[Cat | Dog, Field(discriminator="kind")]

    schema = compact(Params.model_json_schema())
    assert refs_in(schema) == []
    assert "discriminator" not in schema["properties"]["pet"]
    kinds = [branch["properties"]["kind"]["const"] for branch in schema["properties"]["pet"]["oneOf"]]
    assert kinds == ["cat", "dog"]


def test_open_objects_lose_the_default_additional_properties() -> None:
    class Params(BaseModel):
        meta: dict[str, Any]

    assert compact(Params.model_json_schema())["properties"]["meta"] == {"type": "object"}


# --- a tool's schemas and validation ---------------------------------------------------------------------


async def _person_tool(
    ctx: ToolContext[Any],
    person: Person,
    tags: list[Annotated[str, Field(max_length=5)]],
    limit: Annotated[int, Field(ge=1, le=10, description="how many")] = 3,
    note: str | None = None,
    pet: Annotated[Cat | Dog, Field(discriminator="kind")] | None = None,
    either: int | str = 0,
) -> Person:
    """Echo a person."""
    return person


PERSON = {"title": "Dr", "name": "Ada", "home": {"city": "London"}}


def test_the_input_schema_comes_from_the_signature() -> None:
    schema = tool_schema(_person_tool).input_schema
    assert schema["required"] == ["person", "tags"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["limit"] == {
        "default": 3,
        "description": "how many",
        "maximum": 10,
        "minimum": 1,
        "type": "integer",
    }
    assert schema["properties"]["note"] == {"type": "string"}
    assert refs_in(schema) == []


def test_the_output_schema_comes_from_the_return_model() -> None:
    schema = tool_schema(_person_tool).output_schema
    assert schema is not None
    assert schema["required"] == ["title", "name", "home"]
    assert refs_in(schema) == []


def test_null_is_still_accepted_where_the_published_schema_omits_it() -> None:
    checked = tool_schema(_person_tool).validate({"person": {**PERSON, "work": None}, "tags": [], "note": None})
    assert checked["note"] is None
    assert checked["person"].work is None


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"tags": []}, "person"),
        ({"person": PERSON, "tags": [], "limit": 11}, "limit"),
        ({"person": PERSON, "tags": [], "extra": 1}, "extra"),
        ({"person": {"name": "Ada", "home": {"city": "x"}}, "tags": []}, "person.title"),
        ({"person": {**PERSON, "home": {}}, "tags": []}, "person.home.city"),
        ({"person": {**PERSON, "work": {"city": 5}}, "tags": []}, "person.work.city"),
        ({"person": PERSON, "tags": ["ok", "too long"]}, "tags.1"),
        ({"person": PERSON, "tags": [], "pet": {"kind": "cat"}}, "pet.lives"),
        ({"person": PERSON, "tags": [], "pet": {"kind": "cow"}}, "pet"),
        ({"person": PERSON, "tags": [], "either": [1]}, "either"),
    ],
)
def test_validation_errors_name_the_field(params: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        tool_schema(_person_tool).validate(params)
    error = caught.value
    assert error.code == "INVALID_ARGUMENT"
    assert error.message.startswith(f"invalid parameter '{field}': ")
    assert {e["field"] for e in error.data["errors"]} == {field}


def test_every_problem_is_listed_and_the_message_counts_them() -> None:
    with pytest.raises(InvalidArgument) as caught:
        tool_schema(_person_tool).validate({"limit": 0})
    fields = [e["field"] for e in caught.value.data["errors"]]
    assert fields == ["person", "tags", "limit"]
    assert caught.value.message.endswith("(and 2 more)")


def test_validated_params_are_keyword_arguments() -> None:
    checked = tool_schema(_person_tool).validate(
        {"person": PERSON, "tags": ["a"], "pet": {"kind": "dog", "good": True}}
    )
    assert set(checked) == {"person", "tags", "limit", "note", "pet", "either"}
    assert isinstance(checked["person"], Person) and isinstance(checked["pet"], Dog)
    assert checked["limit"] == 3


def test_a_list_or_object_sent_as_a_string_holding_one_is_read_as_what_it_holds() -> None:
    schema = tool_schema(_person_tool)
    checked = schema.validate(
        {"person": json.dumps(PERSON), "tags": '["a", "b"]', "pet": '{"kind": "dog", "good": true}', "note": "[1]"}
    )
    assert isinstance(checked["person"], Person) and checked["tags"] == ["a", "b"]
    assert isinstance(checked["pet"], Dog) and checked["note"] == "[1]"  # a string parameter stays a string
    for sent, field in (("a", "tags"), ('{"x": 1}', "tags"), ("[1, 2]", "person")):
        params: dict[str, Any] = {"person": PERSON, "tags": ["a"], field: sent}
        with pytest.raises(InvalidArgument) as caught:
            schema.validate(params)
        assert caught.value.data["errors"][0]["field"].startswith(field), sent
    with pytest.raises(InvalidArgument) as caught:  # what it holds is checked as the real thing would be
        schema.validate({"person": PERSON, "tags": '["far too long"]'})
    assert caught.value.data["errors"][0]["field"] == "tags.0"
