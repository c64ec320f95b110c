// Unit tests of dom.js: a write that changes nothing is not made (node --test; run by
// tests/browser/test_js_modules.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { setHidden, setStyle, setText } from "../../../frontend/static/js/dom.js";

/** A stand-in element that counts the writes it is given. */
function element() {
  const node = { writes: 0, _text: "", _hidden: false, style: {} };
  Object.defineProperty(node, "textContent", {
    get: () => node._text,
    set: (value) => {
      node.writes += 1;
      node._text = String(value);
    },
  });
  Object.defineProperty(node, "hidden", {
    get: () => node._hidden,
    set: (value) => {
      node.writes += 1;
      node._hidden = value;
    },
  });
  return node;
}

test("a clock written ten times with one text is written once", () => {
  const clock = element();
  for (let i = 0; i < 10; i++) setText(clock, "1:23");
  assert.equal(clock.textContent, "1:23");
  assert.equal(clock.writes, 1);
  setText(clock, "1:24");
  assert.equal(clock.writes, 2);
});

test("showing what is shown, or hiding what is hidden, writes nothing", () => {
  const overlay = element();
  setHidden(overlay, false);
  assert.equal(overlay.writes, 0);
  setHidden(overlay, true);
  setHidden(overlay, true);
  assert.equal(overlay.writes, 1);
  assert.equal(overlay.hidden, true);
});

test("a style set to its own value is left alone", () => {
  const bar = element();
  let writes = 0;
  const style = {};
  Object.defineProperty(style, "width", {
    get: () => bar._width ?? "",
    set: (value) => {
      writes += 1;
      bar._width = value;
    },
  });
  bar.style = style;
  setStyle(bar, "width", "50%");
  setStyle(bar, "width", "50%");
  assert.equal(writes, 1);
  assert.equal(bar.style.width, "50%");
});

test("a style the browser reads back in its own form is still written once", () => {
  let writes = 0;
  let kept = "";
  const style = {};
  Object.defineProperty(style, "width", {
    get: () => kept,
    set: (value) => {
      writes += 1;
      kept = value.replace(/^(\d+\.\d{5})\d*%$/, "$1%"); // as Chromium: 6 significant digits
    },
  });
  const bar = { style };
  for (let i = 0; i < 10; i++) setStyle(bar, "width", "9.615384615384615%");
  assert.equal(writes, 1);
  assert.equal(bar.style.width, "9.61538%");
  kept = "20%"; // set by someone else meanwhile
  setStyle(bar, "width", "9.615384615384615%");
  assert.equal(writes, 2);
  setStyle(bar, "width", "25%");
  assert.equal(writes, 3);
});
