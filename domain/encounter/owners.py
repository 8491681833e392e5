"""Whose each die is: only the member a die is for, or the GM, enters its face (issue 33 §3).

A die is for the combatant its purpose names ("GD-INIT-1 ace", "GD-REACT-1 hit grunt"), else
for the command's own combatant; its controller enters it, and the GM may enter any. A face
is checked when the decision gives it to a die, so several faces sent at once may only be the
sender's own dice, whichever order the rules ask for them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.encounter.awaited import awaited_die
from domain.encounter.errors import NotPermitted
from domain.encounter.state import Encounter
from domain.rules.records import HandGate
from domain.rules.ruleset import Command, CommandContext


@dataclass(frozen=True)
class Entry:
    """Who entered the hand faces a command is decided with: each face's enterer, and the
    sender of this request, whose own faces (from `new_from` on) are checked."""

    by: tuple[str | None, ...]
    sender: CommandContext
    new_from: int = 0

    @staticmethod
    def sent(ctx: CommandContext, faces: Sequence[int] | None) -> Entry:
        """Faces that came with the command itself: all its sender's."""
        return Entry(by=(ctx.by,) * len(faces or ()), sender=ctx)


def die_for(state: Encounter, command: Command, purpose: str) -> tuple[str | None, str]:
    """The combatant a die is for (None: the table's), and who enters it: a member, or 'gm'."""
    ids = {c.combatant_id for c in state.combatants}
    named = next((word for word in purpose.split()[1:] if word in ids), None)
    combatant = named or command.combatant
    controller = state.controller_of(combatant) if combatant else None
    return combatant, controller or "gm"


def hand_gate(state: Encounter, command: Command, entry: Entry) -> HandGate:
    """Refuses a face the sender gives to a die that is not theirs (the GM's go anywhere)."""

    def check(index: int, sides: int, purpose: str) -> None:
        if index < entry.new_from or entry.sender.is_gm:
            return  # entered and checked before, or the GM's
        combatant, member = die_for(state, command, purpose)
        if member == entry.sender.by:
            return
        die = awaited_die(sides, purpose, combatant, member)
        who = "the GM" if member == "gm" else f"{member} (or the GM)"
        who_ja = "GM" if member == "gm" else f"{member}（またはGM）"
        raise NotPermitted(
            f"face {index - entry.new_from + 1} you entered would be the {die.text_en}, "
            f"which {who} enters: enter only your own dice (the encounter asks for each die "
            "in turn, and for whom it is)",
            ja=f"あなたが入力した {index - entry.new_from + 1} "
            f"個目の出目は{die.text_ja}にあたり、それを入力するのは{who_ja}です。"
            "自分のダイスだけを入力してください（戦闘はダイスを一つずつ、"
            "誰のものかを示して求めます）",
        )

    return check
