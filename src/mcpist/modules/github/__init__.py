"""Module `github`: repositories, files, commits, issues, pull requests, Actions and notifications on GitHub.

Tools return compact models (never GitHub's raw JSON), long texts come in windows (`clip`), lists page with an
opaque cursor over GitHub's `Link` headers. Accounts: OAuth or a personal access token; an account's
`base_url` field points it at a GitHub Enterprise Server.
"""

from . import (  # noqa: F401  (each registers its tools on `module`)
    _actions,
    _activity,
    _commits,
    _contents,
    _issues,
    _pulls,
    _repos,
    _resources,
    _write,
)
from ._module import GitHubSettings, module
from ._prompts import GitHubPrompts

module.prompts = GitHubPrompts()

__all__ = ["GitHubPrompts", "GitHubSettings", "module"]
