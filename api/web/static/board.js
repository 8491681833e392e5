// The battle map as SVG: terrain and height, occupied squares, combatants by side with their
// size and HP, the path of the last move and the range of the acting combatant's main weapon.

import { resultWords } from "./attack.js";

const NS = "http://www.w3.org/2000/svg";
const CELL = 40;
const MARGIN = 18;

// Fill, and a glyph so terrain never relies on colour alone.
export const TERRAIN = {
  flat: { fill: "#f4f1e8", glyph: "", en: "flat", ja: "平地" },
  rough: { fill: "#d9c9a3", glyph: "∴", en: "rough", ja: "荒地" },
  water: { fill: "#a9cdea", glyph: "≈", en: "water", ja: "水面" },
  forest: { fill: "#9fcb98", glyph: "♣", en: "forest", ja: "森" },
  mountain: { fill: "#b9ab9a", glyph: "▲", en: "mountain", ja: "山" },
  step1: { fill: "#e3ddd0", glyph: "▴1", en: "height ×1", ja: "高低所×1" },
  step2: { fill: "#d1c8b6", glyph: "▴2", en: "height ×2", ja: "高低所×2" },
  step3: { fill: "#bfb39c", glyph: "▴3", en: "height ×3", ja: "高低所×3" },
  barricade: { fill: "#9b9b9b", glyph: "▦", en: "barricade", ja: "バリケード" },
};

const SIDE_COLOUR = { pc: "#0b57a4", enemy: "#a1191f" };
// Other sides (Armor Knights' "red" and "blue", a third party) take these in the order met;
// each keeps ≥ 4.5:1 against white, the token's text.
const PALETTE = ["#0b57a4", "#a1191f", "#1d6b35", "#6a3d9a", "#8a4b08", "#00606b"];
const assigned = new Map();
const STACK_OFFSETS = [[-9, -7], [9, 7], [9, -7], [-9, 7]];

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

export function sideColour(side) {
  if (SIDE_COLOUR[side]) return SIDE_COLOUR[side];
  if (!assigned.has(side)) {
    const taken = new Set(assigned.values());
    assigned.set(side, PALETTE.find((c) => !taken.has(c)) || PALETTE[assigned.size % PALETTE.length]);
  }
  return assigned.get(side);
}

function ems(text) {
  // A CJK character is about 1em wide in the token's bold face, a Latin one about 0.62em.
  return [...text].reduce((sum, ch) => sum + (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 1 : 0.62), 0);
}

/**
 * A label for each combatant's token that tells it apart from every other and fits: the
 * name when short, else its head and its tail (ナイトメアA → ナイA, ナイトメアB → ナイB), else
 * its head and a number. `combatants`: all of the encounter's. Returns id → label.
 */
export function tokenLabels(combatants) {
  const labels = new Map();
  const head = (name, n) => [...name].slice(0, n).join("");
  const tail = (name) => [...name].slice(-1).join("");
  // "戦士 (Fighter)" is 戦士 on a token: a gloss in brackets is for the sheet.
  const bare = (name) => name.replace(/\s*[（(][^（()）]*[)）]\s*$/, "").trim() || name;
  const short = (name) => ([...bare(name)].length <= 3 ? bare(name) : `${head(bare(name), 2)}${tail(bare(name))}`);
  const counts = new Map();
  for (const c of combatants) counts.set(short(c.name), (counts.get(short(c.name)) || 0) + 1);
  const numbered = new Map();
  for (const c of combatants) {
    let label = short(c.name);
    if (counts.get(label) > 1) {
      const n = (numbered.get(label) || 0) + 1;
      numbered.set(label, n);
      label = `${head(bare(c.name), 2)}${n}`;
    }
    labels.set(c.combatant_id, label);
  }
  return labels;
}

/** HP now and at most, when the caller may see them (a hidden enemy's HP is the GM's). */
export function hpOf(combatant) {
  const hp = combatant.status && combatant.status.hp;
  const max = combatant.sheet && combatant.sheet.stats && combatant.sheet.stats.hp;
  if (typeof hp !== "number" || typeof max !== "number" || max <= 0) return null;
  return { hp, max, ratio: Math.max(0, Math.min(1, hp / max)) };
}

function positionOf(combatant) {
  // Glorious Drive and Wizardry say `position`; Armor Knights says `cell`.
  const status = combatant.status || {};
  const sheet = combatant.sheet || {};
  const at = status.position || status.cell || sheet.position || sheet.cell;
  return at ? { x: at.x, y: at.y, z: at.z || 0 } : null;
}

function edgeOf(combatant) {
  const size = combatant.sheet && combatant.sheet.size;
  return typeof size === "number" && size >= 1 ? Math.ceil(size) : 1;
}

function square(x, y) {
  return { x: MARGIN + x * CELL, y: MARGIN + y * CELL };
}

function centre(x, y, edge = 1) {
  const at = square(x, y);
  return { x: at.x + (CELL * edge) / 2, y: at.y + (CELL * edge) / 2 };
}

function drawTerrain(svg, map) {
  const special = new Map((map.squares || []).map((s) => [`${s.x},${s.y}`, s.terrain]));
  const base = map.default_terrain || "flat";
  const layer = el("g", { class: "terrain" });
  for (let y = 0; y < map.height; y += 1) {
    for (let x = 0; x < map.width; x += 1) {
      const kind = special.get(`${x},${y}`) || base;
      const look = TERRAIN[kind] || TERRAIN.flat;
      const at = square(x, y);
      const cell = el("rect", {
        x: at.x, y: at.y, width: CELL, height: CELL, fill: look.fill,
        stroke: "#8a8f99", "stroke-width": 1, "data-terrain": kind, "data-square": `${x},${y}`,
      });
      layer.append(cell);
      if (look.glyph) {
        layer.append(el("text", {
          x: at.x + 4, y: at.y + 13, "font-size": 11, fill: "#16191d", "aria-hidden": "true",
        }, look.glyph));
      }
    }
  }
  svg.append(layer);
}

function drawAxes(svg, map) {
  const layer = el("g", { class: "axes", "font-size": 10, fill: "#4a525c", "aria-hidden": "true" });
  for (let x = 0; x < map.width; x += 1) {
    layer.append(el("text", { x: centre(x, 0).x, y: 12, "text-anchor": "middle" }, String(x)));
  }
  for (let y = 0; y < map.height; y += 1) {
    layer.append(el("text", { x: 9, y: centre(0, y).y + 4, "text-anchor": "middle" }, String(y)));
  }
  svg.append(layer);
}

function drawRange(svg, from, range, map) {
  const layer = el("g", { class: "range", "data-range": range });
  for (let y = 0; y < map.height; y += 1) {
    for (let x = 0; x < map.width; x += 1) {
      const d = Math.abs(x - from.x) + Math.abs(y - from.y);
      if (d === 0 || d > range) continue;
      const at = square(x, y);
      layer.append(el("rect", {
        x: at.x + 2, y: at.y + 2, width: CELL - 4, height: CELL - 4,
        fill: "none", stroke: "#e8a200", "stroke-width": 2, "stroke-dasharray": "4 3",
      }));
    }
  }
  svg.append(layer);
}

function drawPath(svg, start, path) {
  const points = [start, ...path].map((p) => centre(p.x, p.y)).map((p) => `${p.x},${p.y}`);
  svg.append(el("polyline", {
    class: "path", points: points.join(" "), fill: "none", stroke: "#16191d",
    "stroke-width": 3, "stroke-dasharray": "6 4", "marker-end": "url(#arrow)",
  }));
}

function drawCombatant(svg, combatant, acting, crew, stack = { index: 0, count: 1 }, label = combatant.name) {
  const at = positionOf(combatant);
  if (!at) return;
  const edge = edgeOf(combatant);
  const colour = sideColour(combatant.side);
  const group = el("g", {
    class: `token side-${combatant.side}`, "data-combatant": combatant.combatant_id,
  });
  const corner = square(at.x, at.y);
  if (edge > 1) {
    group.append(el("rect", {
      class: "occupied", x: corner.x, y: corner.y, width: CELL * edge, height: CELL * edge,
      fill: colour, "fill-opacity": 0.15, stroke: colour, "stroke-width": 2,
    }));
  } else {
    group.append(el("rect", {
      class: "occupied", x: corner.x + 1, y: corner.y + 1, width: CELL - 2, height: CELL - 2,
      fill: colour, "fill-opacity": 0.12, stroke: "none",
    }));
  }
  // Tokens sharing a square (a pilot beside a core, a hover above) shrink and fan out so each
  // name stays readable; the first keeps the middle.
  const spread = stack.count > 1 ? STACK_OFFSETS[stack.index % STACK_OFFSETS.length] : [0, 0];
  const base = centre(at.x, at.y, edge);
  const mid = { x: base.x + spread[0] * edge, y: base.y + spread[1] * edge };
  const radius = ((CELL * edge) / 2 - 7) * (stack.count > 1 ? 0.55 : 1);
  if (acting) {
    group.append(el("circle", {
      cx: mid.x, cy: mid.y, r: radius + 4, fill: "none", stroke: "#e8a200", "stroke-width": 3,
    }));
  }
  const out = combatant.status && combatant.status.injury && combatant.status.injury !== "none";
  group.append(el("circle", {
    cx: mid.x, cy: mid.y - 3, r: radius, fill: out ? "#ffffff" : colour, stroke: colour,
    "stroke-width": 2,
  }));
  // The label fits inside its circle, whatever its script.
  const size = Math.min(stack.count > 1 ? 9 : 12, (2 * radius - 4) / Math.max(1, ems(label)));
  const core = combatant.sheet && combatant.sheet.body === "assault_core";
  group.append(el("text", {
    x: mid.x, y: mid.y + (core ? -2 : 1), "text-anchor": "middle", "font-size": size.toFixed(1), "font-weight": "bold",
    fill: out ? colour : "#ffffff",
  }, label));
  if (core) {
    // GD-SQ-2a: a standing Assault Core also blocks the square above its own. Its mark sits
    // inside the token, under the label, clear of the acting ring.
    group.append(el("text", { x: mid.x, y: mid.y + 7, "text-anchor": "middle", "font-size": 7, "font-weight": "bold", fill: out ? colour : "#ffffff" }, "AC"));
  }
  if (at.z) {
    group.append(el("text", { x: corner.x + CELL - 3, y: corner.y + 12, "text-anchor": "end", "font-size": 10, fill: "#16191d" }, `z${at.z}`));
  }
  const hp = hpOf(combatant);
  if (hp) {
    const width = CELL * edge - 8;
    const y = corner.y + CELL * edge - 8;
    group.append(el("rect", { class: "token-hp-track", x: corner.x + 4, y, width, height: 5, fill: "#ffffff", stroke: "#16191d", "stroke-width": 0.75 }));
    group.append(el("rect", {
      class: "token-hp-fill", x: corner.x + 4, y, width: width * hp.ratio, height: 5,
      fill: hp.ratio <= 0.25 ? "#8f1116" : "#146c2e",
    }));
  }
  const pilot = crew && crew.unit_id && crew.pilot_hp !== null ? crew : null;
  if (hp && pilot) {
    // GD-HPS-1: the pilot's bar just above the core's, at the ratio they share.
    const width = CELL * edge - 8;
    const y = corner.y + CELL * edge - 14;
    const ratio = pilot.pilot_max_hp > 0 ? Math.max(0, Math.min(1, pilot.pilot_hp / pilot.pilot_max_hp)) : 0;
    group.append(el("rect", { class: "token-pilot-hp-track", x: corner.x + 4, y, width, height: 4, fill: "#ffffff", stroke: "#16191d", "stroke-width": 0.75 }));
    group.append(el("rect", { class: "token-pilot-hp-fill", x: corner.x + 4, y, width: width * ratio, height: 4, fill: "#0b57a4" }));
  }
  group.append(el("title", {}, describeToken(combatant, at, hp, pilot)));
  if (crew) {
    // The token opens the sheet: the core's when it is one, else the pilot's.
    const link = el("a", { href: crew.unit_id ? `/table/units/${crew.unit_id}` : `/table/characters/${crew.character_id}`, class: "token-link" });
    link.append(group);
    svg.append(link);
    return;
  }
  svg.append(group);
}

function describeToken(combatant, at, hp, pilot) {
  const parts = [`${combatant.name} (${combatant.side}) at ${at.x},${at.y}${at.z ? `,${at.z}` : ""}`];
  if (hp) parts.push(`HP ${hp.hp}/${hp.max}`);
  if (pilot) parts.push(`${pilot.pilot_name} HP ${pilot.pilot_hp}/${pilot.pilot_max_hp}`);
  const injury = combatant.status && combatant.status.injury;
  if (injury && injury !== "none") parts.push(injury);
  return parts.join(", ");
}

/**
 * Draw `encounter` into `host`. `move` is the last move of this turn ({combatant, start, path})
 * or null; the acting combatant's weapon range is shown while it may still move or act.
 * `crews`: combatant id → its pilot (from /crews), for the pilot's bar and the sheet link.
 * `attack`: the attack just resolved (attack.js's attackAt), drawn from attacker to targets.
 */
export function drawBoard(host, encounter, move, crews = new Map(), attack = null, lang = "en") {
  const map = { width: 20, height: 20, ...encounter.battle_map };
  const width = MARGIN + map.width * CELL + 2;
  const height = MARGIN + map.height * CELL + 2;
  const point = encounter.procedure;
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": "board-svg-title board-svg-desc",
    "data-version": encounter.version,
  });
  svg.append(el("title", { id: "board-svg-title" }, `Battle map ${map.width}×${map.height}, version ${encounter.version}`));
  const where = encounter.combatants
    .map((c) => ({ c, at: positionOf(c) }))
    .filter((x) => x.at)
    .map((x) => `${x.c.name} ${x.at.x},${x.at.y}`);
  svg.append(el("desc", { id: "board-svg-desc" }, where.join("; ")));
  const defs = el("defs");
  const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
  marker.append(el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#16191d" }));
  const strike = el("marker", { id: "strike", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto" });
  strike.append(el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: ATTACK_COLOUR }));
  defs.append(marker, strike);
  svg.append(defs);
  drawTerrain(svg, map);
  drawAxes(svg, map);
  const acting = encounter.combatants.find((c) => c.combatant_id === point.acting);
  if (acting && (point.step === "move" || point.step === "action")) {
    const weapon = actingWeapon(acting);
    const at = positionOf(acting);
    if (weapon && at) drawRange(svg, at, weapon.range, map);
  }
  if (move && move.path.length) drawPath(svg, move.start, move.path);
  const sharing = new Map();
  for (const combatant of encounter.combatants) {
    const at = positionOf(combatant);
    if (at) sharing.set(`${at.x},${at.y}`, [...(sharing.get(`${at.x},${at.y}`) || []), combatant.combatant_id]);
  }
  const labels = tokenLabels(encounter.combatants);
  const strikes = attack ? drawAttack(svg, encounter, attack, lang) : null;
  for (const combatant of encounter.combatants) {
    const at = positionOf(combatant);
    const here = at ? sharing.get(`${at.x},${at.y}`) : [combatant.combatant_id];
    const stack = { index: here.indexOf(combatant.combatant_id), count: here.length };
    drawCombatant(svg, combatant, combatant.combatant_id === point.acting, crews.get(combatant.combatant_id), stack, labels.get(combatant.combatant_id));
  }
  if (strikes) svg.append(strikes); // the results above the tokens, readable
  host.replaceChildren(svg);
}

const ATTACK_COLOUR = "#b3261e";

/**
 * The attack: a line from the attacker to each target (or to the point of an area attack, its
 * area ringed), and beside each target what came of it. The lines go under the tokens; the
 * returned layer of results is appended above them. Faded once play has moved past it.
 */
function drawAttack(svg, encounter, attack, lang) {
  const byId = new Map(encounter.combatants.map((c) => [c.combatant_id, c]));
  const attacker = byId.get(attack.attacker);
  const from = attacker && positionOf(attacker);
  if (!from) return null;
  const start = centre(from.x, from.y, edgeOf(attacker));
  const opacity = attack.done ? 0.45 : 1;
  const lines = el("g", { class: `attack${attack.done ? " done" : ""}`, "data-attack": attack.version, opacity });
  lines.append(el("title", {}, attack.line));
  const results = el("g", { class: `attack-results${attack.done ? " done" : ""}`, "data-attack": attack.version, opacity });
  const aim = (end) => {
    lines.append(el("line", {
      class: "attack-line", x1: start.x, y1: start.y, x2: end.x, y2: end.y, stroke: ATTACK_COLOUR,
      "stroke-width": 3, "stroke-linecap": "round", "marker-end": "url(#strike)",
    }));
  };
  if (attack.point && attack.area) {
    const at = centre(attack.point.x, attack.point.y);
    aim(at);
    lines.append(el("circle", {
      class: "attack-area", cx: at.x, cy: at.y, r: CELL * (attack.area + 0.5), fill: ATTACK_COLOUR,
      "fill-opacity": 0.08, stroke: ATTACK_COLOUR, "stroke-dasharray": "5 4",
    }));
  }
  for (const t of attack.targets) {
    const defender = byId.get(t.id);
    const to = defender && positionOf(defender);
    if (!to) continue;
    const end = centre(to.x, to.y, edgeOf(defender));
    // Stop short of the target's token, so the arrow head shows.
    const dx = end.x - start.x;
    const dy = end.y - start.y;
    const length = Math.hypot(dx, dy) || 1;
    const short = Math.min(length, (CELL * edgeOf(defender)) / 2);
    if (!(attack.point && attack.area)) aim({ x: end.x - (dx / length) * short, y: end.y - (dy / length) * short });
    const said = resultWords(t, lang);
    if (!said.length) continue;
    const result = el("g", { class: "attack-result", "data-target": t.id, "data-hit": t.hit === null ? "" : String(t.hit) });
    // Above the target's square; below it when the top row leaves no room.
    const above = square(to.x, to.y).y - 4 - 13 * (said.length - 1);
    const top = above >= 12 ? above : square(to.x, to.y).y + CELL * edgeOf(defender) + 12;
    said.forEach((text, i) => {
      result.append(el("text", {
        x: end.x, y: top + 13 * i, "text-anchor": "middle", "font-size": 11, "font-weight": "bold",
        fill: i === 0 && t.hit === false ? "#16191d" : ATTACK_COLOUR, stroke: "#ffffff", "stroke-width": 3,
        "paint-order": "stroke",
      }, text));
    });
    result.append(el("title", {}, t.lines.join(" / ")));
    results.append(result);
  }
  svg.append(lines);
  return results;
}

/**
 * A fight with no positions (the Wizardry-style round) is drawn as it is played: its parties
 * side by side, each member in its rank with its state, the acting one ringed.
 */
export function drawParties(host, encounter, lang, check = null) {
  const sides = [...new Set(encounter.combatants.map((c) => c.side))];
  const COLUMN = 300;
  const ROW = 34;
  const rows = Math.max(1, ...sides.map((side) => encounter.combatants.filter((c) => c.side === side).length));
  const svg = el("svg", {
    viewBox: `0 0 ${COLUMN * Math.max(1, sides.length) + 10} ${ROW * (rows + 1) + 14}`, role: "img",
    "aria-labelledby": "board-svg-title", "data-version": encounter.version, class: "parties",
  });
  svg.append(el("title", { id: "board-svg-title" }, `${lang === "ja" ? "陣営" : "Parties"}, version ${encounter.version}`));
  const labels = tokenLabels(encounter.combatants);
  sides.forEach((side, column) => {
    const x = 10 + column * COLUMN;
    const colour = sideColour(side);
    svg.append(el("text", { x, y: 22, "font-size": 15, "font-weight": "bold", fill: colour }, side));
    encounter.combatants.filter((c) => c.side === side).forEach((c, rank) => {
      const y = 14 + ROW * (rank + 1);
      const s = c.status || {};
      const down = s.collapsed || s.surrendered;
      const group = el("g", { class: `token side-${side}`, "data-combatant": c.combatant_id });
      if (c.combatant_id === encounter.procedure.acting) {
        group.append(el("rect", { x: x - 3, y: y - 3, width: COLUMN - 24, height: ROW - 2, rx: 6, fill: "none", stroke: "#e8a200", "stroke-width": 3 }));
      }
      group.append(el("rect", { x, y, width: COLUMN - 30, height: ROW - 8, rx: 4, fill: down ? "#ffffff" : colour, stroke: colour, "stroke-width": 2 }));
      const marks = [s.collapsed ? (lang === "ja" ? "昏倒" : "collapsed") : null, s.surrendered ? (lang === "ja" ? "降伏" : "surrendered") : null].filter(Boolean);
      group.append(el("text", { x: x + 8, y: y + 17, "font-size": 13, "font-weight": "bold", fill: down ? colour : "#ffffff" },
        `${rank + 1}. ${c.name}${marks.length ? ` — ${marks.join(", ")}` : ""}`));
      group.append(el("title", {}, `${c.name} (${side}, ${labels.get(c.combatant_id)})`));
      if (check && check.combatant === c.combatant_id) {
        // The check just made, beside the one who made it: its total and the GM's ruling.
        const said = el("g", { class: "attack-result check", "data-target": c.combatant_id });
        said.append(el("text", { x: x + COLUMN - 36, y: y + 17, "text-anchor": "end", "font-size": 12, "font-weight": "bold", fill: down ? colour : "#ffffff" }, check.words));
        said.append(el("title", {}, check.lines.join(" / ")));
        group.append(said);
      }
      svg.append(group);
    });
  });
  host.replaceChildren(svg);
}

/** Whether the fight is on squares: a map of its own, or combatants standing on squares (a
 * Wizardry-style round has neither: it is drawn as parties). */
export function hasPositions(encounter) {
  const map = encounter.battle_map || {};
  return typeof map.width === "number" || encounter.combatants.some((c) => positionOf(c));
}

/** The square under a click on the board's SVG (null: outside the map). */
export function squareAt(svg, event, map) {
  const matrix = svg.getScreenCTM();
  if (!matrix) return null;
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
  const x = Math.floor((point.x - MARGIN) / CELL);
  const y = Math.floor((point.y - MARGIN) / CELL);
  const width = map.width || 20;
  const height = map.height || 20;
  return x >= 0 && y >= 0 && x < width && y < height ? { x, y } : null;
}

function actingWeapon(combatant) {
  const sheet = combatant.sheet;
  if (!sheet || !Array.isArray(sheet.weapons)) return null;
  const name = (combatant.status && combatant.status.main_weapon) || sheet.main_weapon;
  const weapon = sheet.weapons.find((w) => w.name === name);
  return weapon && typeof weapon.range === "number" ? weapon : null;
}

export function drawLegend(host, lang) {
  const items = Object.entries(TERRAIN).map(([kind, look]) => {
    const li = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = look.fill;
    li.append(swatch, `${look.glyph ? `${look.glyph} ` : ""}${look[lang] || kind}`);
    return li;
  });
  host.replaceChildren(...items);
}
