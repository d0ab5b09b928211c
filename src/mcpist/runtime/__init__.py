"""The running server's parts, built once from Settings: database, modules, HTTP client.

`Runtime.execute` is the one path every tool call takes (single `call`, each
`batch` task, scripts): visibility, parameter validation, account resolution,
timeout, and error normalisation. Visibility is the caller's `Principal`,
resolved once per request by `Runtime.principal`.

- `_core`: the `Runtime` (permissions, resources, `execute`);
- `_calls`: what one call runs with (account resolution, read-only accounts, the upstream client);
- `_start`: `start_runtime` (data directory, master key, migrations, modules' startup).
"""

from ._calls import AccountResolver, NoAccounts, check_writable, service_client
from ._core import Runtime
from ._start import MASTER_KEY_FILE, ensure_master_key, start_runtime

__all__ = [
    "MASTER_KEY_FILE",
    "AccountResolver",
    "NoAccounts",
    "Runtime",
    "check_writable",
    "ensure_master_key",
    "service_client",
    "start_runtime",
]
