// Countdowns to the next daily challenge: every <time data-countdown="ISO"> ticks down each
// second (the target is the server's midnight UTC; the page's clock only measures the wait).

const pad = (n) => String(n).padStart(2, "0");

export function formatWait(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h}:${pad(m)}:${pad(s)}`;
}

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
