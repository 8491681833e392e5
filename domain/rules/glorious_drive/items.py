"""Items and other actions in the action step: GD-MAIN-5 C (lend, swap), D (use), F, GD-MAIN-8.

Lending needs both characters' consent and spends both their action steps: the lender's
command offers the item, and the borrower's controller (or the GM, recording the borrower's
consent) accepts or declines it. The borrower spends the action step of this same turn, so it
must still have one to spend (not yet acted, not waiting, able to act). An item's effect, like
a skill's, is the GM's to apply from the item's rules text; the engine enforces who may use
which item when.
"""

from __future__ import annotations

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.checks import general_check
from domain.rules.glorious_drive.commands import DECLARED
from domain.rules.glorious_drive.phases import PHASE_LABELS
from domain.rules.glorious_drive.position import distance
from domain.rules.glorious_drive.reaction import finish_if_settled, hit_after_reaction
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.sheet import Item
from domain.rules.glorious_drive.state import GdCombatant, GdState, PendingLoan
from domain.rules.outcome import Decision

ADJACENT = 1  # GD-MAIN-5 C 隣接スクエア: orthogonally next to, or the same square (GD-SQ-1)


@DECLARED.command(cmd.LendItem, legal="action", en="Lend Item", ja="アイテムを貸す")
def lend_item(run: Run, command: cmd.LendItem) -> None:
    """GD-MAIN-5 C: offer a general item to an adjacent ally who can still spend its step."""
    state = run.state
    lender = state.combatant(command.combatant_id)
    name = cmd.named(command.item, "GD-MAIN-5", "item to lend")
    item = lender.item(name)
    if item is None:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{lender.id} holds no item {name!r}",
            ja=f"{lender.id} はアイテム {name!r} を所持していません",
        )
    if item.kind != "general":
        raise RuleViolation(
            "GD-MAIN-5",
            f"{item.name} is of kind {item.kind!r}: only general items (一般アイテム) may be lent",
            ja=f"{item.name} の種別は {item.kind!r} です。貸与できるのは「種別："
            "一般アイテム」だけです",
        )
    borrower = state.combatant(cmd.named(command.borrower, "GD-MAIN-5", "borrower"), "GD-MAIN-5")
    _check_borrower(state, lender, borrower, item)
    run.emit(ev.LoanOffered, lender=lender.id, borrower=borrower.id, item=item.name)


def _check_borrower(state: GdState, lender: GdCombatant, borrower: GdCombatant, item: Item) -> None:
    if borrower.id == lender.id or borrower.side != lender.side:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{borrower.id} is not an ally of {lender.id}",
            ja=f"{borrower.id} は {lender.id} の味方ではありません",
        )
    d = distance(lender.position, borrower.position)
    if d > ADJACENT:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{borrower.id} is {d} squares away; a loan needs an adjacent square",
            ja=f"{borrower.id} は {d} スクエア先です。貸与は隣接スクエアに限ります",
        )
    if not _has_action_step_left(state, borrower.id):
        raise RuleViolation(
            "GD-MAIN-5",
            f"{borrower.id} has no action step left this turn to spend on the loan "
            "(both lender and borrower spend theirs)",
            ja=f"{borrower.id} にはこのターン、"
            "貸与に使う行動ステップが残っていません（貸す側も借りる側も使います）",
        )
    if borrower.item(item.name) is not None:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{borrower.id} already holds an item {item.name!r}",
            ja=f"{borrower.id} はすでにアイテム {item.name!r} を所持しています",
        )


def _has_action_step_left(state: GdState, cid: str) -> bool:
    """Whether `cid` still takes an action step this turn: its phase is still to come."""
    later = state.order[state.acting_index + 1 :]
    combatant = state.combatants[cid]
    return cid in later and combatant.can_react and cid not in state.actions_spent


@DECLARED.command(cmd.AcceptLoan, legal="loan", en="Accept Loan", ja="貸与を受ける")
def accept_loan(run: Run, command: cmd.AcceptLoan) -> None:
    """GD-MAIN-5 C: consent given; the item changes hands and both action steps are spent."""
    loan = _loan(run, command.combatant_id)
    consent = "the GM records the borrower's consent" if run.ctx.is_gm else "the borrower agrees"
    run.rule(
        Decision(
            rule_ids=("GD-MAIN-5",),
            inputs={"lender": loan.lender, "borrower": loan.borrower, "item": loan.item},
            outcome={"lent": True, "consent": consent, "action_steps_spent": 2},
            summary_en=f"{loan.lender} lends {loan.item} to {loan.borrower} ({consent}); "
            "both spend their action step",
            summary_ja=f"{loan.lender}が{loan.borrower}に{loan.item}を貸与（双方同意）："
            "双方のメイン行動ステップを消費",
        )
    )
    run.emit(ev.ItemLent, lender=loan.lender, borrower=loan.borrower, item=loan.item)
    run.end_main_action(loan.lender)


@DECLARED.command(cmd.DeclineLoan, legal="loan", en="Decline Loan", ja="貸与を断る")
def decline_loan(run: Run, command: cmd.DeclineLoan) -> None:
    """GD-MAIN-5 C: no consent, no loan; the lender's action step is still open."""
    loan = _loan(run, command.combatant_id)
    run.emit(ev.LoanDeclined, lender=loan.lender, borrower=loan.borrower, item=loan.item)


def _loan(run: Run, borrower: str) -> PendingLoan:
    loan = run.state.pending_loan
    if loan is None or loan.borrower != borrower:
        raise RuleViolation(
            "GD-MAIN-5",
            f"no item is offered to {borrower!r}",
            ja=f"{borrower!r} に貸与されようとしているアイテムはありません",
        )
    return loan


@DECLARED.command(cmd.SwapEquipment, legal="action", en="Swap Equipment", ja="装備変更")
def swap_equipment(run: Run, command: cmd.SwapEquipment) -> None:
    """GD-MAIN-5 C: carried ↔ equipped, items and the sub weapon, never the main weapon."""
    who = run.state.combatant(command.combatant_id)
    names = (*command.equip, *command.unequip)
    if not names or len(set(names)) != len(names):
        raise RuleViolation(
            "GD-MAIN-5",
            "name each item to equip or unequip once",
            ja="装備する・外すアイテムはそれぞれ一度だけ指定してください",
        )
    if who.main_weapon is not None and who.main_weapon in names:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{who.main_weapon} is the main weapon: it stays",
            ja=f"{who.main_weapon} はメイン武器です。入れ替えられません",
        )
    sub = who.sub_weapon
    equipped = list(who.equipped_items)
    for name in command.unequip:
        if name == sub:
            sub = None
        elif name in equipped:
            equipped.remove(name)
        else:
            raise RuleViolation(
                "GD-MAIN-5",
                f"{who.id} has no {name!r} equipped",
                ja=f"{who.id} は {name!r} を装備していません",
            )
    for name in command.equip:
        if name in who.carried_weapons():
            if sub is not None:
                raise RuleViolation(
                    "GD-MAIN-5",
                    f"the sub weapon slot holds {sub}: unequip it",
                    ja=f"サブ武器の枠には {sub} があります。先に外してください",
                )
            sub = name
        elif who.item(name) is not None and name not in equipped and name not in who.equipped_items:
            equipped.append(name)
        else:
            raise RuleViolation(
                "GD-MAIN-5",
                f"{who.id} carries no {name!r} to equip",
                ja=f"{who.id} は装備する {name!r} を携帯していません",
            )
    slots = who.sheet.item_slots
    if slots is not None and len(equipped) > slots:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{len(equipped)} items for {slots} equipment slots",
            ja=f"装備枠 {slots} に対してアイテムが {len(equipped)} 個です",
        )
    run.rule(
        Decision(
            rule_ids=("GD-MAIN-5",),
            inputs={"equip": command.equip, "unequip": command.unequip},
            outcome={"sub_weapon": sub, "equipped_items": tuple(equipped)},
            summary_en=f"{who.id} swaps carried items and equipment: now "
            + (", ".join((*([sub] if sub else []), *equipped)) or "nothing equipped"),
            summary_ja=f"{who.id}が携帯品と装備を入れ替え",
        )
    )
    run.emit(ev.EquipmentSwapped, combatant=who.id, sub_weapon=sub, equipped_items=tuple(equipped))
    run.end_main_action(who.id)


@DECLARED.command(cmd.UseItem, legal=("action", "reaction_item"), en="Use Item", ja="アイテム使用")
def use_item(run: Run, command: cmd.UseItem) -> None:
    """GD-MAIN-5 D / GD-MAIN-8: an item at its own timing; the GM applies its rules text."""
    user = run.state.combatant(command.combatant_id)
    name = cmd.named(command.item, "GD-MAIN-5", "item to use")
    item = user.item(name)
    if item is None:
        raise RuleViolation(
            "GD-MAIN-5",
            f"{user.id} holds no item {name!r}",
            ja=f"{user.id} はアイテム {name!r} を所持していません",
        )
    if item.name not in user.equipped_items and item.kind != "flavour":
        raise RuleViolation(
            "GD-MAIN-5",
            f"{item.name} is carried, not equipped: only flavour items work from the carried items",
            ja=f"{item.name} は携帯品で、装備されていません。"
            "携帯品のまま使えるのはフレーバーアイテムだけです",
        )
    reacting = run.state.step == "reaction"
    if item.timing != ("reaction" if reacting else "action"):
        step = "reaction step" if reacting else "action step"
        raise RuleViolation(
            "GD-MAIN-8",
            f"{item.name} is used in the {item.timing} step, not the {step}",
            # The steps an item's timing names, as the seed calls them (2-4 and 2-5).
            ja=f"{item.name} を使うのは{PHASE_LABELS[item.timing].ja}で、"
            f"{PHASE_LABELS['reaction' if reacting else 'action'].ja}ではありません",
        )
    if command.negates_hit and not (reacting and run.ctx.is_gm):
        raise RuleViolation(
            "GD-MAIN-8",
            "only the GM, in the reaction step, may rule that an item stops the hit",
            ja="アイテムで攻撃を止められるかを裁定できるのは、対抗判定ステップのGMだけです",
        )
    if reacting:
        _use_in_reaction(run, user, item, command)
        return
    run.rule(_item_effect(user, item, command.note, ("GD-MAIN-5",), {}))
    run.end_main_action(user.id)


def _use_in_reaction(run: Run, user: GdCombatant, item: Item, command: cmd.UseItem) -> None:
    attack = run.state.pending
    if attack is None or user.id not in attack.defenders:
        raise RuleViolation(
            "GD-MAIN-8",
            f"{user.id} is not a defender awaiting a reaction",
            ja=f"{user.id} は対抗判定を待つ防御側ではありません",
        )
    run.emit(ev.ReactionDeclared, combatant=user.id, reaction="item")
    rules = ("GD-MAIN-8", "GD-MAIN-5")
    run.rule(_item_effect(user, item, command.note, rules, {"negates_hit": command.negates_hit}))
    if command.negates_hit:
        run.emit(ev.DefenceResolved, combatant=user.id, hit=False)
        finish_if_settled(run)
    else:
        hit_after_reaction(run, user.id)


def _item_effect(
    user: GdCombatant, item: Item, note: str, rules: tuple[str, ...], extra: dict[str, bool]
) -> Decision:
    effect = note or item.rules or "as the item's rules say"
    effect_ja = note or item.rules or "アイテムのルールどおり"
    return Decision(
        rule_ids=rules,
        inputs={"item": item.name, "kind": item.kind, "timing": item.timing, **extra},
        outcome={"effect": effect},
        summary_en=f"{user.id} uses {item.name}: {effect}",
        summary_ja=f"{user.id}が{item.name}を使用：{effect_ja}",
    )


@DECLARED.command(
    cmd.TakeOtherAction, legal="other_action", en="Take Other Action", ja="その他の行動"
)
def take_other_action(run: Run, command: cmd.TakeOtherAction) -> None:
    """GD-MAIN-5 F / GD-CHK-1: the GM judges it doable in 10 s and may call for a check."""
    who = run.state.combatant(command.combatant_id)
    if not run.ctx.is_gm:
        raise RuleViolation(
            "GD-MAIN-5",
            "the GM judges whether an action is doable in 10 s",
            ja="10秒で行える行動かどうかはGMが判断します",
        )
    action = cmd.named(command.action, "GD-MAIN-5", "action the GM judges doable in 10 s")
    if (command.check_stat is None) != (command.difficulty is None):
        raise RuleViolation(
            "GD-CHK-1",
            "a check needs both the stat and the difficulty",
            ja="判定には能力値と難易度の両方が必要です",
        )
    success: bool | None = None
    if command.check_stat is not None and command.difficulty is not None:
        stat = getattr(who.sheet.stats, command.check_stat)
        die = run.draw(100, f"GD-CHK-1 {command.check_stat}")
        check = general_check(stat, die, command.difficulty, ("GD-MAIN-5", "GD-CHK-1"))
        run.rule(check.decision())
        success = check.success
    verdict = {None: "no check", True: "check passed", False: "check failed"}[success]
    run.rule(
        Decision(
            rule_ids=("GD-MAIN-5",),
            inputs={"action": action, "check_stat": command.check_stat},
            outcome={"doable_in_10s": True, "check_success": success},
            summary_en=f"GM: {who.id} — {action} ({verdict})",
            summary_ja=f"GM裁定：{who.id}の行動「{action}」"
            + {None: "", True: "（判定成功）", False: "（判定失敗）"}[success],
        )
    )
    run.end_main_action(who.id)
