"""One readable line per event, in English and Japanese, and the rule IDs it cites.

The Encounter's own facts (opened, joined, dice, commands, disputes) are rendered here; a
ruleset's facts by the ruleset (`log_line`, domain/rules/<system>/); and every event without
a line still gets a readable one built from its fields, so the log never has a hole.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from domain.encounter.awaited import awaited_die, purpose_ja
from domain.encounter.rulesets import log_line
from domain.events import DomainEvent
from domain.rules.records import refusal_line
from domain.rules.ruleset import LogLine
from projections.base import field

Line = LogLine  # (English, Japanese)
Renderer = Callable[[DomainEvent], Line]

_RENDERERS: dict[str, Renderer] = {}
_MAX_VALUE = 60


def renders(*event_types: str) -> Callable[[Renderer], Renderer]:
    """Decorator: the renderer of these Encounter event types (the last one wins)."""

    def register(renderer: Renderer) -> Renderer:
        for event_type in event_types:
            _RENDERERS[event_type] = renderer
        return renderer

    return register


def render(event: DomainEvent) -> Line:
    """The event's line: the Encounter's renderer, its ruleset's, its own summaries, or
    its fields."""
    renderer = _RENDERERS.get(event.event_type)
    if renderer is not None:
        return renderer(event)
    line = log_line(event)
    if line is not None:
        return line
    en, ja = field(event, "summary_en"), field(event, "summary_ja")
    if isinstance(en, str) and isinstance(ja, str):
        return en, ja
    return fallback(event)


def rule_ids(event: DomainEvent) -> list[str]:
    """Rule IDs any event cites, by `rule_ids` (a sequence) or `rule_id` (one)."""
    many, one = field(event, "rule_ids"), field(event, "rule_id")
    found = [str(r) for r in many] if isinstance(many, list | tuple) else []
    if isinstance(one, str) and one not in found:
        found.append(one)
    return found


def fallback(event: DomainEvent) -> Line:
    """`by` + the event type + its fields, shortened: readable when nobody wrote a renderer."""
    fields = event.model_dump(mode="json", exclude={"at", "by"})
    shown = ", ".join(f"{k}={_short(v)}" for k, v in fields.items())
    name = event.event_type
    return f"{event.by}: {name} ({shown})", f"{event.by}：{name}（{shown}）"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else _compact(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


# Each rule system by the name a table knows it by (the seeds' spelling), not its id.
_RULESETS = {
    "glorious_drive": ("Glorious Drive", "グロリアスドライヴ"),
    "wizardry_round": ("the Wizardry-style round", "ウィザードリィ風の戦闘ラウンド"),
    "armor_knights": ("Armor Knights", "アーマーナイツ"),
}


@renders("EncounterOpened")
def _opened(event: DomainEvent) -> Line:
    ruleset_id, version = str(field(event, "ruleset_id")), field(event, "ruleset_version")
    en, ja = _RULESETS.get(ruleset_id, (ruleset_id, ruleset_id))
    return (
        f"{event.by} opened the encounter under {en} (version {version}); dice commitment "
        f"{str(field(event, 'commitment'))[:12]}…",
        f"{event.by}が戦闘を開始（ルール {ja} 第{version}版、ダイス・コミットメント "
        f"{str(field(event, 'commitment'))[:12]}…）",
    )


_SIDES_JA = {"pc": "味方", "enemy": "敵"}


@renders("CombatantJoined")
def _joined(event: DomainEvent) -> Line:
    who, side = field(event, "name"), field(event, "side")
    cid, ctl = field(event, "combatant_id"), field(event, "controller")
    return (
        f"{who} ({cid}) joined on side {side}, controlled by {ctl}",
        f"{who}（{cid}）が陣営「{_SIDES_JA.get(str(side), side)}」で参加（操作：{ctl}）",
    )


@renders("EncounterDiceRolled", "DiceRolled")
def _rolled(event: DomainEvent) -> Line:
    result = field(event, "result")
    text, purpose = field(result, "text"), field(result, "purpose")
    source = "by hand" if field(result, "source") == "hand" else "server"
    source_ja = "手入力" if source == "by hand" else "サーバー"
    return (
        f"{event.by} rolled for {purpose} ({source}): {text}",
        f"{event.by}が{purpose_ja(str(purpose))}のダイスを振った（{source_ja}）：{text}",
    )


@renders("EncounterSeedRevealed", "DiceSeedRevealed")
def _revealed(event: DomainEvent) -> Line:
    return (
        f"{event.by} revealed the server seed: every die can now be recomputed",
        f"{event.by}がサーバーシードを公開：全てのダイスを再計算できる",
    )


@renders("EncounterEnded")
def _ended(event: DomainEvent) -> Line:
    reason, rule = field(event, "reason"), field(event, "rule_id")
    return f"The encounter ended ({rule}): {reason}", f"戦闘終了（{rule}）：{reason}"


@renders("CommandIssued")
def _issued(event: DomainEvent) -> Line:
    command = field(event, "command_type")
    payload = field(event, "payload") or {}
    actor = payload.get("combatant_id") if isinstance(payload, dict) else None
    about = f" for {actor}" if actor else ""
    about_ja = f"（{actor}）" if actor else ""
    hand = " with dice entered by hand" if field(event, "hand_faces") else ""
    hand_ja = "、ダイスは手入力" if hand else ""
    return (
        f"{event.by} issued {command}{about}{hand}",
        f"{event.by}が{command}を宣言{about_ja}{hand_ja}",
    )


@renders("RulingDisputed")
def _disputed(event: DomainEvent) -> Line:
    version, reason = field(event, "ruling_version"), field(event, "reason")
    return (
        f"{event.by} disputed the ruling at version {version}: {reason}",
        f"{event.by}がバージョン{version}の裁定に異議：{reason}",
    )


@renders("DisputeUpheld")
def _upheld(event: DomainEvent) -> Line:
    note = field(event, "note") or ""
    return (
        f"{event.by} upheld the ruling {note}".rstrip(),
        f"{event.by}が裁定を維持 {note}".rstrip(),
    )


@renders("DisputeAmended")
def _amended(event: DomainEvent) -> Line:
    note = field(event, "note") or ""
    return (
        f"{event.by} amended the ruling after the dispute; corrections follow {note}".rstrip(),
        f"{event.by}が異議を受けて裁定を修正。以下に訂正 {note}".rstrip(),
    )


@renders("CombatantCorrected")
def _corrected(event: DomainEvent) -> Line:
    who = field(event, "combatant_id")
    before, after = field(event, "previous") or {}, field(event, "changes") or {}
    changes = ", ".join(f"{k} {before.get(k)} → {v}" for k, v in dict(after).items())
    return (
        f"Correction for {who}: {changes} (the original ruling stays in the log)",
        f"{who}の訂正：{changes}（元の裁定は記録に残る）",
    )


@renders("RollAwaited")
def _awaited(event: DomainEvent) -> Line:
    """Issue 19: a command waits for a hand die; who enters it."""
    die = field(event, "die") or {}
    text_en, text_ja = field(die, "text_en"), field(die, "text_ja")
    sides, purpose = field(die, "sides"), field(die, "purpose")
    if isinstance(sides, int) and isinstance(purpose, str):
        # Said again from what it is, so a die recorded with English words reads in Japanese.
        text_ja = awaited_die(sides, purpose, field(die, "combatant"), None).text_ja
    who = field(die, "for_member")
    by_en, by_ja = ("the GM", "GM") if who == "gm" else (f"{who} (or the GM)", f"{who}（またはGM）")
    return f"Waiting for {text_en}: {by_en} enters it", f"{text_ja}の入力待ち：{by_ja}が入力"


@renders("AwaitedRollWithdrawn")
def _withdrawn(event: DomainEvent) -> Line:
    command, reason = field(event, "command_type"), field(event, "reason")
    return (
        f"{event.by} withdrew {command}, which waited for a die: {reason}",
        f"{event.by}がダイス待ちの{command}を取り下げ：{reason}",
    )


@renders("CommandRefusedAfterDice")
def _refused_after_dice(event: DomainEvent) -> Line:
    """Issue 33 §1: the rule and a fixed sentence; the dice are the lines before it."""
    rule = field(event, "rule_id")
    en, ja = refusal_line(
        str(field(event, "command_type")), rule if isinstance(rule, str) else None
    )
    return f"{event.by}: {en}", f"{event.by}：{ja}"
