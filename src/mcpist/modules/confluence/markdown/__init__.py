"""Confluence storage format (XHTML) and Markdown, both ways, keeping what Markdown cannot say in markers.

`to_markdown(storage)` and `to_storage(markdown)`; `<!-- confluence:<ac:structured-macro ...>...</...> -->`
carries a construct's XML verbatim (with `-->` written `--&gt;`), so panels, mentions, status lozenges, layouts
and task lists survive a read, an edit of the text around them and a write.
"""

from .parse import to_storage
from .render import to_markdown

__all__ = ["to_markdown", "to_storage"]
