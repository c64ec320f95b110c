import assert from "node:assert/strict";
import { mock, test } from "node:test";

import {
  ENDED,
  LOBBY_WAITING,
  lobbyText,
  ownRowText,
  SITTING_OUT,
  WAITING,
  waitForNextRace,
  waitingText,
} from "../../../frontend/static/js/arena-next.js";

test("the player's own row in words: place of how many, points, races, streak", () => {
  const you = { rank: 7, player: 57, name: "Bob", points: 5, races: 3, streak: false };
  assert.equal(ownRowText(you, 120), "In the arena: 7th of 120, 5 points from 3 races.");
  assert.equal(
    ownRowText({ ...you, rank: 1, points: 1, races: 1, streak: true }, 0),
    "In the arena: 1st, 1 point from 1 race, on a streak: your next race counts double.",
  );
  // done in a first race still on: 0 points, tied with everyone, no place worth saying
  assert.equal(
    ownRowText({ rank: 1, points: 0, races: 0, streak: false }, 2),
    "In the arena: no points yet; your first race counts once it closes.",
  );
});

test("a free player in the lobby is told what they wait for, by the lobby's counts", () => {
  // another free player: placed together within a second
  assert.equal(lobbyText({ joined: 9, racing: 6, waiting: 2 }), LOBBY_WAITING);
  // a crowd's straggler: everyone else is racing
  assert.match(lobbyText({ joined: 1000, racing: 999, waiting: 1 }), /^Everyone else is racing/);
  // the others sit out or have closed their pages
  assert.match(lobbyText({ joined: 3, racing: 0, waiting: 1 }), /^Nobody else is free/);
  // an arena with one player waits, and says so
  assert.match(lobbyText({ joined: 1, racing: 0, waiting: 1 }), /^You are the only player/);
});

test("an arena that has ended places nobody: the page says so and asks nothing", () => {
  const said = [];
  const wait = waitForNextRace(
    { type: "arena", arena: "abc", url: "/arenas/abc/", ends_at: 1_000 },
    {
      now: () => 1_000,
      send: () => assert.fail(),
      status: (t) => said.push(t),
      you: () => assert.fail(),
      go: () => assert.fail(),
    },
  );
  assert.deepEqual(said, [ENDED]);
  assert.equal(wait.take({ type: "placed", url: "/races/ABC123/" }), false);
  wait.close(); // nothing to stop
});

function waiting(endsAt = 600_000, shown = undefined) {
  const seen = { status: [], you: [], paused: [], went: [], sent: [] };
  const wait = waitForNextRace(
    { type: "arena", arena: "abc", url: "/arenas/abc/", ends_at: endsAt },
    {
      now: () => 0,
      send: (frame) => seen.sent.push(frame),
      status: (t) => seen.status.push(t),
      you: (t) => seen.you.push(t),
      paused: (p) => seen.paused.push(p),
      go: (url) => seen.went.push(url),
      shown,
    },
  );
  return { seen, wait };
}

const you = { rank: 2, player: 5, name: "Ann", points: 4, races: 1, streak: false, paused: false };

test("asks on the race's socket, shows the player's place, and goes where `placed` says", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting();
  assert.deepEqual(seen.sent, [{ type: "wait" }]);
  assert.equal(wait.take({ type: "standings", rows: [], count: 9, you }), true);
  assert.deepEqual(seen.you, ["In the arena: 2nd of 9, 4 points from 1 race."]);
  assert.deepEqual(seen.status, [WAITING]);
  assert.equal(wait.take({ type: "placed", url: "/races/ABC123/" }), true);
  assert.deepEqual(seen.went, ["/races/ABC123/"]);
  // Gone: a second `placed` (the room's check and the message both bring one) goes nowhere.
  assert.equal(wait.take({ type: "placed", url: "/races/ABC123/" }), true);
  assert.deepEqual(seen.went, ["/races/ABC123/"]);
  mock.timers.reset();
});

test("a page that came back from a race asks not to be sent there, again after a reconnect", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting(600_000, "XYZ789");
  wait.connection("open");
  assert.deepEqual(seen.sent, [
    { type: "wait", shown: "XYZ789" },
    { type: "wait", shown: "XYZ789" },
  ]);
  wait.close();
  mock.timers.reset();
});

test("the race's own frames are the race page's, not the wait's", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { wait } = waiting();
  assert.equal(wait.take({ type: "finished", event: 7, race: {} }), false);
  assert.equal(wait.take({ type: "error", code: "race_over", ref: "move" }), false);
  wait.close();
  mock.timers.reset();
});

test("a refused wait is said where the page waits", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting();
  const refusal = { type: "error", code: "still_racing", reason: "you are still racing", ref: "wait" };
  assert.equal(wait.take(refusal), true);
  assert.equal(seen.status.at(-1), "you are still racing");
  wait.close();
  mock.timers.reset();
});

test("a player who sits out (paused in another tab) is told so, and waits again on resuming", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting();
  wait.take({ type: "standings", rows: [], count: 9, you: { ...you, paused: true } });
  assert.equal(seen.status.at(-1), SITTING_OUT);
  assert.deepEqual(seen.paused, [true]);
  wait.take({ type: "standings", rows: [], count: 9, you: { ...you, paused: true } });
  assert.deepEqual(seen.paused, [true]); // said once
  wait.take({ type: "standings", rows: [], count: 9, you });
  assert.deepEqual(seen.paused, [true, false]);
  assert.equal(seen.status.at(-1), WAITING);
  wait.close();
  mock.timers.reset();
});

test("a socket that comes back asks again: the server's wait ended with the old socket", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting();
  wait.connection("reconnecting");
  assert.equal(seen.status.at(-1), "Connection lost; reconnecting…");
  wait.connection("open");
  assert.equal(seen.status.at(-1), WAITING);
  assert.deepEqual(seen.sent, [{ type: "wait" }, { type: "wait" }]);
  wait.close();
  wait.connection("open"); // the page is leaving: nothing more is asked
  assert.equal(seen.sent.length, 2);
  mock.timers.reset();
});

test("the arena's end stops the wait and says so", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting(5_000);
  mock.timers.tick(5_000);
  assert.equal(seen.status.at(-1), ENDED);
  wait.take({ type: "placed", url: "/races/ABC123/" }); // too late: the arena places nobody
  assert.deepEqual(seen.went, []);
  mock.timers.reset();
});

test("an admin who moves the arena's end later: the wait goes on to the new end", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting(5_000);
  wait.edit(20_000);
  mock.timers.tick(5_000);
  assert.equal(seen.status.at(-1), WAITING); // the old end passed: still waiting
  wait.take({ type: "placed", url: "/races/ABC123/" });
  assert.deepEqual(seen.went, ["/races/ABC123/"]);
  mock.timers.reset();
});

test("an end moved later after the old one passed: the page waits again, and is placed", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting(5_000);
  mock.timers.tick(5_000);
  assert.equal(seen.status.at(-1), ENDED);
  wait.edit(60_000); // now() is 0 in these tests: the new end is ahead
  assert.equal(seen.status.at(-1), WAITING);
  wait.take({ type: "standings", rows: [], count: 9, you });
  assert.deepEqual(seen.you, ["In the arena: 2nd of 9, 4 points from 1 race."]);
  wait.take({ type: "placed", url: "/races/ABC123/" });
  assert.deepEqual(seen.went, ["/races/ABC123/"]);
  mock.timers.reset();
});

test("an end moved earlier, or into the past, ends the wait then, once", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting(600_000);
  wait.edit(2_000);
  mock.timers.tick(2_000);
  assert.equal(seen.status.at(-1), ENDED);
  const said = seen.status.length;
  wait.edit(-1); // the page is told again (another edit): said once
  mock.timers.tick(600_000);
  assert.equal(seen.status.length, said);
  wait.take({ type: "placed", url: "/races/ABC123/" });
  assert.deepEqual(seen.went, []);
  mock.timers.reset();
});

test("a page already placed takes no edit", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting(5_000);
  wait.take({ type: "placed", url: "/races/ABC123/" });
  const said = seen.status.length;
  wait.edit(-1);
  assert.equal(seen.status.length, said);
  mock.timers.reset();
});

test("a racer done in a race still on is told it ends when its others are done", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const { seen, wait } = waiting();
  wait.playing(3);
  assert.equal(
    seen.status.at(-1),
    "Waiting for your next race of the arena: 3 racers still play this one, which ends when they are done.",
  );
  const said = seen.status.length;
  wait.playing(3); // the same count is not said again (the status is a live region)
  assert.equal(seen.status.length, said);
  wait.playing(1);
  assert.match(seen.status.at(-1), /: 1 racer still plays this one,/);
  wait.playing(0); // the race is over: its close places them
  assert.equal(seen.status.at(-1), WAITING);
  assert.equal(waitingText(2), "Waiting for your next race of the arena: 2 racers still play this one, which ends when they are done.");
  // sitting out says so whatever the race does
  wait.take({ type: "standings", rows: [], count: 9, you: { ...you, paused: true } });
  wait.playing(2);
  assert.equal(seen.status.at(-1), SITTING_OUT);
  wait.close();
  mock.timers.reset();
});
