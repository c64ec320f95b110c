import assert from "node:assert/strict";
import { test } from "node:test";

import {
  buildRace,
  frameAt,
  leadChanges,
  losingMove,
  marksOf,
  meetings,
  nextChange,
  previousChange,
  raceClock,
  standingsAt,
  statusWord,
  verdicts,
} from "../../../frontend/static/js/race-replay-model.js";

// Two piles and a foundation: t0 holds A♣ 2♣, t1 holds 3♣ (a toy position: the model never
// asks the rules, it only applies the server's edits).
const deal = {
  cards: 0,
  view: { variant: "queenie", tableau: [["2C", "AC"], ["3C"]], down: [0, 0], foundations: [[]], cells: [], stock: [], waste: [] },
};
const aceHome = [["tableau.0", 1, 1], ["foundations.0", 0, 0, "AC"]];
const aceBack = [["tableau.0", 1, 0, "AC"], ["foundations.0", 0, 1]];
const twoHome = [["tableau.0", 0, 1], ["foundations.0", 1, 0, "2C"]];
const threeHome = [["tableau.1", 0, 1], ["foundations.0", 2, 0, "3C"]];

function racer(name, steps, extra = {}) {
  return {
    id: name.toLowerCase(), name, player: { id: 1, url: "/players/1/" }, place: null, status: "resigned",
    finish_ms: null, done_ms: null, cards: 0, moves: 0, game: "g", analysed: true, losing_frame: null, steps, ...extra,
  };
}

function sample() {
  return buildRace({
    end_ms: 9000,
    deal,
    racers: [
      racer("Ann", [["t0-f0", 1000, 1, aceHome], ["undo", 2000, 0, aceBack], ["t0-f0", 5000, 1, aceHome]], { place: 2, done_ms: 8000, losing_frame: 3 }),
      racer("Bob", [["t0-f0", 3000, 1, aceHome], ["t0-f0", 4000, 2, twoHome], ["t1-f0", 6000, 3, threeHome]], {
        place: 1, status: "won", finish_ms: 6000, done_ms: 6000,
      }),
      racer("Carol", [], { place: 3, done_ms: 9000, analysed: false }),
    ],
  });
}

test("each racer's position at a moment is the last step at or before it", () => {
  const race = sample();
  const [ann, bob, carol] = race.racers;
  assert.equal(frameAt(ann, 0), 0);
  assert.equal(frameAt(ann, 999), 0);
  assert.equal(frameAt(ann, 1000), 1);
  assert.equal(frameAt(ann, 2500), 2);
  assert.deepEqual(ann.frames[2].view.foundations, [[]], "the undo takes the ace back");
  assert.equal(frameAt(bob, 100000), 3);
  assert.equal(frameAt(carol, 5000), 0);
  assert.equal(race.end, 9000);
});

test("the standings: winners by time, then cards home, then who got there first", () => {
  const race = sample();
  const names = (ms) => standingsAt(race, ms).map((s) => s.racer.name);
  assert.deepEqual(names(0), ["Ann", "Bob", "Carol"], "ties fall back to the order of joining");
  assert.deepEqual(names(1500), ["Ann", "Bob", "Carol"]);
  assert.deepEqual(names(3500), ["Bob", "Ann", "Carol"], "Ann's undo gave the ace back");
  assert.deepEqual(names(5500), ["Bob", "Ann", "Carol"]);
  const end = standingsAt(race, 9000);
  assert.deepEqual(end.map((s) => s.racer.name), ["Bob", "Ann", "Carol"]);
  assert.deepEqual(end.map((s) => s.status), ["won", "resigned", "resigned"]);
  assert.equal(standingsAt(race, 5500)[1].status, "playing");
  assert.equal(standingsAt(race, 5500)[1].moves, 1, "a move, an undo and a move: one in effect");
});

test("the lead changes hands when the order's head changes, once someone is ahead", () => {
  const changes = leadChanges(sample()).map((m) => [m.ms, m.racer.name, m.from?.name ?? null]);
  // At 2000 Ann's undo leaves nobody ahead: no change until Bob's first card.
  assert.deepEqual(changes, [[1000, "Ann", null], [3000, "Bob", "Ann"]]);
});

test("marks: cards home, undos, the finish, the end and the losing move, in time order", () => {
  const kinds = marksOf(sample()).map((m) => `${m.ms}:${m.kind}:${m.racer.name}`);
  assert.deepEqual(kinds, [
    "1000:home:Ann", "1000:lead:Ann", "2000:undo:Ann", "3000:home:Bob", "3000:lead:Bob", "4000:home:Bob",
    "5000:home:Ann", "5000:lost:Ann", "6000:home:Bob", "6000:finish:Bob", "8000:end:Ann", "9000:end:Carol",
  ]);
  const said = marksOf(sample()).map((m) => m.text);
  assert.equal(said[0], "Ann: 1 card home");
  assert.equal(said[1], "Ann takes the lead (1 card home)");
  assert.equal(said[5], "Bob: 2 cards home");
});

test("a racer's end: resigned, or why the server resigned them (left the race, idle)", () => {
  const race = sample();
  race.racers[2].resigned_for = "left";
  const ends = () => marksOf(race).filter((m) => m.kind === "end").map((m) => m.text);
  assert.deepEqual(ends(), ["Ann resigned", "Carol left the race"]);
  race.racers[2].resigned_for = "idle";
  assert.deepEqual(ends(), ["Ann resigned", "Carol was resigned as idle"]);
  const words = (ms) => standingsAt(race, ms).map((s) => `${s.racer.name} ${statusWord(s)}`);
  assert.deepEqual(words(8500), ["Bob won", "Ann resigned", "Carol racing"]);
  assert.deepEqual(words(9000), ["Bob won", "Ann resigned", "Carol idle"]);
});

test("one sentence a racer: the losing move named by its cards, a win, a game not yet analysed", () => {
  const race = sample();
  const lost = losingMove(race.racers[0]);
  assert.deepEqual([lost.frame, lost.ms], [3, 5000]);
  assert.equal(lost.sentence, "Ann's 2nd move, A♣ to a foundation, lost the game: before it the deal was still winnable.");
  const said = verdicts(race).map((v) => v.text);
  assert.equal(said[0], "Bob won the deal in 0:06.0 (1st place).");
  assert.match(said[2], /Carol's game is still being analysed/);
});

test("two racers in one position: who got there first", () => {
  const found = meetings(sample());
  assert.equal(found.length, 1);
  assert.equal(found[0].cards, 1);
  assert.equal(found[0].first.name, "Ann");
  assert.match(found[0].text, /Ann got there first, 2\.0 s ahead \(0:01\.0 against 0:03\.0\)/);
  assert.match(found[0].text, /the same position \(1 card home\)/);
});

test("stepping goes to the next or previous change on any board", () => {
  const race = sample();
  assert.equal(nextChange(race, 0), 1000);
  assert.equal(nextChange(race, 1000), 2000);
  assert.equal(nextChange(race, 6000), 9000, "after the last move: the end");
  assert.equal(previousChange(race, 3000), 2000);
  assert.equal(previousChange(race, 1000), 0);
});

test("the race's clock reads m:ss.t", () => {
  assert.equal(raceClock(61_234), "1:01.2");
});
