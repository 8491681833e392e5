"""Checks every command passes before its ruleset sees it: state, turn, issuer, dice."""

from __future__ import annotations

from typing import cast

from domain.encounter.commands import LABELS
from domain.encounter.errors import NotPermitted, WrongState
from domain.encounter.state import Encounter, record_kind
from domain.events import DomainEvent
from domain.rules.errors import RuleViolation
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from domain.rules.ruleset import Command, CommandContext


def require_open(state: Encounter) -> None:
    if not state.opened:
        raise WrongState(
            "the encounter is not open: open it first",
            ja="戦闘が開かれていません。先に開いてください",
        )


def require_running(state: Encounter, command: Command | None = None) -> None:
    require_open(state)
    if state.ended:
        # The rule that took the combatant out says more than "ended" (AK-ARM-2 shot down).
        reason = state.ruleset.refusal(state.rules, command) if command is not None else None
        if reason is not None:
            raise RuleViolation(
                reason.rule_id,
                f"{reason.detail}; the encounter has ended",
                ja=f"{reason.ja or reason.detail}。戦闘は終了しています",
            )
        raise WrongState(
            "the encounter has ended; no more commands",
            ja="戦闘は終了しています。これ以上コマンドは出せません",
        )


def require_gm(ctx: CommandContext, doing: str, doing_ja: str) -> None:
    if not ctx.is_gm:
        raise NotPermitted(f"only the GM may {doing}", ja=f"{doing_ja}ことができるのはGMだけです")


def require_legal(state: Encounter, command: Command, ctx: CommandContext) -> None:
    legal = [
        entry
        for entry in state.ruleset.legal_commands(state.rules)
        if entry.command == command.command_type and entry.combatant == command.combatant
    ]
    if not legal:
        reason = state.ruleset.refusal(state.rules, command)
        if reason is not None:  # the rule that refuses, not the turn procedure (issue 19)
            raise reason
        point = state.ruleset.procedure(state.rules)
        awaited = ", ".join(
            f"{a.command}({a.combatant})" if a.combatant else a.command for a in point.awaiting
        )
        who = f" for {command.combatant}" if command.combatant else ""
        who_ja = f"（{command.combatant}）" if command.combatant else ""
        # A Japanese table reads the commands by their Japanese names (the declarations').
        labels = {**LABELS, **state.ruleset.labels}

        def ja(name: str) -> str:
            return labels[name].ja if name in labels else name

        # …and the point of the procedure by its phase's and step's Japanese names.
        phases = state.ruleset.phase_labels
        at_ja = "、".join(
            phases[word].ja if word in phases else word
            for word in (point.phase, point.step)
            if word
        )
        awaited_ja = "、".join(
            f"{ja(a.command)}（{a.combatant}）" if a.combatant else ja(a.command)
            for a in point.awaiting
        )
        raise RuleViolation(
            state.ruleset.procedure_rule,
            f"{command.command_type}{who} is not legal now (turn {point.turn}, {point.phase}"
            f"{', ' + point.step if point.step else ''}); awaiting: {awaited or 'nothing'}",
            ja=f"{ja(command.command_type)}{who_ja}は今は行えません（ターン {point.turn}、"
            f"{at_ja}）。待っているもの："
            f"{awaited_ja or 'なし'}",
        )
    if ctx.is_gm:
        return  # the GM may act for any combatant (enemies, absent players)
    if not any(
        e.issuer == "controller" and state.controller_of(e.combatant or "") == ctx.by for e in legal
    ):
        raise NotPermitted(
            f"{ctx.by} may not issue {command.command_type}"
            + (f" for {command.combatant}" if command.combatant else "; only the GM may"),
            ja=f"{ctx.by} は "
            + (
                f"{command.combatant} の{command.command_type}を出せません"
                if command.combatant
                else f"{command.command_type}を出せません。出せるのはGMだけです"
            ),
        )


def check_dice_before_rulings(state: Encounter, events: list[DomainEvent]) -> None:
    """No outcome from an unrecorded die: every die a ruling cites was recorded before it.

    The encounter's earlier dice are 0..roll_count-1 (a range test, not a set of every roll
    of the fight so far: that grew with each command); this command's own dice are few."""
    earlier = state.roll_count
    drawn: set[int] = set()
    for event in events:
        kind = record_kind(type(event))
        if kind == "roll":
            drawn.add(cast(EncounterDiceRolled, event).result.roll_seq)
        elif kind == "ruling":
            ruling = cast(RulingRecorded, event)
            if not all(0 <= seq < earlier or seq in drawn for seq in ruling.roll_seqs):
                raise RuntimeError(f"ruling {ruling.rule_ids} cites dice not recorded before it")
