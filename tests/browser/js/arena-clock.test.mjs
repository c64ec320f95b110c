import assert from "node:assert/strict";
import { test } from "node:test";

import {
  finishingText,
  isLater,
  minuteLeft,
  phaseAt,
  switchedTo,
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
