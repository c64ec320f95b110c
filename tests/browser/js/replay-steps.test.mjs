import assert from "node:assert/strict";
import { test } from "node:test";

import { applyEdits, framesOf } from "../../../frontend/static/js/replay-steps.js";

const deal = {
  variant: "queenie",
  tableau: [["KS"], ["QH", "JC"], []],
  down: [0, 0, 0],
  foundations: [[], ["AD"]],
  cells: [],
  stock: ["2D", "3D", "4D"],
  waste: [],
  moves: 0,
};

test("a move takes cards off one pile and puts them on another; the rest is shared", () => {
  const after = applyEdits(deal, [["tableau.1", 1, 1], ["tableau.2", 0, 0, "JC"], ["moves", 1]]);
  assert.deepEqual(after.tableau, [["KS"], ["QH"], ["JC"]]);
  assert.equal(after.moves, 1);
  assert.equal(after.tableau[0], deal.tableau[0]);
  assert.equal(after.stock, deal.stock);
  assert.deepEqual(deal.tableau, [["KS"], ["QH", "JC"], []], "the position before is left alone");
});

test("a flat list is spliced: a deal from the stock, a foundation gaining a card", () => {
  const after = applyEdits(deal, [["stock", 0, 1], ["foundations.1", 1, 0, "2D"]]);
  assert.deepEqual(after.stock, ["3D", "4D"]);
  assert.deepEqual(after.foundations, [[], ["AD", "2D"]]);
});

test("frames are the deal and then one position a step, with their moves, times and cards", () => {
  const frames = framesOf({
    deal: { ms: 0, cards: 1, view: deal },
    steps: [
      ["t1-t2", 900, 1, [["tableau.1", 1, 1], ["tableau.2", 0, 0, "JC"], ["moves", 1]]],
      ["undo", 1500, 1, [["tableau.1", 1, 0, "JC"], ["tableau.2", 0, 1], ["moves", 0]]],
    ],
  });
  assert.deepEqual(
    frames.map((f) => [f.move, f.ms, f.cards]),
    [[null, 0, 1], ["t1-t2", 900, 1], ["undo", 1500, 1]],
  );
  assert.deepEqual(frames[2].view, deal);
});
