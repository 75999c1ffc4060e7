"""A registry of named kinds, each with a sample of itself: how viz lists its pictures and widgets its widgets.

A kind is registered once, with a function that builds a small sample of it from a text; whoever needs every
kind (a gallery, the hostile-input tests, the browser test) reads the registry instead of a list kept by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Kind(Generic[T]):
    """One kind: its name, its sample, and the module that registered it (which a fresh process imports to find
    it)."""

    name: str
    sample: Callable[[str], T]
    module: str


class Kinds(Generic[T]):
    """The kinds of one family (``what``: "picture", "widget"), in the order they were registered."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._kinds: dict[str, Kind[T]] = {}

    def register(self, name: str) -> Callable[[Callable[[str], T]], Callable[[str], T]]:
        """Register the decorated sample as the kind ``name``; a name taken by another sample is ``ValueError``."""
        def register(sample: Callable[[str], T]) -> Callable[[str], T]:
            taken = self._kinds.get(name)
            if taken is not None and (taken.sample.__module__, taken.sample.__qualname__) != (
                    sample.__module__, sample.__qualname__):
                raise ValueError(f"a {self.what} kind `{name}` is registered already")
            self._kinds[name] = Kind(name, sample, sample.__module__)
            return sample

        return register

    def __iter__(self) -> Iterator[Kind[T]]:
        return iter(tuple(self._kinds.values()))

    def __len__(self) -> int:
        return len(self._kinds)
