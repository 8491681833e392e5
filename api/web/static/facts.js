// A ruling's inputs, outcome and options in words: labelled facts, names for ids, yes/no for
// booleans; and a rule text as text (the digest's **bold** and `code` as emphasis, not marks).

import { node } from "./dom.js";

// The labels of the facts rulings record, in the table's language. A key not listed reads as
// its words ("shots_left" → "shots left"), never as JSON.
const LABELS_JA = {
  action: "アクション", advanced: "進んだ段階", attack: "攻撃", attacker: "攻撃者", checks: "判定",
  combatant: "参加者", combatants: "参加者", cost: "コスト", damage: "ダメージ", deferred: "保留",
  declaration: "宣言", defence: "防御", defender: "防御側", defenders: "防御側", die: "ダイス",
  difficulty: "難易度", distance: "距離", done: "完了", elapsed: "経過", end: "終了",
  evading: "回避", evasion: "回避値", expression: "ダイス式", face: "出目", faces: "出目",
  faint: "気絶", fatigue_penalty: "疲労ペナルティ", first: "先攻", formation: "隊形",
  formations: "隊形", gain: "獲得", gains: "獲得", guard: "ガード", hit: "命中", hp: "HP",
  injury: "負傷", interval: "間隔", item: "アイテム", items: "アイテム", move: "移動",
  note: "メモ", opponent: "相手", order: "順番", outcome: "結果", over: "終了", pending: "待ち",
  phase: "フェイズ", pool: "プール", range: "射程", reason: "理由", recovery: "回復",
  round: "ラウンド", rolls: "ダイス", sides_without_fighters: "戦える者のいない陣営", status: "変調", statuses: "変調", step: "ステップ",
  strategy: "作戦", success: "成功", target: "対象", threshold: "しきい値", total: "合計",
  totals: "合計", tp: "TP", turn: "ターン", unit: "ユニット", weapon: "武器", winner: "勝者",
};

const SIDES_JA = { pc: "味方", enemy: "敵" };

const YES_NO = { en: ["yes", "no"], ja: ["はい", "いいえ"] };

export function label(key, lang) {
  return (lang === "ja" && LABELS_JA[key]) || key.replaceAll("_", " ");
}

function valueText(value, ctx) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return YES_NO[ctx.lang === "ja" ? "ja" : "en"][value ? 0 : 1];
  if (typeof value === "string") return (ctx.names && ctx.names.get(value)) || (ctx.lang === "ja" && SIDES_JA[value]) || value.replaceAll("_", " ");
  return String(value);
}

/** Facts as a labelled list; nested facts as nested lists, lists of plain values joined. */
export function factList(value, ctx) {
  if (value === null || typeof value !== "object") return node("span", {}, valueText(value, ctx));
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== "object")) {
      return node("span", {}, value.length ? value.map((v) => valueText(v, ctx)).join(ctx.lang === "ja" ? "、" : ", ") : "—");
    }
    return node("ol", { class: "facts" }, ...value.map((v) => node("li", {}, factList(v, ctx))));
  }
  const entries = Object.entries(value);
  if (!entries.length) return node("span", {}, "—");
  return node("dl", { class: "facts" }, ...entries.flatMap(([key, v]) => [
    node("dt", {}, label(key, ctx.lang)), node("dd", {}, factList(v, ctx)),
  ]));
}

/** A rule text as text: `**x**` strong, `` `x` `` code, the rest as it stands. */
export function ruleText(text) {
  const parts = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let at = 0;
  for (const found of text.matchAll(pattern)) {
    if (found.index > at) parts.push(text.slice(at, found.index));
    parts.push(found[1] !== undefined ? node("strong", {}, found[1]) : node("code", {}, found[2]));
    at = found.index + found[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return node("span", { class: "rule-text" }, " — ", ...parts);
}
