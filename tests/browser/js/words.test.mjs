// Unit tests of words.js, the one way the pages' scripts say a count or a place (node --test; run
// by tests/browser/test_js_modules.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { counted, noun, ordinal } from "../../../frontend/static/js/words.js";

test("one of a thing takes the singular, any other number the plural", () => {
  assert.equal(counted(1, "race", "races"), "1 race");
  assert.equal(counted(2, "race", "races"), "2 races");
  assert.equal(counted(120, "player", "players"), "120 players");
});

test("none of a thing is plural, as English says it", () => {
  assert.equal(counted(0, "point", "points"), "0 points");
});

test("a plural that is not the singular and an s is given whole", () => {
  assert.equal(counted(1, "entry", "entries"), "1 entry");
  assert.equal(counted(3, "entry", "entries"), "3 entries");
});

test("the noun alone, for a page that writes the number apart", () => {
  assert.equal(noun(1, "move", "moves"), "move");
  assert.equal(noun(0, "move", "moves"), "moves");
  assert.equal(noun(40, "card", "cards"), "cards");
});

test("places read as English ordinals, the teens' too", () => {
  const places = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 41, 101, 111, 112];
  assert.deepEqual(places.map(ordinal), [
    "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "41st", "101st",
    "111th", "112th",
  ]);
});
