// Unit tests of the race page's model (node --test; run by tests/browser/test_js_modules.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { lobbyLine, RaceModel, standingOrder, statusLabel, waitingLine } from "../../../frontend/static/js/race-state.js";

const racer = (id, cards, cardsAtMs, status = "playing", finishMs = null) => ({
  id, name: id, cards, cards_at_ms: cardsAtMs, moves: 0, status, finish_ms: finishMs,
});

function running(racers) {
  const model = new RaceModel();
  model.apply({
    type: "snapshot", event: 4, race: { status: "started" }, racers,
    standings: racers.map((r) => r.id), you: { racer: null },
  });
  return model;
}

test("winners come first by finishing time, then most cards, then who got there first", () => {
  const order = standingOrder([
    racer("ann", 10, 500),
    racer("bob", 52, 900, "won", 90000),
    racer("cid", 12, 700),
    racer("dee", 12, 600),
    racer("eve", 52, 800, "won", 80000),
  ]);
  assert.deepEqual(order, ["eve", "bob", "dee", "cid", "ann"]);
});

test("a racer's status in words: one the server resigned says why (left, idle)", () => {
  assert.equal(statusLabel(racer("ann", 3, 0)), "Playing");
  assert.equal(statusLabel(racer("bob", 3, 0, "resigned")), "Resigned");
  assert.equal(statusLabel({ ...racer("cid", 3, 0, "resigned"), resigned_for: "left" }), "Left");
  assert.equal(statusLabel({ ...racer("eve", 3, 0, "resigned"), resigned_for: "idle" }), "Idle");
  assert.equal(statusLabel(racer("dee", 3, 0, "out_of_time")), "Out of time");
});

test("a racer who is done is told whom the race waits for, and the idle rule's bound on it", () => {
  const ann = racer("Ann", 52, 0, "won", 90_000);
  const bob = racer("Bob", 20, 0, "playing");
  const cat = racer("Cat", 12, 0, "resigned");
  assert.equal(
    waitingLine([ann, bob, cat], 60),
    "Bob is the last one racing: the race ends when they are done, or after 60 s without a move.",
  );
  assert.equal(waitingLine([ann, { ...bob, status: "won" }, cat], 60), "The others play on."); // none still
  assert.equal(waitingLine([ann, { ...bob, status: "stuck" }, cat], 60).startsWith("Bob is the last"), true);
  assert.equal(waitingLine([ann, bob, cat], null), "The others play on."); // no rule on this page
});

test("a racer who is done reads that several still racing end the race by idling together", () => {
  const ann = racer("Ann", 52, 0, "won", 90000);
  const still = [racer("Bob", 20, 0), racer("Cat", 12, 0, "stuck"), racer("Dee", 9, 0)];
  assert.equal(
    waitingLine([ann, ...still.slice(0, 2)], 60),
    "Bob and Cat still race: the race ends when they are done, or once none of them has made a move for 60 s.",
  );
  assert.equal(waitingLine([ann, ...still], 60).startsWith("Bob, Cat, and Dee still race:"), true);
});

test("the page notes when it saw another racer's moves change, for the idle clock", () => {
  const model = running([racer("ann", 0, 0), racer("bob", 0, 0)]);
  model.race.starts_at = 1_000_000;
  model.apply({ type: "progress", at_ms: 4000, racers: [{ id: "bob", cards: 0, cards_at_ms: 0, moves: 0, status: "playing" }] });
  assert.equal(model.movedAt.has("bob"), false); // the same count: no move
  model.apply({ type: "progress", at_ms: 5000, racers: [{ id: "bob", cards: 1, cards_at_ms: 4900, moves: 1, status: "playing" }] });
  assert.equal(model.movedAt.get("bob"), 1_005_000);
  model.apply({ type: "progress", at_ms: 9000, racers: [{ id: "bob", cards: 1, cards_at_ms: 4900, moves: 2, status: "stuck", at_ms: 8000 }] });
  assert.equal(model.movedAt.get("bob"), 1_008_000); // figures read on another server, as of 8 s
  model.apply({ type: "snapshot", event: 5, race: model.race, racers: [...model.racers.values()], standings: ["bob", "ann"], you: { racer: null } });
  assert.equal(model.movedAt.get("bob"), 1_008_000); // kept across the race's snapshots
});

test("ties keep the order of joining", () => {
  assert.deepEqual(standingOrder([racer("b", 0, 0), racer("a", 0, 0)]), ["b", "a"]);
});

test("a live progress frame moves racers and the standings, and is not a gap", () => {
  const model = running([racer("ann", 0, 0), racer("bob", 0, 0)]);
  const live = { type: "progress", racers: [{ id: "bob", cards: 2, cards_at_ms: 300, moves: 5, status: "playing" }] };
  assert.equal(model.apply(live), true);
  assert.equal(model.event, 4);
  assert.deepEqual(model.standings, ["bob", "ann"]);
  assert.equal(model.racers.get("bob").moves, 5);
  assert.equal(model.racers.get("bob").name, "bob");
});

test("a late live frame does not undo a finish", () => {
  const model = running([racer("ann", 52, 900, "won", 90000), racer("bob", 3, 100)]);
  model.apply({ type: "progress", racers: [{ id: "ann", cards: 50, cards_at_ms: 800, moves: 9, status: "playing" }] });
  assert.equal(model.racers.get("ann").status, "won");
  assert.deepEqual(model.standings, ["ann", "bob"]);
});

test("a live frame older than the figures already applied is skipped for that racer", () => {
  const model = running([racer("ann", 0, 0), racer("bob", 0, 0)]);
  const live = (atMs, moves) => ({
    type: "progress", at_ms: atMs,
    racers: [{ id: "ann", cards: 0, cards_at_ms: 0, moves, status: "playing" }],
  });
  model.apply(live(65, 1)); // the tick after Ann's move
  model.apply(live(53, 0)); // a catch-up's frame read before it, arriving after it
  assert.equal(model.racers.get("ann").moves, 1);
  model.apply(live(70, 0)); // her undo, later
  assert.equal(model.racers.get("ann").moves, 0);
});

test("a racer's own at_ms (figures folded in from another server) counts instead of the frame's", () => {
  const model = running([racer("ann", 0, 0), racer("bob", 0, 0)]);
  model.apply({
    type: "progress", at_ms: 2000,
    racers: [{ id: "ann", cards: 0, cards_at_ms: 0, moves: 3, status: "playing" }],
  });
  // Bob's figures read at 1500 on the other server, sent here with this server's tick at 2100,
  // and Ann's older figures folded in the same way: Ann's are skipped, Bob's applied.
  model.apply({
    type: "progress", at_ms: 2100,
    racers: [
      { id: "bob", cards: 1, cards_at_ms: 1400, moves: 2, status: "playing", at_ms: 1500 },
      { id: "ann", cards: 0, cards_at_ms: 0, moves: 2, status: "playing", at_ms: 1900 },
    ],
  });
  assert.equal(model.racers.get("ann").moves, 3);
  assert.equal(model.racers.get("bob").moves, 2);
  assert.equal("at_ms" in model.racers.get("bob"), false);
  assert.deepEqual(model.standings, ["bob", "ann"]);
});

test("a racer an arena places in the countdown joins the racers and the standings, playing", () => {
  const model = new RaceModel();
  const startsAt = 10_000;
  model.apply({
    type: "snapshot", event: 4, race: { status: "started", starts_at: startsAt, ends_at: 70_000 },
    racers: [racer("ann", 0, 0), racer("bob", 0, 0)], standings: ["ann", "bob"], you: { racer: "ann" },
  });
  assert.equal(model.phase(startsAt - 1500), "countdown");
  const joined = { type: "joined", event: 5, racer: racer("cid", 0, 0), standings: ["ann", "bob", "cid"] };
  assert.equal(model.apply(joined), true);
  assert.equal(model.event, 5);
  assert.deepEqual(model.rows().map((row) => [row.place, row.racer.id, row.racer.status]), [
    [1, "ann", "playing"], [2, "bob", "playing"], [3, "cid", "playing"],
  ]);
});

test("the lobby counts who has joined of how many the race holds; a race of one is a solo race", () => {
  assert.equal(lobbyLine(1, 8), "Waiting in the lobby: 1 of 8 players.");
  assert.equal(lobbyLine(2, 2), "Waiting in the lobby: 2 of 2 players.");
  assert.equal(lobbyLine(1, 1), "Waiting in the lobby: a solo race.");
});

test("back after a drop, the moves the catch-up shows are not taken as moves of its moment", () => {
  const model = running([racer("ann", 0, 0), racer("bob", 0, 0), racer("cid", 52, 0, "won", 9000)]);
  model.race.starts_at = 1_000_000;
  model.apply({ type: "progress", at_ms: 5000, racers: [{ id: "bob", cards: 1, cards_at_ms: 4900, moves: 1, status: "playing" }] });
  model.reconnected();
  const live = (atMs, bobMoves) => ({
    type: "progress", at_ms: atMs,
    racers: [
      { id: "ann", cards: 0, cards_at_ms: 0, moves: 0, status: "playing" },
      { id: "bob", cards: 1, cards_at_ms: 4900, moves: bobMoves, status: "playing" },
    ],
  });
  model.apply(live(40_000, 6)); // the catch-up: Bob moved while the page was away, when is unknown
  assert.equal(model.movedAt.get("bob"), 1_005_000); // his last move seen stays: earlier, not later
  assert.equal(model.racers.get("bob").moves, 6);
  model.apply(live(41_000, 7)); // caught up: a move seen now is a move of now
  assert.equal(model.movedAt.get("bob"), 1_041_000);
});
