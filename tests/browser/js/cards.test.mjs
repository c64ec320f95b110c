// Unit tests of cards.js's counts: one card is "1 card", one move "1 move" (node --test; run by
// tests/browser/test_js_modules.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cardCount, moveCount } from "../../../frontend/static/js/cards.js";

test("one card is '1 card', any other number 'cards'", () => {
  assert.equal(cardCount(1), "1 card");
  assert.equal(cardCount(0), "0 cards");
  assert.equal(cardCount(2), "2 cards");
  assert.equal(cardCount(52), "52 cards");
});

test("one move is '1 move', any other number 'moves'", () => {
  assert.equal(moveCount(1), "1 move");
  assert.equal(moveCount(0), "0 moves");
  assert.equal(moveCount(2), "2 moves");
  assert.equal(moveCount(140), "140 moves");
});
