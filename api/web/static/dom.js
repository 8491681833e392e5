// Small DOM helpers shared by the sheet page and the board's panels.

export function node(tag, attrs = {}, ...children) {
  const made = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") made.className = value;
    else made.setAttribute(key, String(value));
  }
  made.append(...children.filter((c) => c !== null && c !== undefined));
  return made;
}

export function percent(ratio) {
  return `${Math.round(ratio * 100)}%`;
}

/**
 * An HP bar readable by a screen reader (role=meter with its bounds) and by eye (the numbers
 * beside it), whose fill keeps ≥ 4.5:1 against its track (colours in table.css).
 */
export function hpMeter(label, hp, max, word = "HP") {
  const ratio = max > 0 ? Math.max(0, Math.min(1, hp / max)) : 0;
  const fill = node("div", { class: `hp-fill${ratio <= 0.25 ? " low" : ""}` });
  fill.style.width = percent(ratio);
  const track = node("div", {
    class: "hp-track", role: "meter", "aria-valuemin": 0, "aria-valuemax": max,
    "aria-valuenow": Math.max(0, hp), "aria-label": label,
  }, fill);
  return node("div", { class: "hp" }, node("span", {}, word), track,
    node("span", {}, `${hp}/${max} (${percent(ratio)})`));
}
