import assert from "node:assert/strict";
import { mock, test } from "node:test";

import {
  ENDED,
  ordinal,
  ownRowText,
  SITTING_OUT,
  WAITING,
  waitForNextRace,
} from "../../../frontend/static/js/arena-next.js";

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

/** A browser's globals for ReconnectingSocket, with a WebSocket the test drives. */
function fakeBrowser() {
  const sockets = [];
  class FakeWebSocket extends EventTarget {
    static OPEN = 1;
    constructor(url) {
      super();
      this.url = url;
      this.readyState = 0;
      this.closed = null;
      sockets.push(this);
    }
    open() {
      this.readyState = 1;
      this.dispatchEvent(new Event("open"));
    }
    receive(frame) {
      const event = new Event("message");
      event.data = JSON.stringify(frame);
      this.dispatchEvent(event);
    }
    send() {}
    close(code) {
      this.closed = code;
      this.readyState = 3;
      const event = new Event("close");
      event.code = code;
      this.dispatchEvent(event);
    }
  }
  Object.assign(globalThis, {
    WebSocket: FakeWebSocket,
    window: { addEventListener() {}, removeEventListener() {} },
    document: { addEventListener() {}, visibilityState: "visible" },
    location: { protocol: "http:", host: "site.test" },
  });
  return sockets;
}

function waiting(endsAt = 600_000) {
  const seen = { status: [], you: [], paused: [], went: [] };
  const wait = waitForNextRace(
    { type: "arena", arena: "abc", url: "/arenas/abc/", ends_at: endsAt },
    {
      now: () => 0,
      status: (t) => seen.status.push(t),
      you: (t) => seen.you.push(t),
      paused: (p) => seen.paused.push(p),
      go: (url) => seen.went.push(url),
    },
  );
  return { seen, wait };
}

const you = { rank: 2, player: 5, name: "Ann", points: 4, races: 1, streak: false, paused: false };

test("waits on the arena's socket, shows the player's place, and goes where `placed` says", () => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  const sockets = fakeBrowser();
  const { seen } = waiting();
  const [ws] = sockets;
  assert.equal(ws.url, "ws://site.test/ws/arena/abc/");
  ws.open();
  ws.receive({ type: "standings", rows: [], count: 9, you });
  assert.deepEqual(seen.you, ["In the arena: 2nd of 9, 4 points from 1 race."]);
  assert.deepEqual(seen.status, [WAITING, WAITING]);
  ws.receive({ type: "placed", url: "/races/ABC123/" });
  assert.deepEqual(seen.went, ["/races/ABC123/"]);
  assert.equal(ws.closed, 1000); // the page leaves: the socket is closed, not reopened
  mock.timers.tick(60_000);
  assert.equal(sockets.length, 1);
  mock.timers.reset();
});

test("a player who sits out (paused in another tab) is told so, and waits again on resuming", () => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  const sockets = fakeBrowser();
  const { seen, wait } = waiting();
  const [ws] = sockets;
  ws.open();
  ws.receive({ type: "standings", rows: [], count: 9, you: { ...you, paused: true } });
  assert.equal(seen.status.at(-1), SITTING_OUT);
  assert.deepEqual(seen.paused, [true]);
  ws.receive({ type: "standings", rows: [], count: 9, you: { ...you, paused: true } });
  assert.deepEqual(seen.paused, [true]); // said once
  ws.receive({ type: "standings", rows: [], count: 9, you });
  assert.deepEqual(seen.paused, [true, false]);
  assert.equal(seen.status.at(-1), WAITING);
  wait.close(); // an open wait's socket pings on a timer: a test leaves none running
  mock.timers.reset();
});

test("the arena's end stops the wait and says so", () => {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  const sockets = fakeBrowser();
  const { seen } = waiting(5_000);
  const [ws] = sockets;
  ws.open();
  mock.timers.tick(5_000);
  assert.equal(seen.status.at(-1), ENDED);
  assert.equal(ws.closed, 1000);
  mock.timers.reset();
});
