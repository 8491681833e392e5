// "Copy for CCFolia": the server's clipboard JSON for the sheet, put on the clipboard; where the
// clipboard is not available (an insecure origin, a refused permission) the text is shown
// selected in a read-only box so it can be copied by hand.

import { get } from "./api.js";
import { t } from "./i18n.js";

export async function copyForCcfolia(path, hosts, lang) {
  const piece = await get(path);
  const text = JSON.stringify(piece);
  hosts.text.value = text;
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard here");
    await navigator.clipboard.writeText(text);
    hosts.fallback.hidden = true;
    hosts.status.textContent = `✓ ${t(lang, "copied")}`;
  } catch {
    hosts.fallback.hidden = false;
    hosts.text.focus();
    hosts.text.select();
    hosts.status.textContent = t(lang, "copyFallback");
  }
}
