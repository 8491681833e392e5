// One input per field of a command's JSON schema (from /playable, i.e. the ruleset's own
// command declaration): enum → select, integer → number with its bounds, boolean → checkbox,
// a combatant's id → a select of names, a square → picked on the board, a path → squares
// clicked in order, a weapon or item → the names on the sheet. Every input has a label.

import { node } from "./dom.js";
import { fieldWord } from "./i18n.js";

// Fields that name a combatant (or unit) in any ruleset's commands.
const COMBATANT_FIELDS = new Set(["combatant_id", "unit_id", "target", "defender", "borrower", "representative", "after"]);
const SHEET_LISTS = { weapon: "weapons", item: "items", skill: "skills", armor: "armor" };

/** The field's schema with `$ref` resolved and an `anyOf [X, null]` read as an optional X. */
export function resolve(schema, root) {
  let found = schema;
  let optional = false;
  if (found.anyOf) {
    const real = found.anyOf.filter((s) => s.type !== "null");
    optional = real.length < found.anyOf.length;
    found = { ...real[0], description: found.description, default: found.default };
  }
  if (found.$ref) found = { ...root.$defs[found.$ref.split("/").pop()], description: found.description };
  if (found.type === "array" && found.items) found = { ...found, items: resolve(found.items, root).schema };
  return { schema: found, optional };
}

function isSquare(schema) {
  return schema && schema.type === "object" && schema.properties && "x" in schema.properties && "y" in schema.properties;
}

/** What kind of control a field needs. */
export function kindOf(name, schema) {
  if (isSquare(schema)) return "square";
  if (schema.type === "array" && isSquare(schema.items)) return "squares";
  if (schema.type === "array" && name === "surprising") return "combatants";
  if (schema.enum) return "enum";
  if (schema.type === "integer" || schema.type === "number") return "number";
  if (schema.type === "boolean") return "boolean";
  if (schema.type === "string" && COMBATANT_FIELDS.has(name)) return "combatant";
  if (schema.type === "array") return "list";
  if (schema.type === "object") return "json";
  return "text";
}

function sheetNames(combatant, name) {
  const list = combatant && combatant.sheet && combatant.sheet[SHEET_LISTS[name]];
  if (Array.isArray(list)) return list.map((x) => (typeof x === "string" ? x : x && x.name)).filter(Boolean);
  if (list && typeof list === "object") return Object.keys(list);
  return [];
}

function option(value, text, selected = false) {
  const made = node("option", { value }, text);
  made.selected = selected;
  return made;
}

/**
 * A labelled control for one field. `ctx`: {id, lang, encounter, acting (combatant), pick}
 * where `pick(kind, onSquare)` asks the board for squares. Returns {element, read} where
 * `read()` gives the value to send (undefined: leave the field out).
 */
export function fieldControl(name, raw, required, ctx) {
  const { schema, optional } = resolve(raw, ctx.root);
  const kind = kindOf(name, schema);
  const id = `${ctx.id}-${name}`;
  const label = node("label", { for: id }, fieldWord(ctx.lang, name, schema.title));
  // A field's description is English (the command's declaration): an English table's hint.
  const hint = schema.description && ctx.lang !== "ja" ? node("span", { class: "hint" }, ` ${schema.description}`) : null;
  let input;
  let read;
  if (kind === "enum" || kind === "combatant" || kind === "combatants") {
    input = node("select", { id, name, "data-field": name, "data-kind": kind });
    if (kind === "combatants") input.multiple = true;
    else if (optional || !required) input.append(option("", "—"));
    const choices = kind === "enum"
      ? schema.enum.map((v) => [v, v])
      : ctx.encounter.combatants.map((c) => [c.combatant_id, c.name]);
    for (const [value, text] of choices) input.append(option(value, text, value === schema.default));
    read = () => (kind === "combatants" ? [...input.selectedOptions].map((o) => o.value) : input.value || undefined);
  } else if (kind === "number") {
    input = node("input", { id, name, type: "number", step: 1, "data-field": name });
    if (typeof schema.minimum === "number") input.min = schema.minimum;
    if (typeof schema.maximum === "number") input.max = schema.maximum;
    if (schema.default !== undefined && schema.default !== null) input.value = schema.default;
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (kind === "boolean") {
    input = node("input", { id, name, type: "checkbox", "data-field": name });
    input.checked = schema.default === true;
    read = () => input.checked;
  } else if (kind === "square" || kind === "squares") {
    return squareControl(name, kind, id, label, required, ctx);
  } else if (kind === "json") {
    input = node("textarea", { id, name, rows: 2, "data-field": name }, "{}");
    read = () => JSON.parse(input.value || "{}");
  } else {
    input = node("input", { id, name, type: "text", autocomplete: "off", "data-field": name });
    if (schema.maxLength) input.maxLength = schema.maxLength;
    const names = sheetNames(ctx.acting, name);
    if (names.length) {
      input.setAttribute("list", `${id}-names`);
      input.value = names[0];
    } else if (typeof schema.default === "string") input.value = schema.default;
    if (kind === "list") read = () => (input.value.trim() ? input.value.split(",").map((s) => s.trim()).filter(Boolean) : undefined);
    else read = () => (input.value === "" && !required ? undefined : input.value);
    const list = names.length ? node("datalist", { id: `${id}-names` }, ...names.map((n) => option(n, n))) : null;
    if (required && kind === "text") input.required = true;
    return { element: node("div", { class: "field" }, label, input, list, hint), read };
  }
  if (required && kind !== "boolean" && kind !== "combatants") input.required = true;
  return { element: node("div", { class: `field field-${kind}` }, label, input, hint), read };
}

/** A square (or a path of squares) picked on the board; shown as text, cleared by a button. */
function squareControl(name, kind, id, label, required, ctx) {
  let squares = [];
  const shown = node("output", { id, "data-field": name, "aria-live": "polite" }, "—");
  const words = (s) => s.map((q) => `${q.x},${q.y}`).join(" → ") || "—";
  const onSquare = (x, y) => {
    squares = kind === "square" ? [{ x, y }] : [...squares, { x, y }];
    shown.textContent = words(squares);
  };
  const pickButton = node("button", { type: "button", class: "secondary", "data-pick": name }, fieldWord(ctx.lang, "pickOnBoard"));
  pickButton.addEventListener("click", () => ctx.pick(onSquare));
  const clear = node("button", { type: "button", class: "secondary" }, fieldWord(ctx.lang, "clear"));
  clear.addEventListener("click", () => {
    squares = [];
    shown.textContent = "—";
  });
  label.removeAttribute("for");
  label.id = `${id}-label`;
  shown.setAttribute("aria-labelledby", `${id}-label`);
  const read = () => {
    if (kind === "square") return squares[0] || undefined;
    return squares.length || required ? squares : undefined;
  };
  const activate = () => ctx.pick(onSquare);
  return { element: node("div", { class: "field field-square" }, label, shown, pickButton, clear), read, activate };
}
