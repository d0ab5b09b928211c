"""Logs by service over a time window, and the advisors."""

from __future__ import annotations

from datetime import datetime

import pytest
from supabase_harness import Harness
from supabase_world import REF

from mcpist.errors import InvalidArgument
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("get_logs")
async def test_logs_of_one_service_over_a_window(supa: Harness) -> None:
    result = await supa.call("get_logs", project=REF, service="postgres", minutes=30, limit=10)
    (params,) = supa.world.log_queries
    assert params["sql"].startswith("select identifier, postgres_logs.timestamp")
    assert params["sql"].endswith("order by timestamp desc limit 10")
    start, end = (
        datetime.fromisoformat(params[k].replace("Z", "+00:00")) for k in ("iso_timestamp_start", "iso_timestamp_end")
    )
    assert (end - start).total_seconds() == 30 * 60
    assert (result["start"], result["end"]) == (params["iso_timestamp_start"], params["iso_timestamp_end"])
    assert [e["id"] for e in result["entries"]] == ["log-0", "log-1", "log-2", "log-big"]
    assert len(result["entries"][-1]["event_message"]) < 2100, "a long message is cut"
    assert result["entries_omitted"] == 0

    supa.settings = {"max_bytes": 1024}
    bounded = await supa.call("get_logs", project=REF, service="api")
    assert "from edge_logs" in supa.world.log_queries[-1]["sql"]
    assert len(bounded["entries"]) == 3 and bounded["entries_omitted"] == 1

    with pytest.raises(InvalidArgument, match="the log query failed: Unrecognized name: realtime_logs"):
        await supa.call("get_logs", project=REF, service="realtime")
    with pytest.raises(InvalidArgument):
        await supa.call("get_logs", project=REF, service="everything")


@covers("get_advisors")
async def test_advisors(supa: Harness) -> None:
    security = await supa.call("get_advisors", project=REF, kind="security")
    assert [(lint["name"], lint["level"]) for lint in security["items"]] == [
        ("rls_disabled_in_public", "ERROR"),
        ("auth_otp_long_expiry", "WARN"),
    ]
    first = security["items"][0]
    assert first["remediation"].startswith("https://supabase.com/docs/") and first["metadata"]["name"] == "notes"
    errors = await supa.call("get_advisors", project=REF, kind="security", level="ERROR")
    assert [lint["name"] for lint in errors["items"]] == ["rls_disabled_in_public"]
    paged = await supa.call("get_advisors", project=REF, kind="security", limit=1)
    assert len(paged["items"]) == 1 and paged["next_cursor"]
    performance = await supa.call("get_advisors", project=REF, kind="performance")
    assert [lint["categories"] for lint in performance["items"]] == [["PERFORMANCE"]]
    assert len(supa.sent("GET /v1/projects/{ref}/advisors/security")) == 3
