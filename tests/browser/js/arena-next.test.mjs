import assert from "node:assert/strict";
import { test } from "node:test";

import { ENDED, ordinal, ownRowText, waitForNextRace } from "../../../frontend/static/js/arena-next.js";

test("places read as English ordinals", () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal), [
    "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th",
  ]);
});

test("the player's own row in words: place of how many, points, races, streak", () => {
  const you = { rank: 7, player: 57, name: "Bob", points: 5, races: 3, streak: false };
  assert.equal(ownRowText(you, 120), "In the arena: 7th of 120, 5 points from 3 races.");
  assert.equal(
    ownRowText({ ...you, rank: 1, points: 1, races: 1, streak: true }, 0),
    "In the arena: 1st, 1 point from 1 race, on a streak: your next race counts double.",
  );
});

test("an arena that has ended places nobody: the page says so and opens no socket", () => {
  const said = [];
  const wait = waitForNextRace(
    { type: "arena", arena: "abc", url: "/arenas/abc/", ends_at: 1_000 },
    { now: () => 1_000, status: (t) => said.push(t), you: () => assert.fail(), go: () => assert.fail() },
  );
  assert.deepEqual(said, [ENDED]);
  wait.close(); // nothing to stop
});
