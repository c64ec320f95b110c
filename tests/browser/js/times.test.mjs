// Unit tests of times.js: waits, and moments in the reader's own zone in the server's formats
// (node --test; run by tests/browser/test_js_modules.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  dateAndTime,
  dateOnly,
  dayTime,
  formatWait,
  localizeTimes,
  timeOfDay,
  zoneName,
} from "../../../frontend/static/js/times.js";

const MONDAY_0905_UTC = Date.parse("2026-12-07T09:05:00Z");

test("a wait reads h:mm:ss, a second begun counting whole, never below zero", () => {
  assert.equal(formatWait((23 * 60 + 41) * 1000), "0:23:41");
  assert.equal(formatWait(1), "0:00:01");
  assert.equal(formatWait(-5), "0:00:00");
  assert.equal(formatWait(26 * 3600 * 1000), "26:00:00");
});

test("a moment reads as the server writes it, in the zone asked for", () => {
  assert.equal(dayTime(MONDAY_0905_UTC, "UTC"), "Mon 7 Dec, 09:05");
  assert.equal(timeOfDay(MONDAY_0905_UTC, "UTC"), "09:05");
  assert.equal(dayTime(MONDAY_0905_UTC, "Asia/Kolkata"), "Mon 7 Dec, 14:35");
  assert.equal(timeOfDay(Date.parse("2026-12-07T23:30:00Z"), "Europe/Paris"), "00:30");
  assert.equal(dayTime(Date.parse("2026-12-07T23:30:00Z"), "Europe/Paris"), "Tue 8 Dec, 00:30");
  assert.equal(dayTime(Date.parse("2026-12-07T03:00:00Z"), "America/New_York"), "Sun 6 Dec, 22:00");
});

test("a moment in a past that may be years back reads with its date, in the zone asked for", () => {
  assert.equal(dateAndTime(MONDAY_0905_UTC, "UTC"), "2026-12-07 09:05");
  assert.equal(dateAndTime(MONDAY_0905_UTC, "Asia/Kolkata"), "2026-12-07 14:35");
  assert.equal(dateAndTime(Date.parse("2026-12-31T23:30:00Z"), "Europe/Paris"), "2027-01-01 00:30");
});

test("a date alone is the reader's day, which may be the day after UTC's", () => {
  assert.equal(dateOnly(MONDAY_0905_UTC, "UTC"), "2026-12-07");
  assert.equal(dateOnly(Date.parse("2026-12-07T10:30:00Z"), "Pacific/Kiritimati"), "2026-12-08");
  assert.equal(dateOnly(Date.parse("2026-12-07T03:00:00Z"), "America/New_York"), "2026-12-06");
});

test("summer time is the day's own, not today's", () => {
  assert.equal(timeOfDay(Date.parse("2026-07-01T12:00:00Z"), "Europe/London"), "13:00");
  assert.equal(timeOfDay(Date.parse("2026-12-01T12:00:00Z"), "Europe/London"), "12:00");
});

test("a time in UTC says so; another zone's is the reader's own", () => {
  assert.equal(zoneName("UTC"), "UTC");
  assert.equal(zoneName("Etc/UTC"), "UTC");
  assert.equal(zoneName("Europe/Paris"), "your time");
});

/** A page of `<time>` and `[data-zone]` nodes, as querySelectorAll would find them. */
function page(times, zones) {
  return {
    querySelectorAll: (selector) => (selector.startsWith("time") ? times : zones),
  };
}

function timeNode(local, iso, text) {
  return {
    dataset: { local },
    title: "",
    textContent: text,
    getAttribute: (name) => (name === "datetime" ? iso : null),
  };
}

test("a page's moments are written again in the reader's zone, the UTC text kept as a title", () => {
  const start = timeNode("day", "2026-12-07T09:05:00+00:00", "Mon 7 Dec, 09:05");
  const end = timeNode("time", "2026-12-07T09:35:00+00:00", "09:35");
  const started = timeNode("date", "2026-12-07T09:05:40+00:00", "2026-12-07 09:05");
  const broken = timeNode("time", "not a time", "as it was");
  const zone = { textContent: "UTC" };
  localizeTimes(page([start, end, started, broken], [zone]), "Asia/Tokyo");
  assert.equal(start.textContent, "Mon 7 Dec, 18:05");
  assert.equal(start.title, "Mon 7 Dec, 09:05 UTC");
  assert.equal(end.textContent, "18:35");
  assert.equal(started.textContent, "2026-12-07 18:05");
  assert.equal(started.title, "2026-12-07 09:05 UTC");
  assert.equal(broken.textContent, "as it was");
  assert.equal(zone.textContent, "your time");
});
