import assert from "node:assert/strict";
import { test } from "node:test";

import {
  factsText,
  finishingText,
  isLater,
  minuteLeft,
  phaseAt,
  switchedTo,
  timesMovedText,
} from "../../../frontend/static/js/arena-clock.js";

test("a moment is before the start, up to the end, or after it", () => {
  assert.deepEqual([999, 1000, 1999, 2000].map((t) => phaseAt(t, 1000, 2000)), [
    "upcoming", "running", "running", "ended",
  ]);
});

test("the page goes forward through the phases only", () => {
  assert.ok(isLater("running", "upcoming") && isLater("ended", "upcoming"));
  assert.ok(isLater("ended", "running"));
  assert.ok(!isLater("upcoming", "running") && !isLater("running", "ended"));
  assert.ok(!isLater("running", "running"));
});

test("the last minute is said once, as the countdown enters it", () => {
  assert.equal(minuteLeft("upcoming", 60_400, 59_400), "starts in 1 minute");
  assert.equal(minuteLeft("running", 61_000, 60_000), "ends in 1 minute");
  assert.equal(minuteLeft("running", 59_400, 58_400), null); // said already
  assert.equal(minuteLeft("upcoming", 62_000, 61_000), null); // not yet
  assert.equal(minuteLeft("upcoming", null, 30_000), null); // the page opened in the last minute
  assert.equal(minuteLeft("upcoming", 70_000, 0), null); // a tab held back past the start
});

test("the phases the page goes on to are said", () => {
  assert.equal(switchedTo("running"), "has started");
  assert.equal(switchedTo("ended"), "has ended");
});

test("an ended arena's standings count the races still finishing", () => {
  assert.equal(finishingText(1), "Standings — 1 race still finishing");
  assert.equal(finishingText(3), "Standings — 3 races still finishing");
});

test("an edited arena's line of facts is the server's", () => {
  const arena = {
    game: "Penguin",
    starts_at: Date.UTC(2026, 11, 7, 9, 0),
    ends_at: Date.UTC(2026, 11, 7, 9, 45),
    race_time_limit_s: 300,
    visibility: "public",
  };
  assert.equal(factsText(arena, "UTC"), "Penguin · Mon 7 Dec, 09:00 to 09:45 UTC · races of 5 min");
  assert.equal(
    factsText({ ...arena, visibility: "link", race_time_limit_s: 120 }, "UTC"),
    "Penguin · Mon 7 Dec, 09:00 to 09:45 UTC · races of 2 min · only by link",
  );
  assert.equal(
    factsText(arena, "Europe/Paris"),
    "Penguin · Mon 7 Dec, 10:00 to 10:45 your time · races of 5 min",
  );
});

test("the times an edit moved are said, and nothing when it moved none", () => {
  const before = { starts: Date.UTC(2026, 11, 7, 9, 0), ends: Date.UTC(2026, 11, 7, 9, 30) };
  const later = { ...before, ends: Date.UTC(2026, 11, 7, 9, 45) };
  assert.equal(timesMovedText(before, later, "UTC"), "now ends at 09:45 UTC");
  assert.equal(timesMovedText(before, later, "Asia/Kolkata"), "now ends at 15:15 your time");
  const both = { starts: Date.UTC(2026, 11, 7, 10, 0), ends: Date.UTC(2026, 11, 7, 10, 30) };
  assert.equal(
    timesMovedText(before, both, "UTC"),
    "now starts at Mon 7 Dec, 10:00 and ends at 10:30 UTC",
  );
  assert.equal(timesMovedText(before, { ...before }, "UTC"), null);
});
