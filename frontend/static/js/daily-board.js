// Today's board, live: every few seconds the page fetches itself and swaps in the fresh table
// and your rank (the server renders rows; this module only replaces them). Past days and
// all-time boards do not change by the minute and are left alone.

const REFRESH_MS = 10_000;
const PARTS = [".board-rows", ".my-rank-slot"];

async function refresh() {
  if (document.visibilityState !== "visible") return;
  try {
    const response = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const selector of PARTS) {
      const now = document.querySelector(selector);
      const next = fresh.querySelector(selector);
      if (now && next && now.innerHTML !== next.innerHTML) now.innerHTML = next.innerHTML;
    }
    document.body.dataset.boardRefreshed = String(Date.now());
  } catch (err) {
    // offline for a moment: the next round tries again
  }
}

if (document.querySelector("[data-live-board]")) setInterval(refresh, REFRESH_MS);
