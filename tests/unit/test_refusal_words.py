"""Every refusal speaks both languages: each raise site in domain/ gives its Japanese words.

A refusal (`RuleViolation`, or a `CommandRefused` kind: NotPermitted, WrongState, …) is
declared once, where it is raised, with its English `detail` and its Japanese `ja=`. The
Japanese table page shows `ja`; a site without it would show English on a Japanese page, so
this walk over domain/'s source fails on any construction that leaves `ja` out.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import domain
from domain.errors import CommandRefused
from domain.rules.errors import RuleViolation

DOMAIN = Path(domain.__file__).parent
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _refusal_kinds() -> set[str]:
    """The names of every refusal class domain/ defines: the two roots and, found by their
    bases until nothing new turns up, every subclass (a new kind is checked with no edit here)."""
    kinds = {RuleViolation.__name__, CommandRefused.__name__}
    classes = [
        (node.name, {b.id for b in node.bases if isinstance(b, ast.Name)})
        for path in DOMAIN.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
    ]
    while True:
        more = {name for name, bases in classes if bases & kinds} - kinds
        if not more:
            return kinds
        kinds |= more


def _constructions() -> list[tuple[str, ast.Call]]:
    kinds = _refusal_kinds()
    found = []
    for path in sorted(DOMAIN.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id in kinds:
                where = f"{path.relative_to(DOMAIN.parent)}:{node.lineno} {node.func.id}"
                found.append((where, node))
    return found


def _japanese_in(node: ast.expr) -> bool:
    """The `ja=` value holds Japanese words (a literal, an f-string, or a named constant)."""
    if isinstance(node, ast.Name):
        return True  # a module constant (REFUSAL_JA): checked by its own test below
    texts = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]
    return any(isinstance(t, str) and JAPANESE.search(t) for t in texts) or any(
        isinstance(n, ast.FormattedValue) for n in ast.walk(node)
    )


def test_every_refusal_raised_in_domain_gives_japanese_words() -> None:
    constructions = _constructions()
    assert len(constructions) > 200  # the walk finds the raise sites (about 220 today)
    lacking = [
        where
        for where, call in constructions
        if not any(k.arg == "ja" and _japanese_in(k.value) for k in call.keywords)
    ]
    assert lacking == [], "give these refusals their Japanese words (ja=…):\n" + "\n".join(lacking)


def test_the_walk_knows_every_refusal_class() -> None:
    # A new refusal class is found by its base, so its raise sites are checked too.
    kinds = _refusal_kinds()
    assert {"RuleViolation", "WrongState", "NotPermitted", "UnknownMember", "TextTooLong"} <= (
        kinds
    )


def test_a_refusal_keeps_english_and_carries_japanese() -> None:
    refused = RuleViolation("GD-END-3", "every side still has someone able to fight", ja="…")
    assert str(refused) == "GD-END-3: every side still has someone able to fight"
    assert refused.message_ja == "GD-END-3: …"
    assert RuleViolation("GD-END-3", "x").message_ja is None
    assert CommandRefused("not now", ja="今はできません").ja == "今はできません"


def test_the_replay_refusal_constant_is_japanese() -> None:
    from domain.visibility import replay

    assert JAPANESE.search(replay.REFUSAL_JA)
    assert "ja" in inspect.signature(CommandRefused.__init__).parameters
