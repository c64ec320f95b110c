// The arena page's clock as plain rules (js/arena.js runs them): the phase of a moment, and the
// milestones the page says aloud. The countdown itself ticks silently, every second: a live
// region around it had a screen reader read the time left every second.

export const PHASES = ["upcoming", "running", "ended"];

/** The arena's phase at `t` (epoch ms, as `starts` and `ends`). */
export function phaseAt(t, starts, ends) {
  return t < starts ? "upcoming" : t < ends ? "running" : "ended";
}

/** Whether a page that shows phase `shown` goes on to `phase`: forward only, so a clock behind
 * the server's never takes the page back to a phase the server has left. */
export function isLater(phase, shown) {
  return PHASES.indexOf(phase) > PHASES.indexOf(shown);
}

const LAST_MINUTE_MS = 60_000;

/** What to say as the countdown of phase `phase` goes from `before` ms left (null: the first
 * tick) to `left`: "starts in 1 minute" or "ends in 1 minute" as it enters its last minute, once;
 * else null. */
export function minuteLeft(phase, before, left) {
  if (before === null || before <= LAST_MINUTE_MS || left > LAST_MINUTE_MS || left <= 0) {
    return null;
  }
  if (phase === "upcoming") return "starts in 1 minute";
  return phase === "running" ? "ends in 1 minute" : null;
}

/** What to say once the page has gone on to `phase`. */
export function switchedTo(phase) {
  return phase === "running" ? "has started" : "has ended";
}

/** The heading of an ended arena's standings while races under way at its end still count. */
export function finishingText(count) {
  return `Standings — ${count} race${count === 1 ? "" : "s"} still finishing`;
}
