// The HP ratio a pilot carried out of each scenario (GD-HPS-1/3), as a small inline SVG chart
// beside a table with the same numbers and the ledger's reasons (the accessible reading).

import { node, percent } from "./dom.js";
import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const HEIGHT = 150;
const TOP = 12;
const BOTTOM = 26;
const LEFT = 40;
const STEP = 70;

function el(name, attrs = {}, text = null) {
  const made = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) made.setAttribute(key, String(value));
  if (text !== null) made.textContent = text;
  return made;
}

/** One point per scenario the pilot entered: the ratio out once closed, else the ratio in. */
export function ledgerPoints(rows) {
  return rows
    .filter((r) => r.ratio_out_denominator || r.ratio_in_denominator)
    .map((r) => {
      const closed = Boolean(r.ratio_out_denominator);
      const num = closed ? r.ratio_out_numerator : r.ratio_in_numerator;
      const den = closed ? r.ratio_out_denominator : r.ratio_in_denominator;
      return { row: r, closed, num, den, ratio: num / den };
    });
}

function y(ratio) {
  return TOP + (1 - ratio) * (HEIGHT - TOP - BOTTOM);
}

export function drawHpChart(host, rows, lang) {
  const points = ledgerPoints(rows);
  if (!points.length) {
    host.replaceChildren(node("p", { class: "note" }, t(lang, "noScenarios")));
    return;
  }
  const width = LEFT + STEP * points.length + 10;
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT, role: "img", class: "chart",
    "aria-labelledby": "hp-chart-title hp-chart-desc", "data-points": points.length,
  });
  svg.append(el("title", { id: "hp-chart-title" }, t(lang, "hpHistory")));
  svg.append(el("desc", { id: "hp-chart-desc" }, points.map((p) => `${p.row.scenario_name}: ${percent(p.ratio)}${p.closed ? "" : ` (${t(lang, "inProgress")})`}`).join("; ")));
  for (const mark of [0, 0.5, 1]) {
    svg.append(el("line", { x1: LEFT, x2: width - 4, y1: y(mark), y2: y(mark), stroke: "#c9ced6", "stroke-width": 1 }));
    svg.append(el("text", { x: LEFT - 6, y: y(mark) + 4, "text-anchor": "end", "font-size": 11, fill: "#4a525c", "aria-hidden": "true" }, percent(mark)));
  }
  const at = points.map((p, i) => ({ ...p, x: LEFT + STEP / 2 + i * STEP, y: y(p.ratio) }));
  svg.append(el("polyline", { points: at.map((p) => `${p.x},${p.y}`).join(" "), fill: "none", stroke: "#0b57a4", "stroke-width": 2 }));
  at.forEach((p, i) => {
    const dot = el("circle", {
      class: `point${p.closed ? " closed" : " open"}`, cx: p.x, cy: p.y, r: 5,
      fill: p.closed ? "#0b57a4" : "#ffffff", stroke: "#0b57a4", "stroke-width": 2,
      "data-scenario": p.row.scenario_id, "data-ratio": `${p.num}/${p.den}`,
    });
    dot.append(el("title", {}, `${p.row.scenario_name}: ${p.num}/${p.den} (${percent(p.ratio)})${p.closed ? "" : ` — ${t(lang, "inProgress")}`}`));
    svg.append(dot);
    svg.append(el("text", { x: p.x, y: HEIGHT - 8, "text-anchor": "middle", "font-size": 11, fill: "#16191d", "aria-hidden": "true" }, String(i + 1)));
  });
  host.replaceChildren(svg);
}

function ratioText(num, den) {
  return den ? `${num}/${den} (${percent(num / den)})` : "—";
}

export function drawLedgerTable(host, rows, lang) {
  const head = node("tr", {}, ...["#", t(lang, "scenario"), t(lang, "ratioIn"), t(lang, "ratioOut"), t(lang, "injuries"), t(lang, "why")]
    .map((word) => node("th", { scope: "col" }, word)));
  const body = ledgerPoints(rows).map((p, i) => node(
    "tr", { "data-scenario": p.row.scenario_id },
    node("td", {}, String(i + 1)),
    node("td", {}, p.row.scenario_name || p.row.scenario_id),
    node("td", {}, ratioText(p.row.ratio_in_numerator, p.row.ratio_in_denominator)),
    node("td", {}, p.closed ? ratioText(p.row.ratio_out_numerator, p.row.ratio_out_denominator) : t(lang, "inProgress")),
    node("td", {}, p.row.injury && p.row.injury !== "none" ? p.row.injury : t(lang, "none")),
    node("td", { class: "note" }, p.row.why_out || p.row.why_in || ""),
  ));
  host.replaceChildren(node("caption", { class: "sr-only" }, t(lang, "hpHistory")), node("thead", {}, head), node("tbody", {}, ...body));
}
