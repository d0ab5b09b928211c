"""Module `memory`: memos with embeddings, hybrid search and relations (seed 003)."""

from .settings import MemorySettings
from .tools import module

__all__ = ["MemorySettings", "module"]
