// A small JSON-schema → form helper for the what-if panel: one control per field of a command's
// payload (enum → select, boolean → checkbox, integer/number with bounds → number, a combatant
// → a select of names, string → text), nested objects as fieldsets, anything else as JSON.

import { node } from "./dom.js";
import { label as labelOf } from "./facts.js";

// Fields that name a combatant (the visibility policy's subject keys): picked by name.
const COMBATANT_KEYS = new Set(["combatant_id", "unit_id", "target", "defender", "attacker", "opponent", "representative", "borrower"]);

function resolve(schema, defs) {
  let found = schema || {};
  for (let hops = 0; hops < 8; hops += 1) {
    if (found.$ref) found = defs[found.$ref.split("/").pop()] || {};
    else if (found.allOf && found.allOf.length === 1) found = { ...found.allOf[0], ...found, allOf: undefined };
    else break;
  }
  return found;
}

/** What kind of control a (resolved) field schema gets, and whether null is allowed. */
function kindOf(schema, defs) {
  let nullable = false;
  let inner = resolve(schema, defs);
  if (inner.anyOf) {
    const branches = inner.anyOf.map((b) => resolve(b, defs));
    const real = branches.filter((b) => b.type !== "null");
    nullable = real.length < branches.length;
    if (real.length !== 1) return { kind: "json", schema: inner, nullable };
    inner = { ...real[0], description: inner.description || real[0].description, default: inner.default };
  }
  if (inner.enum || inner.const !== undefined) return { kind: "enum", schema: inner, nullable };
  const kind = { boolean: "boolean", integer: "integer", number: "number", string: "string", object: "object" }[inner.type];
  // An object that may be left out (a target point, an optional position) is typed as JSON:
  // as fields it could not tell "none" from "not filled in yet".
  if (kind === "object" && (!inner.properties || nullable)) return { kind: "json", schema: inner, nullable };
  return { kind: kind || "json", schema: inner, nullable };
}

/**
 * A fieldset for `schema` (a pydantic model's JSON schema) filled with `value`.
 * `options`: {legend, prefix (id prefix), combatants: [{combatant_id, name}]}.
 */
export function formFor(schema, value, options) {
  const defs = schema.$defs || {};
  const box = node("fieldset", { class: "schema-form" }, node("legend", {}, options.legend));
  if (schema.description) box.append(node("p", { class: "hint" }, schema.description.split("\n")[0]));
  appendFields(box, schema, value || {}, "", defs, options);
  return box;
}

function appendFields(box, schema, value, path, defs, options) {
  const required = new Set(schema.required || []);
  for (const [key, field] of Object.entries(schema.properties || {})) {
    const at = path ? `${path}.${key}` : key;
    const { kind, schema: inner, nullable } = kindOf(field, defs);
    const id = `${options.prefix}-${at.replaceAll(".", "-")}`;
    const current = value[key] !== undefined ? value[key] : inner.default;
    if (kind === "object") {
      const nested = node("fieldset", {}, node("legend", {}, labelOf(key, options.lang)));
      appendFields(nested, inner, current || {}, at, defs, options);
      box.append(nested);
      continue;
    }
    const control = controlFor(kind, inner, current, key, options);
    Object.assign(control.dataset, { path: at, kind, nullable: String(nullable), required: String(required.has(key)) });
    control.id = id;
    const named = labelOf(key, options.lang);
    const words = kind === "json" ? `${named} (JSON)` : named;
    const label = node("label", { for: id }, required.has(key) ? `${words} *` : words);
    const hint = inner.description || field.description;
    const row = node("div", { class: "schema-field" }, label, " ", control);
    if (hint) row.append(node("p", { class: "hint" }, hint));
    box.append(row);
  }
}

function controlFor(kind, schema, current, key, options) {
  if (kind === "enum" || (kind === "string" && COMBATANT_KEYS.has(key) && options.combatants)) {
    const choices = kind === "enum"
      ? (schema.enum || [schema.const]).map((v) => [v, String(v).replaceAll("_", " ")])
      : options.combatants.map((c) => [c.combatant_id, `${c.name} (${c.combatant_id})`]);
    if (current !== undefined && current !== null && !choices.some(([v]) => v === current)) choices.unshift([current, String(current)]);
    const select = node("select", {}, node("option", { value: "" }, "—"));
    for (const [v, words] of choices) {
      const option = node("option", { value: kind === "enum" ? JSON.stringify(v) : String(v) }, words);
      option.selected = v === current;
      select.append(option);
    }
    return select;
  }
  if (kind === "boolean") {
    const box = node("input", { type: "checkbox" });
    box.checked = Boolean(current);
    return box;
  }
  if (kind === "integer" || kind === "number") {
    const input = node("input", { type: "number", step: kind === "integer" ? "1" : "any" });
    for (const [bound, attr] of [["minimum", "min"], ["maximum", "max"], ["exclusiveMinimum", "min"], ["exclusiveMaximum", "max"]]) {
      if (schema[bound] !== undefined) input.setAttribute(attr, String(schema[bound]));
    }
    input.value = current === undefined || current === null ? "" : String(current);
    return input;
  }
  if (kind === "string") {
    const input = node("input", { type: "text" });
    if (schema.maxLength !== undefined) input.maxLength = schema.maxLength;
    input.value = current === undefined || current === null ? "" : String(current);
    input.style.width = "100%";
    return input;
  }
  const area = node("textarea", { rows: "3" });
  area.value = current === undefined || current === null ? "" : JSON.stringify(current);
  return area;
}

function readControl(control) {
  const { kind } = control.dataset;
  if (kind === "boolean") return control.checked;
  const text = control.value.trim();
  if (text === "") return undefined;
  if (kind === "integer" || kind === "number") return Number(text);
  if (kind === "json") return JSON.parse(text); // a SyntaxError says where; the caller shows it
  if (kind === "enum") return JSON.parse(text); // option values hold the JSON of each choice
  return control.value;
}

/** The payload the fieldset holds: empty optional fields left out (their defaults apply). */
export function readForm(box) {
  const payload = {};
  for (const control of box.querySelectorAll("[data-path]")) {
    let read = readControl(control);
    if (read === undefined) {
      if (control.dataset.nullable === "true" && control.dataset.required === "true") read = null;
      else if (control.dataset.required === "true" && control.dataset.kind === "string") read = "";
      else continue;
    }
    const keys = control.dataset.path.split(".");
    let at = payload;
    for (const key of keys.slice(0, -1)) at = at[key] = at[key] || {};
    at[keys[keys.length - 1]] = read;
  }
  return payload;
}
