"""Time zones in both directions, without HTTP: caller's input -> Google's EventDateTime, Google's -> output,
DST gaps and overlaps (New York 2026-03-08, Berlin 2026-10-25; Tokyo has none), all-day days never shifted."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from mcpist.modules import InvalidArgument
from mcpist.modules.google_calendar._times import (
    event_times,
    free_slots,
    merge,
    parse,
    show,
    time_range,
    until_before,
    working_windows,
    zone,
)

NY, BERLIN, TOKYO = ZoneInfo("America/New_York"), ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Tokyo")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


# --- input -> request body ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "end", "google_end"),
    [
        ("2026-03-08", None, "2026-03-09"),  # one day: Google's end is the next day
        ("2026-03-08", "2026-03-08", "2026-03-09"),
        ("2026-03-08", "2026-03-10", "2026-03-11"),  # the caller's end is the last day, inclusive
        ("2026-12-31", None, "2027-01-01"),
        ("2028-02-28", "2028-02-29", "2028-03-01"),
    ],
)
def test_an_all_day_end_is_the_inclusive_last_day_and_google_gets_the_day_after(
    start: str, end: str | None, google_end: str
) -> None:
    for tz in (NY, TOKYO, ZoneInfo("Pacific/Kiritimati"), ZoneInfo("Pacific/Pago_Pago")):
        body_start, body_end = event_times(start, end, None, tz)
        assert body_start == {"date": start} and body_end == {"date": google_end}


def test_a_local_time_takes_the_offset_its_zone_has_that_day() -> None:
    assert event_times("2026-03-07T09:00", None, 30, NY) == (
        {"dateTime": "2026-03-07T09:00:00-05:00", "timeZone": "America/New_York"},
        {"dateTime": "2026-03-07T09:30:00-05:00", "timeZone": "America/New_York"},
    )
    assert event_times("2026-03-09T09:00", "2026-03-09T10:15", None, NY)[0]["dateTime"] == "2026-03-09T09:00:00-04:00"
    assert event_times("2026-10-24T12:00", None, 60, BERLIN)[0]["dateTime"] == "2026-10-24T12:00:00+02:00"
    assert event_times("2026-10-26T12:00", None, 60, BERLIN)[0]["dateTime"] == "2026-10-26T12:00:00+01:00"
    assert event_times("2026-03-08T02:30", None, 60, TOKYO)[0]["dateTime"] == "2026-03-08T02:30:00+09:00"


def test_a_duration_across_the_dst_change_is_real_time() -> None:
    # 01:00 EST + 2 h of real time is 04:00 EDT: the clocks skipped 02:00-03:00
    _, end = event_times("2026-03-08T01:00", None, 120, NY)
    assert end == {"dateTime": "2026-03-08T04:00:00-04:00", "timeZone": "America/New_York"}
    # Berlin falls back: 01:30 CEST + 2 h is 02:30 CET
    assert event_times("2026-10-25T01:30", None, 120, BERLIN)[1]["dateTime"] == "2026-10-25T02:30:00+01:00"


def test_a_skipped_local_time_is_refused_with_the_moment_it_would_be() -> None:
    with pytest.raises(InvalidArgument, match="start: 2026-03-08T02:30 does not exist in America/New_York") as err:
        event_times("2026-03-08T02:30", None, 30, NY)
    assert "2026-03-08T03:30:00-04:00" in err.value.message and err.value.data["field"] == "start"


def test_a_repeated_local_time_is_refused_with_both_offsets_and_either_offset_is_accepted() -> None:
    with pytest.raises(InvalidArgument, match="happens twice in Europe/Berlin") as err:
        event_times("2026-10-25T02:30", None, 30, BERLIN)
    assert "2026-10-25T02:30:00+02:00 (the first)" in err.value.message
    assert "2026-10-25T02:30:00+01:00 (the second)" in err.value.message
    with pytest.raises(InvalidArgument, match="end: 2026-11-01T01:30 happens twice in America/New_York"):
        event_times("2026-11-01T00:30", "2026-11-01T01:30", None, NY)
    first, _ = event_times("2026-10-25T02:30:00+02:00", None, 30, BERLIN)
    second, _ = event_times("2026-10-25T02:30:00+01:00", None, 30, BERLIN)
    assert (first["dateTime"], second["dateTime"]) == ("2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00")


def test_an_instant_with_an_offset_is_kept_and_shown_in_the_zone() -> None:
    start, end = event_times("2026-03-08T12:00:00Z", "2026-03-08T23:30:00+09:00", None, NY)
    assert start == {"dateTime": "2026-03-08T08:00:00-04:00", "timeZone": "America/New_York"}
    assert end == {"dateTime": "2026-03-08T10:30:00-04:00", "timeZone": "America/New_York"}


@pytest.mark.parametrize(
    ("start", "end", "minutes", "field", "problem"),
    [
        ("2026-03-08", "2026-03-08T10:00", None, "end", "ends on a date"),
        ("2026-03-08T09:00", "2026-03-09", None, "end", "needs one too"),
        ("2026-03-08T09:00", None, None, "end", "needs end or duration_minutes"),
        ("2026-03-08T09:00", "2026-03-08T10:00", 30, "end", "not both"),
        ("2026-03-08T09:00", "2026-03-08T08:00", None, "end", "is not after the start"),
        ("2026-03-08", "2026-03-07", None, "end", "before the first day"),
        ("2026-03-08", None, 60, "duration_minutes", "not duration_minutes"),
        ("2026-02-30", None, None, "start", "not a real date"),
        ("next tuesday", None, None, "start", "is not YYYY-MM-DD"),
    ],
)
def test_wrong_times_name_their_field(
    start: str, end: str | None, minutes: int | None, field: str, problem: str
) -> None:
    with pytest.raises(InvalidArgument, match=problem) as err:
        event_times(start, end, minutes, NY)
    assert err.value.data["field"] == field


def test_a_local_time_needs_a_zone_and_zones_are_checked() -> None:
    with pytest.raises(InvalidArgument, match="has no offset: give time_zone"):
        parse("2026-03-08T09:00", None, "time_min")
    with pytest.raises(InvalidArgument, match="'Mars/Olympus' is not an IANA time zone") as err:
        zone("Mars/Olympus")
    assert err.value.data["field"] == "time_zone"
    assert parse("2026-03-08T09:00:00z", None, "x") == parse("2026-03-08T04:00:00-05:00", None, "x")


# --- response -> output ---------------------------------------------------------------------------------------


def test_google_instants_are_shown_with_the_offset_of_the_zone_asked_for() -> None:
    raw = {"dateTime": "2026-03-08T14:00:00Z", "timeZone": "America/New_York"}
    assert show(raw, NY) == "2026-03-08T10:00:00-04:00"
    assert show(raw, TOKYO) == "2026-03-08T23:00:00+09:00"
    assert show(raw, BERLIN) == "2026-03-08T15:00:00+01:00"
    # a local time Google pairs with its zone
    assert show({"dateTime": "2026-10-25T03:00:00", "timeZone": "Europe/Berlin"}, ZoneInfo("UTC")) == (
        "2026-10-25T02:00:00+00:00"
    )


def test_an_all_day_event_is_never_shifted_and_its_end_is_the_last_day() -> None:
    for tz in (NY, TOKYO, ZoneInfo("Pacific/Kiritimati"), ZoneInfo("Pacific/Pago_Pago")):
        assert show({"date": "2026-03-08"}, tz) == "2026-03-08"
        assert show({"date": "2026-03-09"}, tz, end=True) == "2026-03-08"
    assert show(None, NY) is None


def test_a_date_range_covers_whole_local_days_even_when_one_has_23_hours() -> None:
    now = datetime(2026, 3, 8, 15, 0, tzinfo=UTC)
    start, end = time_range("2026-03-08", "2026-03-08", NY, now)
    assert (start, end) == (at("2026-03-08T00:00:00-05:00"), at("2026-03-09T00:00:00-04:00"))
    assert (end - start).total_seconds() == 23 * 3600
    start, end = time_range(None, None, TOKYO, now)  # default: from today's start, a week
    assert start == at("2026-03-09T00:00:00+09:00") and (end - start).days == 7
    with pytest.raises(InvalidArgument, match=r"time_max: .* is not after time_min"):
        time_range("2026-03-08T10:00", "2026-03-08T09:00", NY, now)
    with pytest.raises(InvalidArgument, match="longer than 62 days"):
        time_range("2026-01-01", "2026-06-01", NY, now, max_days=62)


def test_until_ends_a_series_just_before_an_occurrence() -> None:
    assert until_before({"dateTime": "2026-03-10T09:00:00-04:00", "timeZone": "America/New_York"}) == (
        "20260310T125959Z"
    )
    assert until_before({"date": "2026-03-10"}) == "20260309"


# --- free time ------------------------------------------------------------------------------------------------


def test_working_hours_follow_each_days_offset_across_dst() -> None:
    start, end = at("2026-03-06T00:00:00-05:00"), at("2026-03-11T00:00:00-04:00")
    windows = working_windows(start, end, NY, time(9), time(17), range(5))
    assert [(a.astimezone(UTC).isoformat(), b.astimezone(UTC).isoformat()) for a, b in windows] == [
        ("2026-03-06T14:00:00+00:00", "2026-03-06T22:00:00+00:00"),  # Friday, EST
        ("2026-03-09T13:00:00+00:00", "2026-03-09T21:00:00+00:00"),  # Monday, EDT
        ("2026-03-10T13:00:00+00:00", "2026-03-10T21:00:00+00:00"),
    ]
    whole = working_windows(
        at("2026-10-25T00:00:00+02:00"), at("2026-10-26T00:00:00+01:00"), BERLIN, time(0), None, [6]
    )
    assert [(b - a).total_seconds() for a, b in whole] == [25 * 3600]  # Berlin's 25-hour Sunday


def test_free_slots_subtract_merged_busy_time_and_drop_short_gaps() -> None:
    def t(hhmm: str) -> datetime:
        return datetime.fromisoformat(f"2026-03-09T{hhmm}:00-04:00")

    busy = [(t("10:00"), t("11:00")), (t("10:30"), t("11:30")), (t("11:30"), t("12:00")), (t("16:50"), t("18:00"))]
    assert merge(busy)[:2] == [(t("10:00"), t("12:00")), (t("16:50"), t("18:00"))]
    slots = free_slots([(t("09:00"), t("17:00"))], busy, 30)
    assert slots == [(t("09:00"), t("10:00")), (t("12:00"), t("16:50"))]
    assert free_slots([(t("09:00"), t("17:00"))], [(t("08:00"), t("18:00"))], 30) == []
    assert free_slots([(t("09:00"), t("09:20"))], [], 30) == []
    assert date(2026, 3, 9).weekday() == 0
