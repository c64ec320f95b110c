import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { StoreRetry } from "../../../frontend/static/js/socket.js";

const unavailable = (ref, retry_ms = 250) => ({ type: "error", code: "unavailable", reason: "db away", ref, retry_ms });

test("resends the same frame, same seq, after retry_ms, with the notice shown meanwhile", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const sent = [];
  const notices = [];
  const store = new StoreRetry((f) => sent.push(f), (w) => notices.push(w));
  const pending = { type: "move", move: "t1-t3", seq: 7 };
  assert.equal(store.handle(unavailable("move"), pending), true);
  assert.deepEqual(notices, [true]);
  mock.timers.tick(249);
  assert.deepEqual(sent, []);
  mock.timers.tick(1);
  assert.deepEqual(sent, [pending]);
  assert.equal(sent[0].seq, 7);
  store.clear();
  assert.deepEqual(notices, [true, false]);
  mock.timers.reset();
});

test("an ack or state before the delay clears the wait: nothing is resent", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const sent = [];
  const store = new StoreRetry((f) => sent.push(f));
  store.handle(unavailable("undo", 500), { type: "undo", seq: 3 });
  assert.ok(store.waiting);
  store.clear();
  mock.timers.tick(1000);
  assert.deepEqual(sent, []);
  assert.ok(!store.waiting);
  mock.timers.reset();
});

test("other errors, and unavailable for another frame, are not its business", () => {
  const store = new StoreRetry(() => assert.fail("nothing to resend"));
  const pending = { type: "move", move: "t0-f0", seq: 1 };
  assert.equal(store.handle({ type: "error", code: "illegal_move", ref: "move" }, pending), false);
  assert.equal(store.handle(unavailable("undo"), pending), false);
  assert.equal(store.handle(unavailable("move"), null), false);
  assert.equal(store.handle(unavailable("hint"), { type: "hint", seq: 1 }), false);
});
