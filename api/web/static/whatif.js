// The what-if panel (issue 19 item 4): the campaign's options with their alternatives (from the
// ruleset's option schema), a recorded command to amend through a form built from its JSON
// schema, and the replay's answer in words, with every command it could not apply. A replay
// stores nothing; the server redacts its answer for the reader, as every other surface.

import { ApiError, get, post } from "./api.js";
import { node } from "./dom.js";
import { commandWord, t } from "./i18n.js";
import { formFor, readForm } from "./whatif_form.js";
import { replayInWords } from "./whatif_words.js";

const SKIPPED = new Set(["RevealSeed"]); // changes no outcome; a replay does not re-run it

const OPTION_JA = {
  piloting_rounding: "操縦補正の端数処理", hps_rounding: "HP割合の端数処理",
  hps_zero_floor: "HP割合の下限", occupy_threshold: "占有スクエアの基準",
  skill_cost_clamps_hp: "スキルコストで現在HPも下げる", status_recovery_difficulty: "変調回復の基本難易度",
  status_resistance_default_difficulty: "変調対抗の既定難易度", situation_bonus_applies_to: "状況修正の適用先",
  faint_rule: "気絶の判定", line_of_fire: "射線の判定", tp_pool: "TPの持ち方",
  fatigue_ac_after_second: "疲労2段階目以降のAC", nonpositive_fatigue_interval: "疲労間隔が0以下のとき",
  initiative_difference: "イニシアチブ差の向き", initiative_tactics: "TP判定のタクティクス",
  first_move_ties: "先攻決定の同値",
};

/** Rule ID a description leads with ("GD-INJ-1a: …"), as the option schema writes it. */
export function ruleOf(description) {
  const found = /^([A-Z]{2}-[A-Z]+(?:-\d+[a-z]?)?|[A-Z]{2}-\d+[a-z]?)/.exec(description || "");
  return found ? found[1] : "";
}

function optionLabel(name, schema, lang) {
  const words = lang === "ja" && OPTION_JA[name] ? OPTION_JA[name] : name.replaceAll("_", " ");
  const rule = ruleOf(schema.description);
  return rule ? `${words} (${rule})` : words;
}

/** Mount the panel on `host` for the encounter `page` shows; call again for another one. */
export async function mountWhatIf(host, page, allowed) {
  const panel = { host, page, allowed, form: null, chosen: "", seen: -1, answer: null };
  clearInterval(host.whatIfTimer);
  try {
    panel.form = allowed ? await get(`/v1/encounters/${page.id}/options`) : null;
  } catch (error) {
    panel.form = null;
    panel.failed = error instanceof ApiError && error.status === 404 ? t(page.lang, "notAvailable") : error.message;
  }
  draw(panel);
  // New commands arrive through the page's live stream: keep the list of recorded ones current.
  host.whatIfTimer = setInterval(() => {
    if (panel.form && page.events.length !== panel.seen) drawCommands(panel);
  }, 1000);
  const lang = document.getElementById("lang");
  if (lang && !host.whatIfLang) {
    host.whatIfLang = true;
    lang.addEventListener("change", () => draw(host.whatIfPanel));
  }
  host.whatIfPanel = panel;
}

function draw(panel) {
  const { host, page } = panel;
  const lang = page.lang;
  const result = node("div", { id: "whatif-result", class: "whatif-result", "aria-live": "polite" });
  if (!panel.form) {
    result.textContent = panel.failed || t(lang, panel.allowed === null ? "notAvailable" : "readOnly");
    host.replaceChildren(node("h2", { id: "whatif-title" }, t(lang, "whatIf")), result);
    return;
  }
  const kept = host.querySelector("#whatif-form") ? readOptions(panel) : null;
  const editing = host.querySelector("#whatif-amend fieldset");
  if (editing) {
    try {
      panel.edited = { index: panel.chosen, payload: readForm(editing) }; // kept across a redraw
    } catch {
      panel.edited = null;
    }
  }
  const form = node("form", { id: "whatif-form", class: "whatif-form" });
  form.style.display = "grid";
  form.style.gap = ".35rem";
  form.append(optionControls(panel, kept), commandPicker(panel), node("div", { id: "whatif-amend" }));
  form.append(node("button", { type: "submit" }, t(lang, "replay")));
  form.addEventListener("submit", (submitted) => {
    submitted.preventDefault();
    run(panel, result);
  });
  host.replaceChildren(node("h2", { id: "whatif-title" }, t(lang, "whatIf")), form, result);
  drawCommands(panel);
  fit(host);
  if (panel.answer) result.replaceChildren(...replayInWords(panel.answer, page, lang));
}

/** No control wider than the panel (a phone is 375 px wide). */
function fit(host) {
  for (const control of host.querySelectorAll("select, input, textarea")) control.style.maxWidth = "100%";
}

function optionControls(panel, kept) {
  const { form, page } = panel;
  const lang = page.lang;
  const box = node("fieldset", { class: "whatif-options" }, node("legend", {}, t(lang, "whatIfOptionsLegend")));
  for (const [name, schema] of Object.entries(form.option_schema.properties || {})) {
    const now = kept && name in kept ? kept[name] : form.values[name];
    const id = `whatif-option-${name}`;
    const label = node("label", { for: id }, optionLabel(name, schema, lang));
    const control = optionControl(schema, now, form.values[name], lang);
    control.id = id;
    control.dataset.option = name;
    control.title = schema.description || "";
    const hint = node("p", { class: "hint" }, schema.description || "");
    box.append(node("div", { class: "whatif-option" }, label, " ", control, hint));
  }
  return box;
}

function optionControl(schema, value, inForce, lang) {
  const choices = schema.enum || (schema.anyOf || []).flatMap((s) => s.enum || []);
  if (choices.length) {
    const select = node("select", {});
    for (const choice of choices) {
      const shown = String(choice).replaceAll("_", " ");
      const words = choice === inForce ? `${shown} (${t(lang, "inForce")})` : shown;
      const option = node("option", { value: choice }, words);
      option.selected = choice === value;
      select.append(option);
    }
    return select;
  }
  const types = [schema.type, ...(schema.anyOf || []).map((s) => s.type)].filter(Boolean);
  if (types.includes("boolean")) {
    const box = node("input", { type: "checkbox" });
    box.checked = Boolean(value);
    return box;
  }
  const number = node("input", { type: "number", step: types.includes("integer") ? "1" : "any" });
  for (const bound of ["minimum", "maximum"]) {
    const found = [schema, ...(schema.anyOf || [])].find((s) => s[bound] !== undefined);
    if (found) number.setAttribute(bound === "minimum" ? "min" : "max", String(found[bound]));
  }
  number.value = value === null || value === undefined ? "" : String(value);
  number.dataset.nullable = String(types.includes("null"));
  return number;
}

function readOptions(panel) {
  const read = {};
  for (const control of panel.host.querySelectorAll("[data-option]")) {
    const name = control.dataset.option;
    if (control.type === "checkbox") read[name] = control.checked;
    else if (control.type === "number") read[name] = control.value === "" ? null : Number(control.value);
    else read[name] = control.value;
  }
  return read;
}

/** The options that differ from those in force: what the replay is asked to try. */
function changedOptions(panel) {
  const read = readOptions(panel);
  return Object.fromEntries(Object.entries(read).filter(([name, value]) => value !== panel.form.values[name]));
}

function recorded(page) {
  return page.events
    .filter((e) => e.type === "CommandIssued")
    .map((e, index) => ({ index, version: e.version, type: e.payload.command_type, payload: e.payload.payload || {} }))
    .filter((c) => !SKIPPED.has(c.type));
}

function chosenCommand(panel) {
  return recorded(panel.page).find((c) => String(c.version) === panel.chosen);
}

function commandPicker(panel) {
  const lang = panel.page.lang;
  const select = node("select", { id: "whatif-command" });
  select.addEventListener("change", () => {
    panel.chosen = select.value;
    drawAmendment(panel);
  });
  return node("div", {}, node("label", { for: "whatif-command" }, t(lang, "whatIfPick")), " ", select);
}

function drawCommands(panel) {
  const { page } = panel;
  const select = panel.host.querySelector("#whatif-command");
  if (!select) return;
  panel.seen = page.events.length;
  const names = new Map(((page.live && page.live.combatants) || []).map((c) => [c.combatant_id, c.name]));
  const choices = [node("option", { value: "" }, t(page.lang, "whatIfNoAmendment"))];
  for (const c of recorded(page)) {
    const who = c.payload.combatant_id || c.payload.unit_id || c.payload.defender;
    const words = `#${c.index} · v${c.version} · ${commandWord(panel.page.lang, c.type)}${who ? ` · ${names.get(who) || who}` : ""}`;
    // Chosen by the version that recorded it: an index would shift as the list grows.
    const option = node("option", { value: String(c.version) }, words);
    option.selected = String(c.version) === panel.chosen;
    choices.push(option);
  }
  select.replaceChildren(...choices);
  drawAmendment(panel);
}

function drawAmendment(panel) {
  const host = panel.host.querySelector("#whatif-amend");
  if (!host) return;
  const found = chosenCommand(panel);
  if (!found) {
    host.replaceChildren();
    return;
  }
  if (host.dataset.index === panel.chosen && host.dataset.lang === panel.page.lang) return; // keep edits
  host.dataset.index = panel.chosen;
  host.dataset.lang = panel.page.lang;
  const schema = panel.form.command_schemas[found.type];
  const legend = `${t(panel.page.lang, "whatIfAmend")}: #${found.index} ${commandWord(panel.page.lang, found.type)}`;
  const edited = panel.edited && panel.edited.index === panel.chosen ? panel.edited.payload : found.payload;
  const combatants = (panel.page.live && panel.page.live.combatants) || [];
  host.replaceChildren(formFor(schema, edited, { legend, prefix: "whatif-field", combatants, lang: panel.page.lang }));
  fit(host);
}

async function run(panel, result) {
  const { page } = panel;
  const lang = page.lang;
  const body = { options: changedOptions(panel) };
  const amend = panel.host.querySelector("#whatif-amend fieldset");
  if (panel.chosen !== "" && amend) {
    try {
      body.amendment = { command: chosenCommand(panel).index, payload: readForm(amend) };
    } catch (error) {
      result.replaceChildren(node("p", { role: "alert" }, `${t(lang, "badJson")} ${error.message}`));
      return;
    }
  }
  result.replaceChildren(node("p", {}, t(lang, "loading")));
  try {
    panel.answer = await post(`/v1/encounters/${page.id}/replay`, body);
    result.replaceChildren(...replayInWords(panel.answer, page, lang));
  } catch (error) {
    panel.answer = null;
    const text = error instanceof ApiError && error.status === 404 ? t(lang, "notAvailable") : error.message;
    result.replaceChildren(node("p", { role: "alert" }, text));
  }
}
