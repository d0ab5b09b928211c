"""Module `jira`: issues, comments, transitions, worklogs, links, projects, boards and sprints on Jira.

Rich text (descriptions, comments) is read and written as Markdown through `adf`, which keeps what Markdown
cannot say. Accounts: a Cloud API token with the account's `email` (Basic), a Data Center personal access
token (Bearer), or OAuth through Atlassian's gateway, whose sites `site` picks from.
"""

from . import _agile, _issues, _meta, _work  # noqa: F401  (each registers its tools on `module`)
from ._module import JiraSettings, module

__all__ = ["JiraSettings", "module"]
