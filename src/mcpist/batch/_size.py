"""Bounded measures of JSON values, safe on values that repeat themselves."""

from __future__ import annotations

from typing import Any

__all__ = ["Budget", "OverBudget", "json_floor"]


def json_floor(value: Any, limit: int) -> int:
    """A lower bound of the compact JSON size of `value` in bytes.

    Counting stops as soon as the bound passes `limit`, so the cost is at most
    about `limit` steps even when `value` holds the same object many times
    (JSON prints a shared object once per reference, and so does this count).
    """
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 1 + 2 * len(item)
            for key, child in item.items():
                total += len(key) + 2 if isinstance(key, str) else 1
                stack.append(child)
        elif isinstance(item, list | tuple):
            total += 1 + len(item)
            stack.extend(item)
        elif item is None or isinstance(item, bool):
            total += 4
        else:
            total += 1
        if total > limit:
            break
    return total


class OverBudget(Exception):
    """A `Budget` ran out."""


class Budget:
    """A countdown of work or bytes; `charge` raises `OverBudget` once it is spent."""

    def __init__(self, units: int) -> None:
        self.units = units
        self.left = units

    def charge(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            raise OverBudget

    def charge_value(self, value: Any) -> None:
        self.charge(json_floor(value, max(self.left, 0)))
