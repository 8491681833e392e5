// What every table page wires alike: the language picker, the token form and "Forget token".

import { forgetToken, saveToken } from "./api.js";
import { translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);

/**
 * `page.lang` follows the picker, then `redraw()` draws the page again; a token given in the
 * form is kept for the tab, then `open()` opens what the page shows; "Forget token" calls
 * `leave()` (close streams, drop state), forgets the token and goes back to /table.
 */
export function wireAccess(page, { open, redraw, leave = () => {} }) {
  $("lang").value = page.lang;
  $("lang").addEventListener("change", () => {
    page.lang = $("lang").value;
    sessionStorage.setItem("senki.lang", page.lang);
    translatePage(page.lang);
    redraw();
  });
  $("access-form").addEventListener("submit", (submitted) => {
    submitted.preventDefault();
    saveToken($("token").value.trim());
    $("token").value = "";
    open();
  });
  $("sign-out").addEventListener("click", () => {
    leave();
    forgetToken();
    location.assign("/table");
  });
}
