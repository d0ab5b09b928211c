"""Key rotation: re-wrap every record's data key under the active KEK, online.

Only the wrapped data keys change (payloads stay as they are). Each row is re-wrapped in its
own short transaction and written only if its wrapped key is still the one read
(compare-and-swap), so the server keeps serving and refreshing meanwhile. Rows already under
the active key are skipped, so an interrupted run is finished by running it again.

The vault's own tables are always covered; a layer above that seals with the vault's key (the admin
UI's SMTP password) passes its table as a `SealedRows`, so that its record is re-wrapped too and
`prune_keys` never forgets a key it still needs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from .crypto import Keyring, MissingKey, Sealed, rewrap
from .flows import flow_identity, flow_of
from .keys import KeySource
from .store import account_identity, app_identity, sealed_of
from .tables import accounts, connect_flows, oauth_apps

logger = logging.getLogger("mcpist.vault")

BATCH = 100


@dataclass(frozen=True)
class SealedRows:
    """A table whose rows each hold one sealed record (`kek_id`, `wrapped_key`, `ciphertext`)."""

    table: sa.Table
    key: sa.Column[Any]
    """The primary key, the order rows are visited in."""
    identity: Callable[[Any], bytes]
    """What a row's record is bound to (the identity it was sealed with)."""


VAULT_ROWS = (
    SealedRows(
        accounts,
        accounts.c.id,
        lambda row: account_identity(row.id, row.service, row.name, row.user_id, row.role, row.kind),
    ),
    SealedRows(oauth_apps, oauth_apps.c.service, lambda row: app_identity(row.service, row.client_id)),
    SealedRows(connect_flows, connect_flows.c.id, lambda row: flow_identity(flow_of(row))),
)


@dataclass
class RotationReport:
    active_id: str
    retired_id: str | None = None
    rewrapped: int = 0
    remaining: dict[str, int] = field(default_factory=dict)
    """Records still under another key after the run, by key id (should be empty)."""


async def key_usage(engine: AsyncEngine, extra: Sequence[SealedRows] = ()) -> dict[str, int]:
    """How many records each KEK id wraps."""
    usage: dict[str, int] = {}
    async with engine.connect() as conn:
        for table in (rows.table for rows in (*VAULT_ROWS, *extra)):
            query = (
                sa.select(table.c.kek_id, sa.func.count()).where(table.c.kek_id.is_not(None)).group_by(table.c.kek_id)
            )
            for kid, count in await conn.execute(query):
                usage[kid] = usage.get(kid, 0) + count
    return usage


async def rewrap_all(
    engine: AsyncEngine,
    keys: KeySource,
    progress: Callable[[int], None] | None = None,
    extra: Sequence[SealedRows] = (),
) -> RotationReport:
    """Re-wrap every record not under the active KEK.

    Raises:
        MissingKey: a record's KEK is in no key source (nothing is lost: the run stops there).
        TamperedRecord: a record's wrapped key fails authentication.
    """
    keyring: Keyring = keys.keyring(force=True)
    report = RotationReport(active_id=keyring.active_id)
    for sealed_rows in (*VAULT_ROWS, *extra):
        table, pk = sealed_rows.table, sealed_rows.key
        after: str | None = None
        while True:
            query = (
                sa.select(table)
                .where(table.c.kek_id.is_not(None), table.c.kek_id != keyring.active_id)
                .order_by(pk)
                .limit(BATCH)
            )
            if after is not None:
                query = query.where(pk > after)
            async with engine.connect() as conn:
                rows = (await conn.execute(query)).all()
            if not rows:
                break
            for row in rows:
                after = getattr(row, pk.name)
                identity = sealed_rows.identity(row)
                old: Sealed = sealed_of(row)
                try:
                    new = rewrap(keyring, identity, old)
                except MissingKey:
                    keyring = keys.keyring(force=True)
                    new = rewrap(keyring, identity, old)
                async with engine.begin() as conn:
                    result = await conn.execute(
                        table.update()
                        .where(pk == after, table.c.kek_id == old.kek_id, table.c.wrapped_key == old.wrapped_key)
                        .values(kek_id=new.kek_id, wrapped_key=new.wrapped_key)
                    )
                if result.rowcount:
                    report.rewrapped += 1
                    if progress is not None:
                        progress(report.rewrapped)
    usage = await key_usage(engine, extra)
    report.remaining = {kid: n for kid, n in usage.items() if kid != keyring.active_id}
    logger.info("vault: re-wrapped %d records under key %s", report.rewrapped, keyring.active_id)
    return report


async def rotate_key(
    engine: AsyncEngine,
    keys: KeySource,
    progress: Callable[[int], None] | None = None,
    extra: Sequence[SealedRows] = (),
) -> RotationReport:
    """New KEK (when the master key file holds it), then re-wrap every record under it.

    A record written under the old key by a server during the run is caught by a second pass;
    running this again after an interruption finishes the job.

    Raises:
        MissingKey, TamperedRecord: see rewrap_all.
    """
    retired: str | None = None
    if keys.rotatable:
        retired, _ = keys.rotate_master_key()
    report = await rewrap_all(engine, keys, progress, extra)
    if report.remaining:
        second = await rewrap_all(engine, keys, progress, extra)
        second.rewrapped += report.rewrapped
        report = second
    report.retired_id = retired
    return report


async def prune_keys(engine: AsyncEngine, keys: KeySource, extra: Sequence[SealedRows] = ()) -> list[str]:
    """Drop retired KEKs that no record uses from the keyring file; returns their ids."""
    usage = await key_usage(engine, extra)
    retired = keys.retired()
    dropped = [kid for kid in retired if usage.get(kid, 0) == 0]
    if dropped:
        keys.save_retired({kid: key for kid, key in retired.items() if kid not in dropped})
    return dropped
