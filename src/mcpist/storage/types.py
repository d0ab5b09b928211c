"""Column types that behave the same on SQLite and PostgreSQL; modules may use them too."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

__all__ = ["UTCDateTime", "utc"]


@overload
def utc(value: datetime) -> datetime: ...
@overload
def utc(value: None) -> None: ...
def utc(value: datetime | None) -> datetime | None:
    """`value` as an aware UTC datetime; a naive one is taken to be UTC already.

    For values read outside a `UTCDateTime` column (raw SQL, a function over a column): SQLite
    keeps no offset, so what it hands back is naive.
    """
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """`DateTime(timezone=True)` that reads back aware UTC on both backends (SQLite keeps no offset).

    The database type is unchanged, so a column can switch to it without a migration.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        # naive means UTC here as on reading, never the host's local time
        return utc(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return utc(value)
