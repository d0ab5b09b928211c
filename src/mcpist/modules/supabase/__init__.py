"""Module `supabase`: projects, SQL, migrations, logs, advisors, Edge Functions, branches and Storage.

SQL runs through the Management API's read-only endpoint unless the caller may use `execute_sql_write`.
Storage calls carry the project's service key, fetched with the account's token and never shown. An account
may be pinned to one project (`project_ref`). Accounts: a personal access token or an OAuth app's grant.
"""

from . import _branches, _functions, _observe, _projects, _schema, _sql, _storage  # noqa: F401  (register tools)
from ._keys import KeyCache
from ._module import SupabaseSettings, module

__all__ = ["KeyCache", "SupabaseSettings", "module"]
