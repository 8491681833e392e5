"""A seeded generator of BCDice commands of every kind the base system has (differential tests)."""

from __future__ import annotations

import random

KINDS = (
    "add",
    "barabara",
    "reroll",
    "upper",
    "tally",
    "calc",
    "choice",
    "d66",
    "repeat",
    "not a command",
)
_CMP = (">=", ">", "<=", "<", "=", "<>", "==", "!=", "=>", "=<")
_ROUND = ("", "", "U", "R", "F", "C")


class CommandMaker:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def make(self, kind: str) -> str:
        made: str = getattr(self, "_" + kind.replace(" ", "_"))()
        if self.r.random() < 0.1:
            made = "S" + made if kind != "choice" else "s" + made
        if self.r.random() < 0.15:
            made += self.r.choice((" 攻撃", " comment", "　回避", " x"))
        return made

    def number(self, top: int = 12) -> str:
        return str(self.r.randint(0, top))

    def arith(self, depth: int = 0) -> str:
        pick = self.r.random()
        if depth > 2 or pick < 0.5:
            return self.r.choice(("", "", "-", "+")) + self.number()
        if pick < 0.65:
            return f"({self.arith(depth + 1)})"
        op = self.r.choice(("+", "-", "*", "/"))
        suffix = self.r.choice(_ROUND) if op == "/" else ""
        return f"{self.arith(depth + 1)}{op}{self.arith(depth + 1)}{suffix}"

    def count(self) -> str:
        return self.r.choice((self.number(5), f"({self.number(3)}+{self.number(2)})", "0"))

    def sides(self) -> str:
        return self.r.choice(("6", "6", "10", "4", "20", "100", "2", "66", "1", "(2*3)"))

    def dice(self) -> str:
        pick = self.r.random()
        if pick < 0.15:
            return "D" + self.r.choice(("6", "20", "100"))
        if pick < 0.25:
            return self.count() + "D"
        base = f"{self.count()}D{self.sides()}"
        if pick < 0.45:
            name = self.r.choice(("KH", "KL", "DH", "DL", "MAX", "MIN"))
            keep = "" if name in ("MAX", "MIN") or self.r.random() < 0.3 else self.number(4)
            return base + name + keep
        return base

    def add_side(self, depth: int = 0) -> str:
        pick = self.r.random()
        if depth > 2 or pick < 0.45:
            return self.dice()
        if pick < 0.55:
            return f"({self.add_side(depth + 1)})"
        if pick < 0.6:
            return "-" + self.add_side(depth + 1)
        op = self.r.choice(("+", "-", "*", "/", "+", "-"))
        suffix = self.r.choice(_ROUND) if op == "/" else ""
        other = self.add_side(depth + 1) if self.r.random() < 0.4 else self.arith(2)
        left, right = (self.add_side(depth + 1), other)
        if self.r.random() < 0.3:
            left, right = right, left
        return f"{left}{op}{right}{suffix}"

    def target(self) -> str:
        if self.r.random() < 0.5:
            return ""
        value = self.r.choice((self.number(15), self.arith(1), "?", "-" + self.number(5)))
        return self.r.choice(_CMP) + value

    def _add(self) -> str:
        return self.add_side() + self.target()

    def groups(self, letter: str) -> str:
        count = self.r.choice((1, 1, 2, 3))
        return "+".join(f"{self.count()}{letter}{self.sides()}" for _ in range(count))

    def _barabara(self) -> str:
        return self.groups("B") + self.target().replace("?", "3")

    def _reroll(self) -> str:
        body = self.groups("R").replace("R66", "R6").replace("R100", "R10").replace("R1", "R6")
        target = self.r.choice(_CMP[:6]) + self.number(8) if self.r.random() < 0.8 else ""
        threshold = self.r.choice(
            ("", "", self.number(7), self.r.choice(_CMP[:6]) + self.number(7))
        )
        if threshold and self.r.random() < 0.5:
            return f"{body}{target}@{threshold}"
        return f"{body}[{threshold}]{target}" if threshold else body + target

    def _upper(self) -> str:
        body = self.groups("U").replace("U66", "U6").replace("U100", "U10")
        threshold = self.r.choice(("", self.number(7), self.number(3)))
        modifier = self.r.choice(
            ("", "", f"+{self.number(5)}", f"-{self.number(3)}+{self.number(2)}")
        )
        target = self.r.choice(_CMP[:6]) + self.number(15) if self.r.random() < 0.5 else ""
        if threshold and self.r.random() < 0.5:
            return f"{body}{modifier}{target}@{threshold}"
        return f"{body}[{threshold}]{modifier}{target}" if threshold else body + modifier + target

    def _tally(self) -> str:
        zero = self.r.choice("YZyz")
        return f"{self.count()}T{zero}{self.r.choice(('6', '4', '20', '21', '(1+3)', '0'))}"

    def _calc(self) -> str:
        return self.r.choice(("C", "c")) + self.r.choice((f"({self.arith()})", self.arith()))

    def _choice(self) -> str:
        words = [
            self.r.choice(("a", "b", "ccc", "D", "E F", "1", " ", "A-C", "3-5"))
            for _ in range(self.r.randint(1, 4))
        ]
        takes = self.r.choice(("", "", "2", "0"))
        style = self.r.random()
        if style < 0.4:
            return f"choice{takes}[{','.join(words)}]"
        if style < 0.7:
            return f"Choice{takes}({','.join(words)})"
        return f"choice{takes} " + " ".join(w.replace(" ", "") or "z" for w in words)

    def _d66(self) -> str:
        return self.r.choice(("D66", "d66", "D66N", "D66A", "D66S", "d66d", "D66X", "1D66", "2D66"))

    def _repeat(self) -> str:
        keyword = self.r.choice(("x", "rep", "repeat", "X"))
        times = self.r.choice(("2", "3", "0", "101", "1"))
        inner = self.make(self.r.choice(("add", "barabara", "d66", "calc", "choice")))
        return f"{keyword}{times} {inner.strip()}"

    def _not_a_command(self) -> str:
        return self.r.choice(
            (
                "こんにちは",
                "2D6もけけ",
                "134",
                "1+2",
                "hello 2D6",
                "2R6",
                "D",
                "S",
                "(",
                "2D6>",
                "xyz",
                "4U6==21",
            )
        )
