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
    noRuleText: "text not in the digest", digestInEnglish: "the rule digest (English)",
    seedWords: "In the seed", noSeedWords: "(the seed does not state this rule)",
    recomputes: "recomputes",
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
    witness: "Signed log", evidence: "Evidence (copy it)",
    witnessOk: "consistent with everything this browser has seen since",
    witnessFailed: "THE LOG FAILED ITS PROOF",
    witnessUnchecked: "not checked by this browser",
    notRevealed: "The seed is not revealed yet: the dice can be recomputed after the GM reveals it.",
    allVerified: "Every die recomputes from the revealed seed",
    someFail: "Some dice do NOT recompute", shard: "shard", position: "position",
    holds: "holds", sep: ", ", recomputedCount: "dice recomputed from the revealed seed",
    byHandCount: "entered by hand (recorded; physical dice cannot be recomputed)",
    enteredByHand: "entered by hand: recorded, physical dice cannot be recomputed from the seed",
    complete: "Complete", divergence: "First divergence", differences: "Differences",
    noDifferences: "No differences.", combatant: "Combatant", field: "Field",
    original: "Original", replayed: "Replay", badJson: "That is not valid JSON.",
    filed: "Dispute filed.", assaultCore: "Assault Core",
    sharedRatio: "HP ratio the pilot carries", settled: "Dispute settled.", missing: "Missing",
    sheet: "Sheet", characterSheet: "Character sheet", unitSheet: "Assault Core sheet",
    effectiveStats: "Effective stats", stat: "Stat", effective: "Effective", base: "Base",
    carriedRatio: "HP ratio carried into the next scenario (GD-HPS-3)", injuries: "Injuries",
    none: "none", equipment: "Equipment", skills: "Skills", cost: "cost",
    hpHistory: "HP ratio across scenarios", scenario: "Scenario", ratioIn: "In",
    ratioOut: "Out", why: "Why", inProgress: "in progress", noScenarios: "No scenario yet.",
    copyCcfolia: "Copy for CCFolia", copied: "Copied: paste it into CCFolia as a piece.",
    copyFallback: "The clipboard is not available here: the text below is selected, copy it yourself (Ctrl+C / ⌘C).",
    ccfoliaText: "CCFolia clipboard JSON", pilot: "Pilot", player: "Player", level: "Level",
    lost: "Lost (GD-INJ-4)", backToTable: "Back to the table", pilotHp: "pilot",
    sharedNow: "Shared HP ratio now (GD-HPS-1)", you: "you", signedInAs: "Signed in as",
    yourCharacters: "Your characters", jumpTo: "Jump to a turn / phase / step",
    choosePoint: "— choose a point —", reveal: "Reveal the dice seed",
    revealedNow: "Seed revealed: every die can now be recomputed.",
    readOnly: "Read only: this token may look, not act or dispute.", piloting: "Piloting boost",
    ledgerBuilding: "The HP history is being built; reload in a moment.", openSheet: "Open a sheet",
    chartSummary: "HP ratio after each scenario", unit: "Unit",
    rollLog: "Roll log", newRollLog: "Open a new roll log", openRollLog: "Open a roll log",
    logName: "Log name", secretLog: "Secret log: every roll secret until the seed is revealed",
    rollLogId: "Roll log ID", rollDice: "Roll", rollCommand: "BCDice command (then an optional comment)",
    handFaces: "Dice rolled by hand (optional): faces in rolling order, e.g. 3 4",
    rollTable: "Or a dice table the GM keeps", noTable: "None: roll the command",
    noCommand: "Type a BCDice command, or choose a dice table.",
    secretRoll: "Secret roll (shown to the GM and you until the seed is revealed)",
    logClosed: "The seed is revealed: this log takes no more rolls. Open a new one to roll again.",
    readOnlyRolls: "Read only: this token may look at the rolls, not roll.",
    revealRolls: "Reveal the seed (no more rolls after this)", secretWord: "secret",
    critical: "critical", fumble: "fumble", success: "success", failure: "failure",
    sourceHand: "hand", sourceServer: "server", rolledBy: "rolled by",
    allRollsVerified: "Every server roll recomputes from the revealed seed", rollCount: "Rolls",
    secretLogShort: "secret log (GM秘匿)", noRolls: "No rolls yet.",
    badFaces: "Dice rolled by hand are whole numbers separated by spaces or commas, e.g. 3 4.",
    deniedRolls: "This token may not read this roll log.",
    handNotRecomputed: "entered by hand: no seed can recompute it", byHandCount: "entered by hand, nothing to recompute",
    campaignLogs: "The campaign's roll logs", rollAtTable: "Roll at the table", pickLog: "Roll in",
    tableLog: "Table log (everyone's rolls)", quickCommand: "Dice to roll, in BCDice (then an optional comment)",
    quickSecret: "Keep it secret: the GM and you see it until the seed is revealed", rollThere: "Roll in that log",
    noLogs: "No roll log yet: the first roll opens the table log.", kindTable: "table log",
    kindNamed: "named log", kindSecret: "secret log", revealedLog: "revealed", lastRoll: "last roll",
    moreLogs: "more logs not shown",
    // what-if panel (whatif*.js)
    whatIfOptionsLegend: "Options to try (house rules; the rule ID in brackets)", inForce: "in force",
    whatIfPick: "Recorded command to amend", whatIfNoAmendment: "— none: replay the record as it is —",
    whatIfAmend: "Amend", whatIfNewRuling: "New ruling", whatIfRulingNow: "The ruling now",
    whatIfRulingWas: "was", whatIfRefused: "refused by the rules under this reading",
    whatIfNeedsDeclaration: "needs a declaration the record lacks; the replay awaited",
    whatIfUnapplied: "Recorded commands the replay could not apply (skipped; the replay went on)",
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
    noRuleText: "要約に本文なし", digestInEnglish: "規則の要約（英語）",
    seedWords: "原文", noSeedWords: "（原文にこのルールの記述なし）",
    recomputes: "再計算一致",
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
    witness: "署名付きログ", evidence: "証拠(コピーして保存)",
    witnessOk: "このブラウザが見てきたすべてと矛盾なし。開始:",
    witnessFailed: "ログが証明に失敗しました",
    witnessUnchecked: "このブラウザでは検証できません",
    notRevealed: "シードは未公開です。GMが公開するとダイスを再計算できます。",
    allVerified: "全ダイスが公開シードから再計算で一致",
    someFail: "再計算で一致しないダイスがあります", shard: "シャード", position: "位置",
    holds: "整合", sep: "、", recomputedCount: "個のダイスを公開シードから再計算で確認",
    byHandCount: "個は手振り（記録済み。実物のダイスはシードから再計算できません）",
    enteredByHand: "手振りで入力：記録済み。実物のダイスはシードから再計算できません",
    complete: "完全", divergence: "最初の分岐", differences: "差分",
    noDifferences: "差分なし。", combatant: "参加者", field: "項目",
    original: "元", replayed: "再計算", badJson: "JSONとして正しくありません。",
    filed: "異議を申し立てました。", assaultCore: "アサルトコア",
    sharedRatio: "パイロットに引き継ぐHP割合", settled: "異議を裁定しました。", missing: "不足",
    sheet: "シート", characterSheet: "キャラクターシート", unitSheet: "アサルトコアのシート",
    effectiveStats: "実効能力値", stat: "能力値", effective: "実効", base: "基本",
    carriedRatio: "次のシナリオに持ち越すHP割合（GD-HPS-3）", injuries: "負傷",
    none: "なし", equipment: "装備", skills: "スキル", cost: "コスト",
    hpHistory: "シナリオごとのHP割合", scenario: "シナリオ", ratioIn: "開始時",
    ratioOut: "終了時", why: "根拠", inProgress: "進行中", noScenarios: "まだシナリオがありません。",
    copyCcfolia: "ココフォリア用にコピー", copied: "コピーしました。ココフォリアに駒として貼り付けてください。",
    copyFallback: "クリップボードが使えません。下のテキストを選択したので、手動でコピーしてください（Ctrl+C / ⌘C）。",
    ccfoliaText: "ココフォリア用JSON", pilot: "パイロット", player: "PL", level: "レベル",
    lost: "ロスト（GD-INJ-4）", backToTable: "卓に戻る", pilotHp: "パイロット",
    sharedNow: "現在の共有HP割合（GD-HPS-1）", you: "あなた", signedInAs: "ログイン中",
    yourCharacters: "あなたのキャラクター", jumpTo: "ターン／フェイズ／ステップへ移動",
    choosePoint: "— 地点を選ぶ —", reveal: "ダイスのシードを公開",
    revealedNow: "シードを公開しました。全ダイスを再計算できます。",
    readOnly: "閲覧のみ：このトークンでは行動も異議もできません。", piloting: "操縦による強化",
    ledgerBuilding: "HP履歴を構築中です。少し待って再読み込みしてください。", openSheet: "シートを開く",
    chartSummary: "各シナリオ終了時のHP割合", unit: "機体",
    rollLog: "ダイスログ", newRollLog: "新しいダイスログを開く", openRollLog: "ダイスログを開く",
    logName: "ログ名", secretLog: "シークレットログ：シード公開まで全ダイスをシークレットにする",
    rollLogId: "ダイスログID", rollDice: "振る", rollCommand: "BCDiceコマンド（続けてコメントも可）",
    handFaces: "手で振ったダイス（任意）：振った順の出目、例：3 4",
    rollTable: "またはGMの保存したダイス表", noTable: "なし：コマンドを振る",
    noCommand: "BCDiceコマンドを入力するか、ダイス表を選んでください。",
    secretRoll: "シークレットダイス（シード公開まではGMとあなただけに表示）",
    logClosed: "シードを公開したので、このログではもう振れません。新しいログを開いてください。",
    readOnlyRolls: "閲覧のみ：このトークンではダイスを振れません。",
    revealRolls: "シードを公開（以後このログでは振れません）", secretWord: "シークレット",
    critical: "クリティカル", fumble: "ファンブル", success: "成功", failure: "失敗",
    sourceHand: "手振り", sourceServer: "サーバー", rolledBy: "振った人",
    allRollsVerified: "サーバーのダイスはすべて公開シードから再計算で一致", rollCount: "ダイス数",
    secretLogShort: "シークレットログ（GM秘匿）", noRolls: "まだダイスはありません。",
    badFaces: "手で振った出目は、空白かカンマで区切った整数で入力してください（例：3 4）。",
    deniedRolls: "このトークンではこのダイスログを閲覧できません。",
    handNotRecomputed: "手振り：シードからは再計算できません", byHandCount: "手振りのため再計算対象外",
    campaignLogs: "このキャンペーンのダイスログ", rollAtTable: "卓で振る", pickLog: "振るログ",
    tableLog: "卓のダイスログ（全員のダイス）", quickCommand: "振るダイス（BCDice、続けてコメントも可）",
    quickSecret: "シークレットにする（シード公開まではGMとあなただけに表示）", rollThere: "このログで振る",
    noLogs: "まだダイスログはありません。最初のダイスで卓のダイスログが開きます。", kindTable: "卓のログ",
    kindNamed: "名前付きログ", kindSecret: "シークレットログ", revealedLog: "公開済み", lastRoll: "最後のダイス",
    moreLogs: "件のログは未表示",
    // what-if panel (whatif*.js)
    whatIfOptionsLegend: "試すオプション（ハウスルール。括弧内はルールID）", inForce: "現行",
    whatIfPick: "変更する記録済みコマンド", whatIfNoAmendment: "— なし：記録どおりに再計算 —",
    whatIfAmend: "変更", whatIfNewRuling: "新しい裁定", whatIfRulingNow: "変更後の裁定",
    whatIfRulingWas: "変更前", whatIfRefused: "この解釈ではルール上できない",
    whatIfNeedsDeclaration: "記録にない宣言が必要。再計算が待っていたもの",
    whatIfUnapplied: "再計算で適用できなかった記録済みコマンド（飛ばして続行）",
  },
};

export function t(lang, key) {
  return (WORDS[lang] || WORDS.en)[key] || WORDS.en[key] || key;
}

/** Put the page's fixed words in `lang` (elements marked `data-i18n`). */
export function translatePage(lang) {
  document.documentElement.lang = lang;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    const key = element.dataset.i18n;
    const word = (WORDS[lang] || WORDS.en)[key] || (PLAY_WORDS[lang] || PLAY_WORDS.en)[key];
    if (word) element.textContent = word;
  }
}

// --- Play from the page (helper tableplay): its words, command names and field names. ---
const PLAY_WORDS = {
  en: {
    play: "Play", playAtLive: "Back to live to play: commands are issued on the encounter now.",
    nothingForYou: "Nothing is awaited of you now.", send: "Send", sent: "Sent",
    enterDie: "Enter the die", dieAwaited: "Die awaited", face: "Face",
    pickOnBoard: "Pick on the board", clear: "Clear", picking: "Click squares on the board",
    optionsInForce: "House rules in force",
    changeHouseRules: "Set the campaign's house rules (GM)",
    houseRulesHint: "The campaign's house rules; an encounter keeps the ones it opened under.",
    houseRulesSaved: "House rules saved.",
    justNow: "Just now", dieOf: "Waiting for the die of",
  },
  ja: {
    play: "行動", playAtLive: "行動するには「最新に戻る」：コマンドは現在の戦闘に対して出します。",
    nothingForYou: "今あなたに求められている行動はありません。", send: "送信", sent: "送信しました",
    enterDie: "出目を入力", dieAwaited: "待っているダイス", face: "出目",
    pickOnBoard: "盤面で選ぶ", clear: "消去", picking: "盤面のマスをクリックしてください",
    optionsInForce: "適用中のハウスルール",
    changeHouseRules: "キャンペーンのハウスルールを設定（GM）",
    houseRulesHint: "キャンペーンのハウスルールです。戦闘は開始時のルールのまま進みます。",
    houseRulesSaved: "ハウスルールを保存しました。",
    justNow: "直前の裁定", dieOf: "ダイス待ち：",
  },
};
// Each command's name in English and Japanese, as its rule system declares it (served with
// /playable: the page keeps no list of its own).
let commandLabels = {};
export function learnCommandWords(labels) {
  commandLabels = labels || {};
}
const FIELD_WORDS = {
  en: { combatant_id: "Combatant", unit_id: "Unit", target: "Target", defender: "Defender", path: "Path" },
  ja: {
    combatant_id: "参加者", unit_id: "機体", target: "対象", defender: "防御側", borrower: "借り手",
    representative: "代表者", after: "この参加者の後に", path: "経路", point: "地点", destination: "行き先",
    weapon: "武器", item: "アイテム", skill: "スキル", note: "メモ", reason: "理由", clause: "条項",
    percent: "修正（%）", grade: "程度", status: "状態", effect_value: "効果値",
    resist_difficulty: "抵抗の難易度", action: "行動", check_stat: "判定能力値", difficulty: "難易度",
    negates_hit: "命中を無効にする", guard: "ガードする", item_attack: "アイテムの攻撃力",
    equip: "装備する", unequip: "外す", expression: "ダイス式", success: "成功", outcome: "結果",
    form: "行動形式", sub: "サブ", main: "メイン", passive: "パッシブ", full: "フル", free: "フリー",
    two_handed_attack: "両手攻撃", ini: "イニシアチブ", formation: "陣形", cost: "コスト",
    fallback: "代わりの行動", incapacitating: "行動不能", surprising: "不意打ちする側",
    hit: "命中", aim: "狙う", m_steps: "M移動の経路", f_steps: "F移動の経路", fixed: "固定",
    entry_band: "進入帯", steps: "歩数", direction: "方向", weapons: "武器", armor: "装甲",
    amount: "量", mode: "方式", lasts: "持続", penalty: "ペナルティ", cannot_move: "移動不可",
    side: "陣営", faces: "出目",
    // House rules (each an Interpretation of RULES.md, its rule ID in the option's description).
    piloting_rounding: "操縦補正の端数処理（GD-STAT-2a）", hps_rounding: "HP持ち越しの端数処理（GD-HPS-3）",
    hps_zero_floor: "HP持ち越しの下限（GD-HPS-3）", occupy_threshold: "マスを占有する大きさ（GD-SQ-2a）",
    skill_cost_clamps_hp: "スキルコストで現在HPも制限（GD-COST-3a）",
    status_recovery_difficulty: "状態異常の回復判定の基準難易度（GD-CHK-2a）",
    status_resistance_default_difficulty: "状態異常の抵抗判定の既定難易度（GD-REACT-7a）",
    situation_bonus_applies_to: "状況修正の適用先（GD-DMG-4a）", faint_rule: "気絶の判定（GD-INJ-1a）",
    line_of_fire: "射線（GD-SQ-3a）", tp_pool: "TPの持ち方（WZ-2a）",
    fatigue_ac_after_second: "疲労2段階目以降のAC（WZ-3a）",
    nonpositive_fatigue_interval: "耐久−疲労が0以下のときの間隔（WZ-3b）",
    initiative_difference: "イニシアチブ差の加え方（WZ-7a）", initiative_tactics: "イニシアチブの戦術レベル（WZ-7a）",
    first_move_ties: "先攻の同値（AK-TURN-2a）",
  },
};

export function playWord(lang, key) {
  return (PLAY_WORDS[lang] || PLAY_WORDS.en)[key] || PLAY_WORDS.en[key] || t(lang, key);
}

/** A command's name for the table: its rule system's label, else its name spelled out. */
export function commandWord(lang, name) {
  const label = commandLabels[name];
  if (label) return lang === "ja" ? label.ja : label.en;
  return name.replace(/([a-z])([A-Z])/g, "$1 $2");
}

// Each phase's and step's name in English and Japanese, as its rule system declares it (served
// with /playable, like the commands' names).
let phaseLabels = {};
export function learnPhaseWords(labels) {
  phaseLabels = labels || {};
}

/** A phase's or step's name for the table: its rule system's label, else its id spelled out
 * (a step that is no id, as a Wizardry round's inning, reads as it is). */
export function phaseWord(word, lang) {
  if (!word) return "—";
  const label = phaseLabels[word];
  if (label) return lang === "ja" ? label.ja : label.en;
  return word.replaceAll("_", " ");
}

/** A field's label: the table's word, else the schema's title, else the name spelled out. */
export function fieldWord(lang, name, title = null) {
  const words = FIELD_WORDS[lang] || FIELD_WORDS.en;
  if (words[name]) return words[name];
  if (PLAY_WORDS[lang] && PLAY_WORDS[lang][name]) return PLAY_WORDS[lang][name];
  if (lang !== "ja" && PLAY_WORDS.en[name]) return PLAY_WORDS.en[name];
  return title || name.replaceAll("_", " ");
}
// --- end of play words ---
