"""A cursor over lexer tokens with the few moves every BCDice parser here needs."""

from __future__ import annotations

from domain.dice.bcdice.lexer import Token


class NotThisCommand(Exception):
    """The text does not parse as this command; the next kind of command gets a look."""


_END = Token("$")


class Stream:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self, ahead: int = 0) -> Token:
        index = self.pos + ahead
        return self.tokens[index] if index < len(self.tokens) else _END

    def peek_kind(self, ahead: int = 0) -> str:
        return self.peek(ahead).kind

    def take(self) -> Token:
        token = self.peek()
        self.pos += 1
        return token

    def take_if(self, kind: str) -> bool:
        if self.peek_kind() != kind:
            return False
        self.pos += 1
        return True

    def expect(self, kind: str) -> Token:
        if self.peek_kind() != kind:
            raise self.error()
        return self.take()

    def at_end(self) -> bool:
        return self.pos >= len(self.tokens)

    def expect_end(self) -> None:
        if not self.at_end():
            raise self.error()

    def error(self) -> NotThisCommand:
        return NotThisCommand()
