"""The loops layer's one exception: a stable ``code`` and, for bad documents, one issue per JSON path."""

from __future__ import annotations


class LoopContractError(Exception):
    """A loop contract (or a run of one) the loops layer refuses.

    ``issues`` holds ``<json path>: <problem>`` lines such as ``agents[0].role: Field required``;
    ``message`` is the headline followed by those lines, so one print shows everything.
    """

    def __init__(self, code: str, headline: str, issues: tuple[str, ...] = ()) -> None:
        self.code = code
        self.headline = headline
        self.issues = tuple(issues)
        self.message = "\n".join((headline, *(f"  {issue}" for issue in self.issues)))
        super().__init__(self.message)

    def __reduce__(self):
        return (type(self), (self.code, self.headline, self.issues))
