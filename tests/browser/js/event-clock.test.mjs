// Unit tests of event-clock.js: the time left of an arena in its race page's header (node --test;
// run by tests/browser/test_js_modules.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { timeLeftText } from "../../../frontend/static/js/event-clock.js";

test("the time left reads as the arena page's countdown does, to the second", () => {
  assert.equal(timeLeftText((23 * 60 + 41) * 1000), "ends in 0:23:41");
  assert.equal(timeLeftText((23 * 60 + 40) * 1000 + 1), "ends in 0:23:41"); // a second begun
  assert.equal(timeLeftText((60 + 60 * 60) * 1000), "ends in 1:01:00");
  assert.equal(timeLeftText(1), "ends in 0:00:01");
});

test("from the arena's end on, it has ended", () => {
  assert.equal(timeLeftText(0), "ended");
  assert.equal(timeLeftText(-5_000), "ended");
});
