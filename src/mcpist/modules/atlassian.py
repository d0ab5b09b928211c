"""What Jira and Confluence share: the Atlassian sites an OAuth grant covers.

After consent, `granted_sites` asks which sites the grant reaches and keeps them in the account field `sites`
(compact JSON: id, url, name); `stored_sites` reads that field back, and `sites_named` finds the ones a caller's
`site` names. Which request goes where, and what a call does with no site or several, stays with each module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from mcpist.errors import Unauthenticated
from mcpist.upstream import ServiceClient


async def granted_sites(http: ServiceClient, url: str, product: str) -> dict[str, str]:
    """The account fields an OAuth grant's `accessible-resources` list (at `url`) gives: `{"sites": json}`.

    Entries without an id or a URL are no site; a null or empty name is kept as "" (a nameless site is still a
    site: the name is only shown).

    Raises:
        Unauthenticated: the grant covers no site; `product` ("Jira") says what to grant access to.
    """
    found = await http.get_json(url)
    sites = [
        {
            "id": str(s["id"]),
            "url": str(s["url"]),
            "name": str(s.get("name") or ""),
        }
        for s in (found if isinstance(found, list) else [])
        if isinstance(s, dict) and s.get("id") and s.get("url")
    ]
    if not sites:
        raise Unauthenticated(
            f"this Atlassian grant covers no site; grant access to a {product} site and connect again"
        )
    return {"sites": json.dumps(sites, separators=(",", ":"))}


def stored_sites(raw: str | None) -> list[dict[str, str]]:
    """The sites kept in an account's `sites` field: each entry with a string id; none when it is unset or bad."""
    try:
        found = json.loads(raw or "[]")
    except ValueError:
        return []
    return [s for s in found if isinstance(s, dict) and isinstance(s.get("id"), str)] if isinstance(found, list) else []


def site_url(entry: Mapping[str, Any]) -> str:
    """A stored site's root URL, without a trailing slash ("" when it has none)."""
    return str(entry.get("url", "")).rstrip("/")


def sites_named(sites: Iterable[dict[str, str]], site: str) -> list[dict[str, str]]:
    """The sites whose cloud id, URL or name is `site`, ignoring case, surrounding blanks and a trailing slash."""
    wanted = site.strip().rstrip("/").lower()
    return [s for s in sites if wanted in (s["id"].lower(), str(s.get("name", "")).lower(), site_url(s).lower())]
