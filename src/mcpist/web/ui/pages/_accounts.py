"""Accounts as the pages show them: whose, read or write, and when each stops working by itself
(the vault CLI's `describe_expiry`, in the reader's language and time zone)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from mcpist.runtime import Runtime
from mcpist.vault.broker import TokenBroker
from mcpist.vault.cli import VaultAdmin
from mcpist.vault.store import AccountInfo

from .._i18n import Formatter

SOON = timedelta(days=7)


@dataclass(frozen=True)
class AccountView:
    info: AccountInfo
    owner: str
    """"personal" or "shared"."""
    expiry: str
    attention: bool

    @property
    def label(self) -> str:
        return self.info.label


def broker_of(runtime: Runtime) -> TokenBroker | None:
    return runtime.accounts if isinstance(runtime.accounts, TokenBroker) else None


def vault_admin(runtime: Runtime) -> VaultAdmin | None:
    broker = broker_of(runtime)
    return VaultAdmin(broker, runtime.owner.id, runtime.settings.data_dir) if broker is not None else None


def needs_attention(info: AccountInfo, now: datetime) -> bool:
    """Broken (the provider refused it), or stops working within a week unless someone reconnects it."""
    if info.status == "reauth":
        return True
    if info.refresh_expires_at is not None:
        return info.refresh_expires_at < now + SOON
    return not info.refreshable and info.expires_at is not None and info.expires_at < now + SOON


def describe_expiry(info: AccountInfo, fmt: Formatter, _: Callable[[str], str]) -> str:
    if info.status == "reauth":
        return _("refused by the service: connect it again")
    if info.expires_at is None:
        return _("does not expire")
    if not info.refreshable:
        return _("until %(when)s, then connect it again") % {"when": fmt.when(info.expires_at)}
    if info.refresh_expires_at is not None:
        return _("renews itself; connect it again by %(when)s") % {"when": fmt.when(info.refresh_expires_at)}
    return _("renews itself")


def view(info: AccountInfo, fmt: Formatter, _: Callable[[str], str], now: datetime | None = None) -> AccountView:
    return AccountView(
        info,
        "shared" if info.shared else "personal",
        describe_expiry(info, fmt, _),
        needs_attention(info, now or datetime.now(UTC)),
    )


async def accounts_of(
    runtime: Runtime, user_id: str, roles: tuple[str, ...], fmt: Formatter, _: Callable[[str], str]
) -> list[AccountView]:
    """The user's personal accounts and the shared accounts of the roles in force for them."""
    broker = broker_of(runtime)
    if broker is None:
        return []
    found = await broker.accounts.find(user_id=user_id, roles=roles)
    now = datetime.now(UTC)
    return [view(a, fmt, _, now) for a in found]
