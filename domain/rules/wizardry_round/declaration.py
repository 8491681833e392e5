"""WZ-5 declarations and WZ-6 formations."""

from __future__ import annotations

from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from domain.rules.wizardry_round.commands import DECLARED
from domain.rules.wizardry_round.rounds import close_declarations
from domain.rules.wizardry_round.run import Run
from domain.rules.wizardry_round.tp import enemy_tp


def check_form(command: cmd.Declare) -> None:
    """WZ-5: (a) sub + main + passive, (b) sub + main, (c) full; free actions with any.

    A passive left out of (a) is the usual one (the seed's example), so it may be omitted.
    """
    if command.form == "c":
        if command.full is None or any((command.sub, command.main, command.passive)):
            raise RuleViolation(
                "WZ-5",
                "(c) is a full action alone, without sub/main/passive",
                ja="（c）はフルアクションだけで、サブ・メイン・パッシブアクションは伴いません",
            )
        return
    if command.full is not None:
        raise RuleViolation(
            "WZ-5",
            f"({command.form}) has no full action; declare (c)",
            ja=f"（{command.form}）にはフルアクションはありません。（c）を宣言してください",
        )
    if command.form == "b" and command.passive is not None:
        raise RuleViolation(
            "WZ-5",
            "(b) has no passive action; declare (a)",
            ja="（b）にはパッシブアクションはありません。（a）を宣言してください",
        )
    if command.form == "a" and command.two_handed_attack:
        raise RuleViolation(
            "WZ-5",
            "an attack with a two-handed weapon forfeits the passive: (b)",
            ja="両手武器での攻撃はパッシブアクションを失います：（b）です",
        )


@DECLARED.command(cmd.Declare, legal="declaration", en="Declare", ja="行動宣言")
def declare(run: Run, command: cmd.Declare) -> None:
    """WZ-5: the declaration and its INI (at most the character's own)."""
    who = run.state.combatant(command.combatant_id, "WZ-5")
    check_form(command)
    if command.ini > who.sheet.ini:
        raise RuleViolation(
            "WZ-5",
            f"INI {command.ini} is above {who.id}'s INI {who.sheet.ini}",
            ja=f"INI {command.ini} は {who.id} のINI {who.sheet.ini} を超えています",
        )
    parts = [
        f"{label}:{value}"
        for label, value in (
            ("SA", command.sub),
            ("MA", command.main),
            ("PA", command.passive),
            ("FA", command.full),
        )
        if value is not None
    ] + [f"free:{f}" for f in command.free]
    listed = " + ".join(parts) or "—"
    run.emit(
        ev.ActionDeclared,
        **command.model_dump(exclude={"combatant_id"}),
        combatant=who.id,
        summary_en=f"{who.id} declares ({command.form}) at INI {command.ini}: {listed}",
        summary_ja=f"{who.id}の行動宣言（{command.form}）INI{command.ini}：{listed}",
    )
    close_declarations(run)


@DECLARED.command(cmd.DeclareFormation, legal="formation", en="Declare Formation", ja="陣形宣言")
def declare_formation(run: Run, command: cmd.DeclareFormation) -> None:
    """WZ-6: a Formation this character knows, paid from its pool; refused when short.

    An enemy pays from its side's pool, kept by the same rules (WZ-6a)."""
    who = run.state.combatant(command.combatant_id, "WZ-6")
    if command.formation not in who.sheet.formations:
        raise RuleViolation(
            "WZ-6",
            f"{who.id} has no Formation skill {command.formation!r}",
            ja=f"{who.id} に陣形スキル {command.formation!r} はありません",
        )
    pool = run.state.pool_of(who)
    tp = run.state.tp.get(pool, 0)
    if command.cost > tp:
        raise RuleViolation(
            "WZ-6",
            f"{command.formation} costs {command.cost} TP; {pool} has {tp}",
            ja=f"{command.formation} にはTPが {command.cost} 必要ですが、{pool} のTPは {tp} です",
        )
    summary_en = f"{who.id} declares {command.formation} for {command.cost} TP ({pool}: {tp})"
    summary_ja = f"{who.id}が陣形「{command.formation}」を宣言（TP{command.cost}消費）"
    run.rule(
        Decision(
            rule_ids=("WZ-6", "WZ-2a", *enemy_tp((who,))),
            inputs={"formation": command.formation, "cost": command.cost, "tp": tp, "pool": pool},
            outcome={"tp": tp - command.cost},
            options={"tp_pool": run.state.options.tp_pool},
            summary_en=summary_en,
            summary_ja=summary_ja,
        )
    )
    run.emit(
        ev.FormationDeclared,
        combatant=who.id,
        formation=command.formation,
        pool=pool,
        cost=command.cost,
        tp=tp - command.cost,
        summary_en=summary_en,
        summary_ja=summary_ja,
    )
