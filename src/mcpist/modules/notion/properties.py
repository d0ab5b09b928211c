"""Page property values flattened to plain values and back, and data source schemas in short form."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcpist.modules import InvalidArgument

from .markdown.canonical import canonical_rich_text
from .markdown.wire import text_items, wire_rich_text
from .models import PropertySchema, PropertyValue

_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")
COMPUTED = frozenset(
    {"formula", "rollup", "created_time", "created_by", "last_edited_time", "last_edited_by", "unique_id", "button"}
)
_SIMPLE_TYPES = frozenset(
    {"title", "rich_text", "number", "checkbox", "date", "url", "email", "phone_number", "people", "files", "status"}
    | {"created_time", "created_by", "last_edited_time", "last_edited_by", "unique_id", "verification"}
)


def plain(items: Any) -> str:
    """The text of a rich text array as Notion answers it."""
    if not isinstance(items, list):
        return ""
    return "".join(str(item.get("plain_text") or item.get("text", {}).get("content") or "") for item in items)


def title_of(obj: Mapping[str, Any]) -> str:
    """A page's or a data source's title."""
    if isinstance(obj.get("title"), list):
        return plain(obj["title"])
    for prop in (obj.get("properties") or {}).values():
        if isinstance(prop, dict) and prop.get("type") == "title":
            return plain(prop.get("title"))
    return ""


def parent_of(parent: Any) -> str | None:
    """`page:ID`, `database:ID`, `data_source:ID`, `block:ID` or `workspace`."""
    if not isinstance(parent, dict):
        return None
    kind = str(parent.get("type", ""))
    if kind == "workspace":
        return "workspace"
    value = parent.get(kind)
    return f"{kind.removesuffix('_id')}:{value}" if isinstance(value, str) else None


def user_label(user: Any) -> str:
    """`Name <id>`, or the id alone when Notion gives no name."""
    if not isinstance(user, dict):
        return ""
    name = user.get("name")
    return f"{name} <{user.get('id')}>" if name else str(user.get("id", ""))


def icon_of(icon: Any) -> str | None:
    if not isinstance(icon, dict):
        return None
    kind = icon.get("type")
    if kind == "emoji":
        return str(icon.get("emoji"))
    inner = icon.get(kind) if isinstance(kind, str) else None
    return str(inner.get("url")) if isinstance(inner, dict) and inner.get("url") else None


def flatten(properties: Any, *, keep_title: bool = False) -> dict[str, PropertyValue]:
    """Every property (but the title, unless `keep_title`) as a plain value."""
    out: dict[str, PropertyValue] = {}
    for name, prop in (properties or {}).items():
        if isinstance(prop, dict) and (keep_title or prop.get("type") != "title"):
            out[name] = value_of(prop)
    return out


def value_of(prop: Mapping[str, Any]) -> PropertyValue:
    """One property value (as a page answers it) as a plain value."""
    kind = str(prop.get("type", ""))
    value = prop.get(kind)
    if kind in ("title", "rich_text"):
        return plain(value)
    if kind in ("select", "status"):
        return str(value.get("name")) if isinstance(value, dict) else None
    if kind == "multi_select":
        return [str(option.get("name")) for option in value or []]
    if kind == "date":
        return _date(value)
    if kind in ("people",):
        return [user_label(user) for user in value or []]
    if kind in ("created_by", "last_edited_by"):
        return user_label(value)
    if kind == "relation":
        return [str(page.get("id")) for page in value or []]
    if kind == "files":
        return [_file(item) for item in value or []]
    if kind == "formula" and isinstance(value, dict):
        inner = value.get(str(value.get("type")))
        return _date(inner) if value.get("type") == "date" else _scalar(inner)
    if kind == "rollup" and isinstance(value, dict):
        return _rollup(value)
    if kind == "unique_id" and isinstance(value, dict):
        prefix = value.get("prefix")
        return f"{prefix}-{value.get('number')}" if prefix else str(value.get("number"))
    if kind == "verification" and isinstance(value, dict):
        return str(value.get("state"))
    if kind == "button":
        return None
    return _scalar(value)


def _scalar(value: Any) -> PropertyValue:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return str(value)


def _date(value: Any) -> str | None:
    if not isinstance(value, dict) or not value.get("start"):
        return None
    return f"{value['start']}/{value['end']}" if value.get("end") else str(value["start"])


def _file(item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    inner = item.get(str(item.get("type")))
    return str(inner.get("url")) if isinstance(inner, dict) and inner.get("url") else str(item.get("name", ""))


def _rollup(value: Mapping[str, Any]) -> PropertyValue:
    kind = value.get("type")
    if kind == "array":
        items = [value_of(item) for item in value.get("array") or [] if isinstance(item, dict)]
        flat: list[str] = []
        for item in items:
            flat.extend(item if isinstance(item, list) else [] if item is None else [str(item)])
        return flat
    if kind == "date":
        return _date(value.get("date"))
    return _scalar(value.get(str(kind)))


# --- writing --------------------------------------------------------------------------------------


def build_values(values: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Plain values keyed by property name as Notion property values, typed by `schema` (name -> property).

    The key "title" reaches the title property whatever its name.

    Raises:
        InvalidArgument: an unknown property, a computed one, or a value its type cannot take.
    """
    out: dict[str, Any] = {}
    for name, value in values.items():
        found = name if name in schema else _title_name(schema) if name == "title" else None
        if found is None:
            known = ", ".join(sorted(schema)) or "none"
            raise InvalidArgument(f"notion: no property {name!r} (properties: {known})", {"field": "properties"})
        kind = str(schema[found].get("type"))
        out[found] = value if isinstance(value, dict) else build_value(kind, value, found)
    return out


def _title_name(schema: Mapping[str, Any]) -> str | None:
    return next((name for name, prop in schema.items() if prop.get("type") == "title"), None)


def build_value(kind: str, value: Any, name: str) -> dict[str, Any]:
    """A plain value as the property value of a `kind` property.

    Raises:
        InvalidArgument: the property is computed, or the value does not fit its type.
    """
    if kind in COMPUTED:
        raise InvalidArgument(f"notion: {name!r} is a {kind} property that Notion computes; it cannot be set")
    if kind in ("title", "rich_text"):
        return {kind: text_items("" if value is None else str(value))}
    if kind == "number":
        return {"number": _number(value, name)}
    if kind == "checkbox":
        return {"checkbox": _flag(value, name)}
    if kind in ("select", "status"):
        return {kind: None if value in (None, "") else {"name": str(value)}}
    if kind == "multi_select":
        return {"multi_select": [{"name": option} for option in _names(value)]}
    if kind == "date":
        return {"date": _date_value(value, name)}
    if kind in ("people", "relation"):
        return {kind: [{"id": _uuid(item, name)} for item in _names(value)]}
    if kind in ("url", "email", "phone_number"):
        return {kind: None if value in (None, "") else str(value)}
    if kind == "files":
        urls = _names(value)
        named = [(url.rsplit("/", 1)[-1][:100] or "file", url) for url in urls]
        return {"files": [{"name": name, "type": "external", "external": {"url": url}} for name, url in named]}
    raise InvalidArgument(f"notion: {name!r} is a {kind} property; give its value as a Notion property value object")


def _number(value: Any, name: str) -> int | float | None:
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    try:
        return float(str(value).replace(",", ""))
    except ValueError:
        raise InvalidArgument(f"notion: {name!r} is a number property; {value!r} is not a number") from None


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "yes", "1", "checked"):
        return True
    if str(value).lower() in ("false", "no", "0", "", "none", "unchecked"):
        return False
    raise InvalidArgument(f"notion: {name!r} is a checkbox property; give true or false")


def _names(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item) for item in value if item not in (None, "")]
    return [part.strip() for part in str(value).split(",") if part.strip()]


def _date_value(value: Any, name: str) -> dict[str, Any] | None:
    if value in (None, ""):
        return None
    start, _, end = str(value).partition("/")
    if not re.match(r"\d{4}-\d{2}-\d{2}", start) or (end and not re.match(r"\d{4}-\d{2}-\d{2}", end)):
        raise InvalidArgument(f"notion: {name!r} is a date property; give 2025-01-31, with a time or /end if needed")
    return {"start": start, "end": end or None}


def _uuid(value: str, name: str) -> str:
    found = _UUID.findall(value)
    if not found:
        raise InvalidArgument(f"notion: {name!r} takes ids (from list_users or search); {value!r} has none")
    raw = found[-1].replace("-", "").lower()
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


# --- schemas --------------------------------------------------------------------------------------


def schema_of(properties: Any) -> dict[str, PropertySchema]:
    """A data source's properties, each as its type and what an LLM needs to fill it."""
    out: dict[str, PropertySchema] = {}
    for name, prop in (properties or {}).items():
        if not isinstance(prop, dict):
            continue
        kind = str(prop.get("type"))
        found = prop.get(kind)
        config: dict[str, Any] = found if isinstance(found, dict) else {}
        options = config.get("options") if kind in ("select", "multi_select", "status") else None
        out[name] = PropertySchema(
            type=kind,
            options=[str(option.get("name")) for option in options] if isinstance(options, list) else None,
            data_source_id=config.get("data_source_id") if kind == "relation" else None,
            expression=config.get("expression") if kind == "formula" else None,
        )
    return out


def definitions(spec: Mapping[str, Any], *, allow_removal: bool) -> dict[str, Any]:
    """Short property definitions ("select: A, B", "relation: <data source id>", ...) as Notion's.

    Raises:
        InvalidArgument: an unknown type, or a removal (null) where none is allowed.
    """
    out: dict[str, Any] = {}
    for name, value in spec.items():
        if value is None:
            if not allow_removal:
                raise InvalidArgument(f"notion: property {name!r} has no type", {"field": "properties"})
            out[name] = None
        elif isinstance(value, dict):
            out[name] = value
        else:
            out[name] = _definition(str(value), name)
    return out


def _definition(text: str, name: str) -> dict[str, Any]:
    kind, _, argument = (part.strip() for part in text.partition(":"))
    kind = {"text": "rich_text", "phone": "phone_number", "person": "people", "multi-select": "multi_select"}.get(
        kind.lower(), kind.lower()
    )
    if kind in ("select", "multi_select"):
        return {kind: {"options": [{"name": option} for option in _names(argument)]}}
    if kind == "number":
        return {"number": {"format": argument or "number"}}
    if kind == "relation":
        if not argument:
            raise InvalidArgument(f"notion: relation {name!r} needs a target: 'relation: <data source id>'")
        return {"relation": {"data_source_id": _uuid(argument, name), "type": "single_property", "single_property": {}}}
    if kind == "formula":
        return {"formula": {"expression": argument}}
    if kind in _SIMPLE_TYPES:
        return {kind: {}}
    raise InvalidArgument(
        f"notion: {name!r}: unknown property type {kind!r} (title, rich_text, number, select: A, B, multi_select, "
        "status, date, people, files, checkbox, url, email, phone_number, relation: <id>, formula: <expr>)",
        {"field": "properties"},
    )


def copy_values(properties: Any, *, title_only: bool) -> tuple[dict[str, Any], list[str]]:
    """A page's property values (as Notion answers them) as values a new page can take, and what was left out."""
    out: dict[str, Any] = {}
    notes: list[str] = []
    for name, prop in (properties or {}).items():
        kind = str(prop.get("type")) if isinstance(prop, dict) else ""
        if (title_only and kind != "title") or kind in COMPUTED or kind in ("verification", ""):
            continue
        value = prop.get(kind)
        if prop.get("has_more") is True:
            notes.append(f"property {name!r} was copied only in part (Notion shows the first 25 values)")
        if kind in ("title", "rich_text"):
            out[name] = {kind: wire_rich_text(canonical_rich_text(value))}
        elif kind in ("select", "status"):
            out[name] = {kind: {"name": value["name"]} if isinstance(value, dict) else None}
        elif kind == "multi_select":
            out[name] = {kind: [{"name": option["name"]} for option in value or []]}
        elif kind in ("people", "relation"):
            out[name] = {kind: [{"id": item["id"]} for item in value or []]}
        elif kind == "date":
            out[name] = {kind: {k: v for k, v in value.items() if v is not None} if isinstance(value, dict) else None}
        elif kind == "files":
            kept = [f for f in value or [] if isinstance(f, dict) and f.get("type") == "external"]
            if len(kept) < len(value or []):
                notes.append(f"Notion-hosted files in {name!r} cannot be copied through the API and were left out")
            out[name] = {
                kind: [{"name": f.get("name") or "file", "type": "external", "external": f["external"]} for f in kept]
            }
        else:
            out[name] = {kind: value}
    return out, notes
