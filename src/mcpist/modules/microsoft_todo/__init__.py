"""Module `microsoft_todo`: Microsoft To Do through Microsoft Graph (personal and work accounts).

Due dates are days that stay on their day in every time zone; reminders are instants placed with zoneinfo across
DST changes; Windows zone names from Graph are read through a table. Delta queries give a client a sync token.
"""

from . import _delta, _items, _lists, _resources, _search, _tasks, _write  # noqa: F401  (each registers tools)
from ._module import MicrosoftTodoSettings, module

__all__ = ["MicrosoftTodoSettings", "module"]
