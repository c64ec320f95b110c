// A finished game's replay, stepped through forwards and back with the buttons, the slider or the
// keys (←/→ one move, Home/End, Space play/pause). The address keeps the position (?at=N), so a
// link shows that very move.
//
// The server sends the deal in full and one step a log row (replay-steps.js computes the
// positions from them, once, as the page opens).
//
// When the server found the move that threw a winnable game away (`losing_frame`), the slider
// has a tick there, the position line says "lost" from it on, and a button jumps to it.
//
// For tests #replay-board carries data-at (the position shown), data-move (its move) and
// data-lost ("1" at and after the losing move).

import { Board } from "./board.js";
import { cardCount, cardText } from "./cards.js";
import { describeMoveCards } from "./moves.js";
import { framesOf } from "./replay-steps.js";
import { copyLinkButton } from "./share-link.js";

const config = JSON.parse(document.getElementById("replay-config").textContent);
const frames = framesOf(config.replay);
const losingFrame = config.replay.losing_frame ?? null;
const host = document.getElementById("replay-board");
const slider = document.querySelector(".replay-slider");
const where = document.querySelector(".replay-where");
const playButton = document.querySelector('[data-step="play"]');
const speed = document.querySelector(".replay-speed select");
const revealBox = document.querySelector(".replay-reveal input");
const stockLine = document.querySelector(".replay-stock");

const board = new Board(host, { variant: config.variant, layout: config.layout, interactive: false });
let at = 0;
let timer = null;

function clock(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function show(index, { push = false } = {}) {
  at = Math.max(0, Math.min(frames.length - 1, index));
  const frame = frames[at];
  drawPosition(frame.view);
  slider.value = String(at);
  host.dataset.at = String(at);
  host.dataset.move = frame.move || "";
  const what = moveText(frame.move, at ? frames[at - 1].view : null);
  const lost = losingFrame !== null && at >= losingFrame;
  host.dataset.lost = lost ? "1" : "0";
  const verdict = at === losingFrame ? " · ✕ the losing move" : lost ? " · lost" : "";
  where.textContent = `${at} / ${frames.length - 1} · ${what} · ${clock(frame.ms)} · ${cardCount(frame.cards)} home${verdict}`;
  const url = new URL(location.href);
  if (at) url.searchParams.set("at", String(at));
  else url.searchParams.delete("at");
  history[push ? "pushState" : "replaceState"](null, "", url);
}

/** The move that led to a position, as a player says it ("Q♠ onto K♥"), from the position
 * before it: the position line is a live region, read out at each step. */
function moveText(move, before) {
  if (move === null) return "the deal";
  if (move === "undo") return "a move taken back";
  if (move === "deal") return "a deal from the stock";
  return describeMoveCards(move, before, cardText);
}

/** Draw a position; with "show hidden cards" on, face-down cards are drawn face up (marked as
 * such) and the stock's order is listed: the game is over, nothing is secret any more. */
function drawPosition(view) {
  const reveal = revealBox?.checked;
  board.render(reveal ? { ...view, down: view.down.map(() => 0) } : view, []);
  if (reveal) {
    view.down.forEach((down, i) => {
      host.querySelectorAll(`[data-pile="t${i}"] > .card`).forEach((card) => {
        if (Number(card.dataset.index) < down) card.classList.add("was-face-down");
      });
    });
  }
  if (stockLine) {
    stockLine.hidden = !reveal || !view.stock.length;
    stockLine.textContent = `Stock, next first: ${view.stock.map(cardText).join(" ")}`;
  }
}

function step(how) {
  if (how === "first") show(0);
  else if (how === "last") show(frames.length - 1);
  else if (how === "back") show(at - 1);
  else if (how === "forward") show(at + 1);
  else if (how === "play") toggle();
}

function stop() {
  clearTimeout(timer);
  timer = null;
  playButton.textContent = "Play"; // its name says what it does: no aria-pressed
}

function scheduleNext() {
  if (at >= frames.length - 1) return stop();
  const fixed = Number(speed.value);
  const gap = fixed || Math.min(10_000, Math.max(60, frames[at + 1].ms - frames[at].ms));
  timer = setTimeout(() => {
    show(at + 1);
    scheduleNext();
  }, gap);
}

function toggle() {
  if (timer) return stop();
  if (at >= frames.length - 1) show(0);
  playButton.textContent = "Pause";
  scheduleNext();
}

for (const button of document.querySelectorAll("[data-step]")) {
  button.addEventListener("click", () => {
    if (button.dataset.step !== "play") stop();
    step(button.dataset.step);
  });
}
document.querySelector("[data-goto]")?.addEventListener("click", (e) => {
  stop();
  show(Number(e.target.dataset.goto), { push: true });
});
revealBox?.addEventListener("change", () => show(at));
slider.addEventListener("input", () => {
  stop();
  show(Number(slider.value));
});
document.addEventListener("keydown", (e) => {
  if (e.target.closest && e.target.closest("input, select, textarea")) return;
  if (e.key === " " && e.target.closest?.("button, a")) return; // a focused button's own Space
  const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last", " ": "play" };
  const how = keys[e.key];
  if (!how) return;
  e.preventDefault();
  if (how !== "play") stop();
  step(how);
});
copyLinkButton(document.querySelector(".copy-link"));

const start = Number(new URL(location.href).searchParams.get("at")) || 0;
show(start);
