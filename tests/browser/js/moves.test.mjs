import assert from "node:assert/strict";
import { test } from "node:test";

import { describeMove, describeMoveCards, describePlayed, formatMove, LegalMoves, parseMove, pileKind } from "../../../frontend/static/js/moves.js";

test("parses the contract's move notation", () => {
  assert.deepEqual(parseMove("t2-t5:3"), { move: "t2-t5:3", deal: false, src: "t2", dst: "t5", count: 3 });
  assert.equal(parseMove("w-t2").src, "w");
  assert.equal(parseMove("c1-t4").count, 1);
  assert.equal(parseMove("t0-f1:13").count, 13);
  assert.equal(parseMove("f2-t1").dst, "t1");
  assert.equal(parseMove("deal").deal, true);
});

test("refuses malformed moves", () => {
  for (const bad of ["t1-t1", "t01-t2", "t1-t2:0", "t1-t2:01", "x1-t2", "t1-w", "t1 -t2", "", "t1-t2:"]) {
    assert.equal(parseMove(bad), null, bad);
  }
});

test("formats a move, dropping :1", () => {
  assert.equal(formatMove("t3", "f0"), "t3-f0");
  assert.equal(formatMove("t3", "f0", 1), "t3-f0");
  assert.equal(formatMove("t2", "t5", 3), "t2-t5:3");
});

test("names pile kinds", () => {
  assert.deepEqual(["t0", "f3", "c6", "w", "stock"].map(pileKind), ["tableau", "foundation", "cell", "waste", "stock"]);
});

test("indexes a legal list by source, count and destination", () => {
  const legal = new LegalMoves(["t2-t5:3", "t2-t4", "t2-f0", "w-t1", "deal"]);
  assert.deepEqual(legal.counts("t2"), [3, 1]);
  assert.deepEqual([...legal.targets("t2", 1)].sort(), ["f0", "t4"]);
  assert.equal(legal.find("t2", "t5", 3), "t2-t5:3");
  assert.equal(legal.find("t2", "t5", 1), null);
  assert.ok(legal.canDeal);
  assert.ok(!new LegalMoves(["t0-t1"]).canDeal);
});

test("describes log entries in words", () => {
  assert.equal(describeMove("t3-f0"), "Pile 4 to foundation 1");
  assert.equal(describeMove("t1-t4:3"), "3 cards from pile 2 to pile 5");
  assert.equal(describeMove("w-t2"), "Waste to pile 3");
  assert.equal(describeMove("deal"), "Dealt from the stock");
  assert.equal(describeMove("undo"), "Move taken back");
});

test("says what an action played: its moves, or a count of many cards sent home", () => {
  assert.equal(describePlayed(["t1-t4:3", "t3-f0"]), "3 cards from pile 2 to pile 5. Pile 4 to foundation 1");
  assert.equal(describePlayed(["t0-f0", "t1-f0", "t2-f1", "t3-f1"]), "4 cards sent to the foundations");
  assert.equal(describePlayed([]), "Nothing to send to the foundations");
});

test("names a hint's move by its cards", () => {
  const name = (code) => code.replace("T", "10").replace("H", "♥").replace("S", "♠").replace("C", "♣");
  const view = { tableau: [["??", "QH"], ["KH"], [], ["??", "TH", "9S"]], foundations: [["AC"]], cells: [null, "7C"], waste: [] };
  assert.equal(describeMoveCards("t0-t1", view, name), "Q♥ onto K♥");
  assert.equal(describeMoveCards("t3-t0:2", view, name), "2 cards from 10♥ onto Q♥");
  assert.equal(describeMoveCards("t0-t2", view, name), "Q♥ to an empty pile");
  assert.equal(describeMoveCards("t1-c0", view, name), "K♥ to a free cell");
  assert.equal(describeMoveCards("c1-f0", view, name), "7♣ to a foundation");
  assert.equal(describeMoveCards("deal", view, name), "Dealt from the stock");
  assert.equal(describeMoveCards("t2-t1", view, name), "Pile 3 to pile 2"); // nothing to name
});
