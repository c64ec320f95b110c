// Countdowns to the next daily challenge: every <time data-countdown="ISO"> ticks down each
// second (the target is the server's midnight UTC; the page's clock only measures the wait).

import { formatWait } from "./times.js";

function tick() {
  for (const node of document.querySelectorAll("time[data-countdown]")) {
    const target = Date.parse(node.dataset.countdown);
    const left = target - Date.now();
    node.dateTime = node.dataset.countdown;
    if (left <= 0) {
      if (!node.dataset.done) {
        node.dataset.done = "1";
        node.innerHTML = 'now — <a href="/daily/">play it</a>';
      }
    } else {
      node.textContent = formatWait(left);
    }
  }
}

tick();
setInterval(tick, 1000);
