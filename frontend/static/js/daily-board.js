// Today's board, live: every few seconds the page fetches itself and swaps in the fresh table
// and your rank (the server renders rows; this module only replaces them). Past days and
// all-time boards do not change by the minute and are left alone.

import { replaceKeepingFocus } from "./dom.js";

const REFRESH_MS = 10_000;
const PARTS = [".board-rows", ".my-rank-slot"];

/** Put `next`'s rows in `now`'s place; a link of `now` that had the focus (a keyboard user
 * going down the board) has it again in the new rows (dom.js `replaceKeepingFocus`). While the
 * focused element has no twin in them (its row left the page), the old rows stay until the focus
 * moves on. */
function swap(now, next) {
  const focused = now.contains(document.activeElement) ? document.activeElement : null;
  const href = focused?.getAttribute("href");
  if (focused && !(href && next.querySelector(`a[href="${CSS.escape(href)}"]`))) return;
  replaceKeepingFocus(now, [...next.childNodes]);
}

async function refresh() {
  if (document.visibilityState !== "visible") return;
  try {
    const response = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const selector of PARTS) {
      const now = document.querySelector(selector);
      const next = fresh.querySelector(selector);
      if (now && next && now.innerHTML !== next.innerHTML) swap(now, next);
    }
    document.body.dataset.boardRefreshed = String(Date.now());
  } catch (err) {
    // offline for a moment: the next round tries again
  }
}

if (document.querySelector("[data-live-board]")) setInterval(refresh, REFRESH_MS);
