// The page's own words in English and Japanese; the log's words come from the events.

const WORDS = {
  en: {
    table: "table", language: "Language", signOut: "Forget token", board: "Board",
    order: "Initiative", history: "History", log: "Log", verify: "Verification",
    whatIf: "What if", access: "Open an encounter",
    tokenHint: "Your token stays in this browser tab only (sessionStorage) and is forgotten when the tab closes.",
    token: "Token", encounterId: "Encounter ID", open: "Open", combatants: "Combatants",
    historyLabel: "Encounter version shown on the board", backToLive: "Back to live",
    rulingsOnly: "Rulings only", download: "Download the audit bundle",
    whatIfOptions: "Options to try (JSON)", whatIfCommand: "Command to amend (0-based index, optional)",
    whatIfPayload: "Its new payload (JSON)", replay: "Replay",
    footer: "every die recorded, every ruling cited.",
    turn: "Turn", phase: "Phase", step: "Step", acting: "Acting", awaiting: "Awaiting",
    ended: "Combat over", rules: "Rules", inputs: "Inputs", outcome: "Outcome", dice: "Dice",
    options: "Options", defaults: "defaults", noDice: "no dice",
    noRuleText: "text not in the digest", recomputes: "recomputes",
    doesNotRecompute: "does not recompute", dispute: "Dispute", status: "Status",
    statusOpen: "open", statusUpheld: "upheld", statusAmended: "amended", correction: "Correction",
    uphold: "Uphold", amend: "Amend", settle: "Settle the dispute (GM)", note: "Note (optional)",
    amendOptions: "Options the amendment replays under (JSON)", fileDispute: "File a dispute",
    disputeReason: "Why is this ruling wrong?", live: "Live", showing: "Showing version",
    of: "of", hpHidden: "HP hidden", noStatuses: "no statuses", gm: "GM", member: "Member",
    loading: "Loading…", streamLive: "Following the fight live.",
    streamDown: "Live feed lost; reconnecting…", denied: "This token may not read this encounter.",
    notAvailable: "Not available on this server yet.",
    rulingsUnavailable: "Rule texts and dice checks: not available on this server yet (rule IDs shown).",
    disputesUnavailable: "Disputes: not available on this server yet.",
    chainHead: "Chain head", commitment: "Dice commitment", seed: "Revealed seed",
    notRevealed: "The seed is not revealed yet: the dice can be recomputed after the GM reveals it.",
    allVerified: "Every die recomputes from the revealed seed",
    someFail: "Some dice do NOT recompute", shard: "shard", position: "position",
    complete: "Complete", divergence: "First divergence", differences: "Differences",
    noDifferences: "No differences.", combatant: "Combatant", field: "Field",
    original: "Original", replayed: "Replay", badJson: "That is not valid JSON.",
    filed: "Dispute filed.", assaultCore: "Assault Core",
    sharedRatio: "HP ratio the pilot carries", settled: "Dispute settled.", missing: "Missing",
  },
  ja: {
    table: "卓", language: "言語", signOut: "トークンを消去", board: "盤面",
    order: "行動順", history: "履歴", log: "ログ", verify: "検証", whatIf: "もしも",
    access: "戦闘を開く",
    tokenHint: "トークンはこのタブ内（sessionStorage）にのみ保持され、タブを閉じると消えます。",
    token: "トークン", encounterId: "戦闘ID", open: "開く", combatants: "参加者",
    historyLabel: "盤面に表示するバージョン", backToLive: "最新に戻る",
    rulingsOnly: "裁定のみ", download: "監査データをダウンロード",
    whatIfOptions: "試すオプション（JSON）", whatIfCommand: "変更するコマンド（0始まり、任意）",
    whatIfPayload: "新しい内容（JSON）", replay: "再計算",
    footer: "すべてのダイスを記録し、すべての裁定にルールを。",
    turn: "ターン", phase: "フェイズ", step: "ステップ", acting: "手番", awaiting: "待機中",
    ended: "戦闘終了", rules: "ルール", inputs: "入力", outcome: "結果", dice: "ダイス",
    options: "オプション", defaults: "既定", noDice: "ダイスなし",
    noRuleText: "要約に本文なし", recomputes: "再計算一致",
    doesNotRecompute: "再計算不一致", dispute: "異議", status: "状態",
    statusOpen: "審議中", statusUpheld: "維持", statusAmended: "修正", correction: "訂正",
    uphold: "維持する", amend: "修正する", settle: "異議を裁定（GM）", note: "メモ（任意）",
    amendOptions: "修正で使うオプション（JSON）", fileDispute: "異議を申し立てる",
    disputeReason: "この裁定のどこが誤りですか？", live: "最新", showing: "表示中のバージョン",
    of: "/", hpHidden: "HP非公開", noStatuses: "変調なし", gm: "GM", member: "メンバー",
    loading: "読み込み中…", streamLive: "リアルタイムで追跡中。",
    streamDown: "接続が切れました。再接続中…", denied: "このトークンではこの戦闘を閲覧できません。",
    notAvailable: "このサーバーではまだ利用できません。",
    rulingsUnavailable: "ルール本文とダイス検証：このサーバーではまだ利用できません（ルールIDのみ表示）。",
    disputesUnavailable: "異議：このサーバーではまだ利用できません。",
    chainHead: "チェーン先頭", commitment: "ダイスのコミットメント", seed: "公開済みシード",
    notRevealed: "シードは未公開です。GMが公開するとダイスを再計算できます。",
    allVerified: "全ダイスが公開シードから再計算で一致",
    someFail: "再計算で一致しないダイスがあります", shard: "シャード", position: "位置",
    complete: "完全", divergence: "最初の分岐", differences: "差分",
    noDifferences: "差分なし。", combatant: "参加者", field: "項目",
    original: "元", replayed: "再計算", badJson: "JSONとして正しくありません。",
    filed: "異議を申し立てました。", assaultCore: "アサルトコア",
    sharedRatio: "パイロットに引き継ぐHP割合", settled: "異議を裁定しました。", missing: "不足",
  },
};

export function t(lang, key) {
  return (WORDS[lang] || WORDS.en)[key] || WORDS.en[key] || key;
}

/** Put the page's fixed words in `lang` (elements marked `data-i18n`). */
export function translatePage(lang) {
  document.documentElement.lang = lang;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    const word = (WORDS[lang] || WORDS.en)[element.dataset.i18n];
    if (word) element.textContent = word;
  }
}
