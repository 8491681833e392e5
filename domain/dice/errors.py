"""Errors a player or GM can cause by typing dice; each says what, where and what to write."""

from __future__ import annotations

_SHOWN_TEXT = 60  # keep messages short even for a long paste


class DiceSyntaxError(ValueError):
    """Dice notation that cannot be rolled; the message says what, where and what to write.

    `position` is a 0-based character index into `text`, the normalised notation (full-width
    characters already folded to ASCII), or None when the problem is the expression as a whole.
    """

    def __init__(
        self, text: str, problem: str, position: int | None = None, hint: str = ""
    ) -> None:
        self.text = text
        self.problem = problem
        self.position = position
        self.hint = hint
        super().__init__(self._message())

    def _message(self) -> str:
        shown = self.text if len(self.text) <= _SHOWN_TEXT else self.text[:_SHOWN_TEXT] + "…"
        message = f"{shown}: {self.problem}" if shown else self.problem
        if self.position is not None:
            message += f" at position {self.position}"
        return f"{message}; {self.hint}" if self.hint else message

    def __reduce__(self) -> tuple[type[DiceSyntaxError], tuple[str, str, int | None, str]]:
        # The default pickling calls cls(message), which our signature does not accept.
        return (type(self), (self.text, self.problem, self.position, self.hint))


class DiceEntryError(ValueError):
    """Physical dice typed in by the GM that do not fit the expression."""
