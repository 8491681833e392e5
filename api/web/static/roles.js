// Who the token is (GET /v1/me) and what the page may offer it. Kept in memory only: the token
// itself is in sessionStorage, nothing about the caller outlives the tab.

import { get } from "./api.js";
import { node } from "./dom.js";
import { t } from "./i18n.js";

const ME = "/v1/me";
const $ = (id) => document.getElementById(id);

/** May this token do `what`? Without /v1/me on the server, show all: the server still refuses. */
export function can(page, what) {
  return !page.me || page.me.may.includes(what);
}

export async function loadMe(page, say) {
  page.me = null;
  if (!page.offers.has(ME)) return;
  try {
    page.me = await get(ME);
  } catch (error) {
    say(error.message);
  }
}

/** "Signed in as …", read-only when so, and links to the sheets of the caller's characters. */
export function drawMe(page) {
  const me = page.me;
  $("me").hidden = !me;
  if (!me) return;
  const lang = page.lang;
  const who = me.member_id ? `${me.member_id} (${me.role})` : me.role;
  const parts = [`${t(lang, "signedInAs")} ${who} — ${me.campaign_name}`];
  if (!me.may.includes("command") && !me.may.includes("dispute")) parts.push(t(lang, "readOnly"));
  $("me-who").textContent = parts.join(". ");
  // The campaign's roll log (a table roll, a secret roll): the roll-log page opens one there.
  Object.assign($("me-rolls"), { href: `/table/campaigns/${me.campaign_id}/rolls`, hidden: false });
  $("me-characters").setAttribute("aria-label", t(lang, "yourCharacters"));
  $("me-characters").replaceChildren(...me.characters.map((c) => node(
    "li", {}, node("a", { href: `/table/characters/${c.id}` }, `${t(lang, "sheet")}: ${c.name}`),
  )));
}
