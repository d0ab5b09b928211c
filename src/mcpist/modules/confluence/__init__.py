"""Module `confluence`: search, read and write Confluence Cloud pages as Markdown, with comments, labels and
attachments.

Tools return compact models; page bodies travel as Markdown (`markdown/`), keeping what Markdown cannot say as
`<!-- confluence:<xml> -->` markers. Accounts: an API token with the account's email, a Data Center personal
access token, or an OAuth grant through api.atlassian.com (its sites in the `sites` field).
"""

from . import _browse, _pages, _social  # noqa: F401  (each registers its tools on `module`)
from ._common import api
from ._module import ConfluenceSettings, module

__all__ = ["ConfluenceSettings", "api", "module"]
