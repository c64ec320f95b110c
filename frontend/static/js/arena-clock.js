// The arena page's clock as plain rules (js/arena.js runs them): the phase of a moment, and the
// milestones the page says aloud. The countdown itself ticks silently, every second: a live
// region around it had a screen reader read the time left every second.

import { dayTime, readerZone, timeOfDay, zoneName } from "./times.js";
import { counted } from "./words.js";

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
  return `Standings — ${counted(count, "race", "races")} still finishing`;
}

/** The page's line of facts about the arena, from an `edited` frame, as the server writes it
 * (arenas/arena.html): its game, its start and end in the reader's zone (js/times.js), its races'
 * limit, and whether it is only by link. */
export function factsText(arena, timeZone = readerZone()) {
  const minutes = Math.round(arena.race_time_limit_s / 60);
  const link = arena.visibility === "link" ? " · only by link" : "";
  const start = dayTime(arena.starts_at, timeZone);
  const times = `${start} to ${timeOfDay(arena.ends_at, timeZone)} ${zoneName(timeZone)}`;
  return `${arena.game} · ${times} · races of ${minutes} min${link}`;
}

/** What to say when an admin moved the arena's start or end (`before`, `after`: `starts` and
 * `ends` in epoch ms): "now starts at …" and/or "ends at …", in the reader's zone; null if
 * neither moved. */
export function timesMovedText(before, after, timeZone = readerZone()) {
  const moved = [];
  if (after.starts !== before.starts) moved.push(`starts at ${dayTime(after.starts, timeZone)}`);
  if (after.ends !== before.ends) moved.push(`ends at ${timeOfDay(after.ends, timeZone)}`);
  return moved.length ? `now ${moved.join(" and ")} ${zoneName(timeZone)}` : null;
}
