"""Glorious Drive lines for the encounter log: one renderer per `gd.` fact (the ruleset's
`log_line`; projections/encounter_log.py asks for them).

The facts carry results only (HP after, the new order); the ruling recorded just before each
one has the formula and the rule IDs, so these lines say who, to whom and what it left. The
Japanese terms are the seed's (クリーンナップ, メイン行動, 命中, 回避, 生命, 負傷状態…).
A field may be None (an event built by hand or by an old upcaster): it reads as "?".
"""

from __future__ import annotations

from typing import Any

from domain.events import DomainEvent
from domain.rules.log import LogLines, field
from domain.rules.ruleset import LogLine as Line

LOG = LogLines("gd.")
renders = LOG.renders

_UNKNOWN = "?"

_REACH = {"melee": ("melee", "白兵"), "ranged": ("ranged", "射撃")}
_ATTACK = {"physical": ("physical", "物理"), "perceptive": ("perceptive", "知覚")}
_GRADE = {
    "small": ("small", "小"),
    "medium": ("medium", "中"),
    "large": ("large", "大"),
    "small_to_large": ("small to large", "小～大"),
}
_INJURY = {
    "none": ("no injury", "負傷なし"),
    "faint": ("a faint", "気絶"),
    "shutdown": ("a shutdown", "機能停止"),
    "critical": ("a critical injury", "重体"),
    "incapacitated": ("incapacitation", "再起不能"),
    "dead": ("death", "死亡"),
}
_REACTION = {
    "dodge": ("dodges", "回避を宣言"),
    "guard": ("guards", "防御を宣言"),
    "wait": ("waits: the attack hits", "待機：攻撃は自動的に命中"),
    "counter_skill": ("uses a counter skill", "対抗スキルを使用"),
    "item": ("reacts with an item", "アイテムを使用して対抗"),
    "none_possible": ("cannot react: the attack hits", "対抗できず：攻撃は命中"),
}


def _text(value: Any) -> str:
    return _UNKNOWN if value is None or value == "" else str(value)


def _label(labels: dict[str, tuple[str, str]], value: Any) -> tuple[str, str]:
    """The (English, Japanese) label of a literal; an unknown one shows as itself."""
    if not isinstance(value, str):
        return _UNKNOWN, _UNKNOWN
    return labels.get(value, (value, value))


def _names(value: Any, sep: str, empty: str) -> str:
    if isinstance(value, list | tuple):
        return sep.join(str(v) for v in value) if value else empty
    return _UNKNOWN if value is None else str(value)


def _count(number: Any, noun: str) -> str:
    """`1 square`, `2 squares`, `? squares`."""
    text = _text(number)
    return f"{text} {noun}" if text == "1" else f"{text} {noun}s"


def _square(value: Any) -> str:
    """A square as `(x,y,z)`, as the movement ruling writes it; a plain dict reads the same."""
    if isinstance(value, dict):
        return f"({value.get('x', _UNKNOWN)},{value.get('y', _UNKNOWN)},{value.get('z', 0)})"
    return _text(value)


@renders("gd.InitiativeOrdered")
def _initiative(event: DomainEvent) -> Line:
    turn, order = _text(field(event, "turn")), field(event, "order")
    return (
        f"Turn {turn} initiative order: {_names(order, ' → ', 'nobody')}",
        f"第{turn}ターンの行動順：{_names(order, '→', 'なし')}",
    )


@renders("gd.ActionDelayed")
def _delayed(event: DomainEvent) -> Line:
    who, after = _text(field(event, "combatant")), _text(field(event, "after"))
    order = field(event, "order")
    return (
        f"{who} delays to act after {after}: {_names(order, ' → ', 'nobody')}",
        f"{who}が行動の遅延を宣言、{after}の後に行動：{_names(order, '→', 'なし')}",
    )


@renders("gd.CombatantWaited")
def _waited(event: DomainEvent) -> Line:
    who = _text(field(event, "combatant"))
    return f"{who} waits: no step this turn", f"{who}が待機：このターンは一切の行動を行わない"


@renders("gd.CleanupCompleted")
def _cleanup(event: DomainEvent) -> Line:
    who = _text(field(event, "combatant"))
    return f"{who}'s cleanup step is done", f"{who}のクリーンナップステップ終了"


@renders("gd.WeaponsSwapped")
def _weapons_swapped(event: DomainEvent) -> Line:
    who = _text(field(event, "combatant"))
    main, sub = field(event, "main_weapon"), field(event, "sub_weapon")
    return (
        f"{who} swapped weapons: main {main or 'none'}, sub {sub or 'none'}",
        f"{who}が武器持ち替え：メイン武器{main or 'なし'}、サブ武器{sub or 'なし'}",
    )


@renders("gd.CombatantMoved")
def _moved(event: DomainEvent) -> Line:
    who, cost = _text(field(event, "combatant")), _text(field(event, "cost"))
    path = field(event, "path")
    steps = len(path) if isinstance(path, list | tuple) else _UNKNOWN
    end = _square(path[-1]) if isinstance(path, list | tuple) and path else _UNKNOWN
    return (
        f"{who} moved {_count(steps, 'square')} to {end}, paying {cost} move",
        f"{who}が{end}へ移動（{steps}スクエア、移動力{cost}消費）",
    )


def _means(event: DomainEvent) -> tuple[str, str]:
    """GD-MAIN-5 A / 6 / 7: how the attack is made (`weapon` names what is bashed or thrown)."""
    weapon, means = _text(field(event, "weapon")), field(event, "means")
    if means == "unarmed":
        return "unarmed", "素手で"
    if means == "bash":
        return f"bashing with {weapon}", f"{weapon}の殴打で"
    if means == "thrown":
        return f"throwing {weapon}", f"{weapon}の投擲で"
    return f"with {weapon}", f"{weapon}で"


def _aim(event: DomainEvent) -> tuple[str, str, str]:
    """Whom the attack is aimed at: its defenders, or the area around its point and who is
    in it (English: the aim, then who it catches; Japanese: both as the object)."""
    defenders, area = field(event, "defenders"), field(event, "area")
    en_names, ja_names = _names(defenders, ", ", "nobody"), _names(defenders, "、", "なし")
    if not area:
        return en_names, "", f"{ja_names}を"
    point = _square(field(event, "point"))
    return (
        f"area {area} around {point}",
        f", catching {en_names}",
        f"{point}の範囲{area}（対象{ja_names}）を",
    )


@renders("gd.AttackDeclared")
def _attacked(event: DomainEvent) -> Line:
    who = _text(field(event, "attacker"))
    reach_en, reach_ja = _label(_REACH, field(event, "reach"))
    kind_en, kind_ja = _label(_ATTACK, field(event, "attack_type"))
    hit, attack = _text(field(event, "hit")), _text(field(event, "attack"))
    (means_en, means_ja), (aim_en, caught_en, aim_ja) = _means(event), _aim(event)
    return (
        f"{who} attacked {aim_en} {means_en}{caught_en} "
        f"({reach_en} hit {hit}, {kind_en} attack {attack})",
        f"{who}が{means_ja}{aim_ja}攻撃（{reach_ja}命中{hit}、{kind_ja}攻撃{attack}）",
    )


@renders("gd.SituationModifierGranted")
def _situation(event: DomainEvent) -> Line:
    defender, percent = _text(field(event, "defender")), _text(field(event, "percent"))
    grade, reason = field(event, "grade"), field(event, "reason")
    grade_en, grade_ja = _label(_GRADE, grade) if grade is not None else ("", "")
    about_en, about_ja = (f" ({grade_en})", f"（{grade_ja}）") if grade_en else ("", "")
    why_en, why_ja = (f": {reason}", f"：{reason}") if reason else ("", "")
    return (
        f"{event.by} granted a situation modifier against {defender}: "
        f"+{percent}% damage{about_en}{why_en}",
        f"{event.by}が{defender}への状況修正を付与：ダメージ+{percent}%{about_ja}{why_ja}",
    )


@renders("gd.ReactionDeclared")
def _reacted(event: DomainEvent) -> Line:
    who, reaction = _text(field(event, "combatant")), field(event, "reaction")
    guard_en, guard_ja = (", guarding", "（防御）") if field(event, "guard") else ("", "")
    if reaction == "intercept":
        target = _text(field(event, "instead_of"))
        return (
            f"{who} intercepts the attack on {target}{guard_en}",
            f"{who}が射線の妨害：{target}への攻撃を代わりに受ける{guard_ja}",
        )
    if reaction in _REACTION:
        en, ja = _REACTION[reaction]
        return f"{who} {en}", f"{who}が{ja}"
    return f"{who} reacts: {_text(reaction)}", f"{who}の対抗：{_text(reaction)}"


@renders("gd.HitRolled")
def _hit_rolled(event: DomainEvent) -> Line:
    who, die = _text(field(event, "attacker")), _text(field(event, "die"))
    seq = _text(field(event, "roll_seq"))
    return (
        f"{who}'s hit roll: 1D100 = {die} (roll #{seq})",
        f"{who}の命中判定：1D100＝{die}（ロール#{seq}）",
    )


@renders("gd.GuardCostPaid")
def _guard_paid(event: DomainEvent) -> Line:
    who, cost, hp = (_text(field(event, n)) for n in ("combatant", "cost", "hp"))
    return (
        f"{who} paid {cost} HP to guard; HP now {hp}",
        f"{who}が防御のため生命{cost}を消費（生命{hp}）",
    )


@renders("gd.DamageApplied")
def _damaged(event: DomainEvent) -> Line:
    who, damage, hp = (_text(field(event, n)) for n in ("combatant", "damage", "hp"))
    return (
        f"{who} took {damage} damage; HP now {hp}",
        f"{who}が{damage}ダメージを受けた（生命{hp}）",
    )


@renders("gd.InjurySuffered")
def _injured(event: DomainEvent) -> Line:
    who = _text(field(event, "combatant"))
    en, ja = _label(_INJURY, field(event, "injury"))
    return f"{who} suffered {en}", f"{who}の負傷状態：{ja}"


@renders("gd.DefenceResolved")
def _defence(event: DomainEvent) -> Line:
    who, hit = _text(field(event, "combatant")), field(event, "hit")
    en, ja = {True: ("hit", "命中"), False: ("not hit", "命中せず")}.get(hit, ("?", "?"))
    return f"{who}'s defence is settled: {en}", f"{who}の対抗判定が決着：{ja}"


@renders("gd.WeaponReloaded")
def _reloaded(event: DomainEvent) -> Line:
    who, weapon = _text(field(event, "combatant")), _text(field(event, "weapon"))
    shots, done = _text(field(event, "shots_left")), field(event, "reloads_done")
    if isinstance(done, int) and done > 0:
        # GD-RLD-3: a reload of several actions locks the weapon until the last one.
        return (
            f"{who} reloaded {weapon}: reload action {done} done, locked until the reload "
            f"completes ({_count(shots, 'shot')} left)",
            f"{who}が{weapon}をリロード：リロード{done}回目、完了まで使用不可（残弾{shots}）",
        )
    return (
        f"{who} reloaded {weapon}: reload complete, {_count(shots, 'shot')} left",
        f"{who}が{weapon}をリロード：リロード完了（残弾{shots}）",
    )


def _loan(event: DomainEvent) -> tuple[str, str, str]:
    lender, borrower = _text(field(event, "lender")), _text(field(event, "borrower"))
    return lender, borrower, _text(field(event, "item"))


@renders("gd.LoanOffered")
def _loan_offered(event: DomainEvent) -> Line:
    lender, borrower, item = _loan(event)
    return (
        f"{lender} offered to lend {item} to {borrower}, awaiting consent",
        f"{lender}が{borrower}に{item}の貸与を申し出（同意待ち）",
    )


@renders("gd.LoanDeclined")
def _loan_declined(event: DomainEvent) -> Line:
    lender, borrower, item = _loan(event)
    return (
        f"{borrower} declined the loan of {item} from {lender}",
        f"{borrower}が{lender}からの{item}の貸与に同意せず",
    )


@renders("gd.ItemLent")
def _lent(event: DomainEvent) -> Line:
    lender, borrower, item = _loan(event)
    return (
        f"{lender} lent {item} to {borrower}; both spent their action step",
        f"{lender}が{borrower}に{item}を貸与（双方がメイン行動ステップを消費）",
    )


@renders("gd.EquipmentSwapped")
def _equipment_swapped(event: DomainEvent) -> Line:
    who, sub = _text(field(event, "combatant")), field(event, "sub_weapon")
    items = field(event, "equipped_items")
    return (
        f"{who} swapped carried items and equipment: sub weapon {sub or 'none'}, "
        f"equipped {_names(items, ', ', 'nothing')}",
        f"{who}が携帯品と装備を入れ替え：サブ武器{sub or 'なし'}、"
        f"装備{_names(items, '、', 'なし')}",
    )


@renders("gd.MainActionEnded")
def _main_ended(event: DomainEvent) -> Line:
    who = _text(field(event, "combatant"))
    return f"{who}'s main action phase ends", f"{who}のメイン行動フェーズ終了"


@renders("gd.TurnEnded")
def _turn_ended(event: DomainEvent) -> Line:
    turn = _text(field(event, "turn"))
    return f"Turn {turn} ends", f"第{turn}ターン終了"


@renders("gd.StatusInflicted")
def _status_inflicted(event: DomainEvent) -> Line:
    who, status = _text(field(event, "combatant")), _text(field(event, "status"))
    value = _text(field(event, "effect_value"))
    return (
        f"{who} suffers the status {status} (effect value {value})",
        f"{who}に変調「{status}」（効果値{value}）",
    )


@renders("gd.StatusExpired")
def _status_expired(event: DomainEvent) -> Line:
    who, status = _text(field(event, "combatant")), _text(field(event, "status"))
    if field(event, "reason") == "recovered":
        return (
            f"{who} recovered from {status} on a recovery check",
            f"{who}が回復判定に成功し、変調「{status}」から回復",
        )
    return (
        f"{who}'s {status} ended: its duration ran out",
        f"{who}の変調「{status}」の効果時間が終了し回復",
    )


@renders("gd.StatusDurationElapsed")
def _status_elapsed(event: DomainEvent) -> Line:
    who, status = _text(field(event, "combatant")), _text(field(event, "status"))
    left = _text(field(event, "turns_left"))
    return (
        f"{who}'s {status} runs on: {_count(left, 'turn')} left",
        f"{who}の変調「{status}」継続：効果時間残り{left}ターン",
    )


@renders("gd.FaintRecovered")
def _faint_recovered(event: DomainEvent) -> Line:
    who = _text(field(event, "combatant"))
    return f"{who} recovered from fainting and acts again", f"{who}が気絶から回復し、行動可能に"


@renders("gd.SkillUsed")
def _skill_used(event: DomainEvent) -> Line:
    who, skill = _text(field(event, "combatant")), _text(field(event, "skill"))
    left, hp = field(event, "uses_left"), _text(field(event, "hp"))
    uses_en = "no use limit" if left is None else f"{_count(left, 'use')} left"
    uses_ja = "使用回数制限なし" if left is None else f"残り使用回数{left}"
    return (
        f"{who} used {skill} ({uses_en}; HP {hp})",
        f"{who}が《{skill}》を使用（{uses_ja}、生命{hp}）",
    )
