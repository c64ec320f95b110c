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

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function twoDigits(n) {
  return String(n).padStart(2, "0");
}

/** `t` (epoch ms) in UTC as the page's server writes a time: "09:05" (Django's "H:i"). */
export function utcTime(t) {
  const d = new Date(t);
  return `${twoDigits(d.getUTCHours())}:${twoDigits(d.getUTCMinutes())}`;
}

/** `t` with its day, as the server writes a start: "Mon 7 Dec, 09:05" ("D j M, H:i"). */
export function utcDayTime(t) {
  const d = new Date(t);
  return `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${utcTime(t)}`;
}

/** The page's line of facts about the arena, from an `edited` frame, as the server writes it
 * (arenas/arena.html): its game, its start and end in UTC, its races' limit, and whether it is
 * only by link. */
export function factsText(arena) {
  const minutes = Math.round(arena.race_time_limit_s / 60);
  const link = arena.visibility === "link" ? " · only by link" : "";
  const times = `${utcDayTime(arena.starts_at)} to ${utcTime(arena.ends_at)} UTC`;
  return `${arena.game} · ${times} · races of ${minutes} min${link}`;
}

/** What to say when an admin moved the arena's start or end (`before`, `after`: `starts` and
 * `ends` in epoch ms): "now starts at …" and/or "ends at …", in UTC; null if neither moved. */
export function timesMovedText(before, after) {
  const moved = [];
  if (after.starts !== before.starts) moved.push(`starts at ${utcDayTime(after.starts)}`);
  if (after.ends !== before.ends) moved.push(`ends at ${utcTime(after.ends)}`);
  return moved.length ? `now ${moved.join(" and ")} UTC` : null;
}
