"""Module `memory`: memos with embeddings, hybrid search and relations (seed 003)."""

from . import commands as _commands  # noqa: F401 - registers the CLI commands
from .settings import MemorySettings
from .tools import module

__all__ = ["MemorySettings", "module"]
