// The house rules at the table: the ones this encounter runs under, and for the GM a form of
// the campaign's house rules built from the ruleset's options schema (each Interpretation of
// RULES.md with its default), sent as the campaign's new options.

import { get, put } from "./api.js";
import { node } from "./dom.js";
import { fieldWord, playWord } from "./i18n.js";
import { fieldControl } from "./playfields.js";

export function drawHouseRules(page, say) {
  const playable = page.playable;
  if (!playable || !playable.options_schema.properties) return null;
  const lang = page.lang;
  const schema = playable.options_schema;
  const inForce = { ...defaults(schema), ...playable.options };
  const list = node("dl", { class: "facts" }, ...Object.entries(inForce).flatMap(([name, value]) => [
    node("dt", {}, fieldWord(lang, name, schema.properties[name] && schema.properties[name].title)),
    node("dd", {}, String(value)),
  ]));
  const parts = [node("summary", {}, playWord(lang, "optionsInForce")), list];
  if (page.me && page.me.role === "gm" && page.live.campaign_id) parts.push(houseRuleForm(page, schema, inForce, say));
  return node("details", { class: "house-rules" }, ...parts);
}

function defaults(schema) {
  return Object.fromEntries(Object.entries(schema.properties).map(([name, field]) => [name, field.default]));
}

function houseRuleForm(page, schema, inForce, say) {
  const lang = page.lang;
  const ctx = { id: "house", lang, encounter: page.live, acting: null, root: schema, pick: () => {} };
  const controls = Object.entries(schema.properties).map(([name, field]) => [
    name, fieldControl(name, { ...field, default: inForce[name] }, false, ctx),
  ]);
  const form = node("form", { class: "play-command", "aria-label": playWord(lang, "changeHouseRules") },
    node("p", { class: "hint" }, playWord(lang, "houseRulesHint")),
    ...controls.map(([, c]) => c.element),
    node("button", { type: "submit" }, playWord(lang, "changeHouseRules")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const options = Object.fromEntries(controls.map(([name, c]) => [name, c.read()]).filter(([, v]) => v !== undefined));
    try {
      const campaign = await get(`/v1/campaigns/${page.live.campaign_id}`);
      await put(`/v1/campaigns/${page.live.campaign_id}/options`, campaign.version, { options });
      say(playWord(lang, "houseRulesSaved"));
    } catch (error) {
      say(error.message);
    }
  });
  return form;
}
