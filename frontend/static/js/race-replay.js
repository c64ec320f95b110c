// A finished race watched again (records/race_replay.html): every racer's board side by side,
// played back on the race's clock at 1×, 4× or 16×, a slider over the whole race with a lane of
// marks a racer (cards home, undos, the finish or the end, the losing move) and one for the
// lead, the standings as they were at that moment, and what the race turned on in words.
//
// The positions are built here from the deal and each racer's edits (race-replay-model.js);
// the boards are board.js's, drawing what each racer saw then: face-down cards stay down.
// On a phone one board is large and the others small: a tap on a small one swaps it in.
//
// Keys: Space play/pause, ←/→ the previous/next move on any board, Shift+←/→ ten seconds,
// Home/End the start and the end. `?t=MS` opens at a moment (the address follows pauses and
// seeks), `?racer=ID` with that racer's board large. An aria-live line says what happens:
// finishes, lead changes, losing moves, undos as they pass; the standings after a seek.
//
// For tests: #race-replay[data-ready|data-t], each .rr-board[data-racer|data-frame|data-move].

import { Board } from "./board.js";
import { cardCount, moveCount } from "./cards.js";
import { replaceKeepingFocus } from "./dom.js";
import {
  buildRace,
  marksOf,
  meetings,
  nextChange,
  previousChange,
  raceClock,
  standingsAt,
  statusWord,
  verdicts,
} from "./race-replay-model.js";
import { copyLinkButton } from "./share-link.js";

const config = JSON.parse(document.getElementById("race-replay-config").textContent);
const data = config.replay;
const race = buildRace(data);
const marks = marksOf(race);
const SPOKEN = new Set(["finish", "end", "lead", "lost", "undo"]);
const TURNS = new Set(["finish", "end", "lead", "lost"]); // the list under the boards; every mark is on the lanes

const root = document.getElementById("race-replay");
const slider = root.querySelector(".rr-slider");
const clockLine = root.querySelector(".rr-clock");
const live = document.getElementById("rr-live");
const playButton = root.querySelector('[data-step="play"]');
const standingsList = document.getElementById("rr-standings");
const standingsMoment = root.querySelector(".rr-standings-at");
const params = new URL(location.href).searchParams;

const totalCards = countCards(data.deal?.view);
let t = 0;
let speed = 1;
let playing = false;
let lastFrameTs = null;
let standingsKey = "";

function countCards(view) {
  if (!view) return 52;
  const flat = (list) => (list || []).flat(2).filter((c) => typeof c === "string").length;
  return flat(view.tableau) + flat(view.foundations) + flat(view.cells) + flat(view.stock) + flat(view.waste);
}

// ------------------------------------------------------------------ the boards

const boards = race.racers.map((racer) => {
  const node = document.createElement("figure");
  node.className = "rr-board";
  node.dataset.racer = racer.id;
  node.dataset.frame = "-1";
  const caption = document.createElement("figcaption");
  const swap = document.createElement("button");
  swap.type = "button";
  swap.className = "rr-swap";
  swap.textContent = racer.name;
  swap.title = "Show this board large";
  swap.setAttribute("aria-pressed", "false");
  const now = document.createElement("span");
  now.className = "rr-now muted";
  caption.append(swap, " ", now);
  const host = document.createElement("div");
  host.className = "board-host";
  node.append(caption, host);
  document.getElementById("rr-boards").append(node);
  const board = new Board(host, { variant: config.variant, layout: config.layout, interactive: false, fit: "width" });
  node.addEventListener("click", () => setBig(racer.id));
  return { racer, node, board, swap, now, frame: -1 };
});

// Side by side: the more racers, the narrower each board (two, three or four to a row at 1280).
document.getElementById("rr-boards").style.setProperty("--rr-board-min", boards.length <= 2 ? "26rem" : boards.length <= 4 ? "20rem" : "17rem");

function setBig(id) {
  for (const entry of boards) {
    const big = entry.racer.id === id;
    entry.node.classList.toggle("big", big);
    entry.swap.setAttribute("aria-pressed", String(big));
  }
  root.dataset.big = id;
}

// ------------------------------------------------------------------ one moment

/** Show the race at `ms`; `passing` says the clock ran there (marks on the way are spoken). */
function show(ms, { passing = false } = {}) {
  const before = t;
  t = Math.max(0, Math.min(race.end, Math.round(ms)));
  const order = standingsAt(race, t);
  for (const entry of boards) {
    const s = order.find((o) => o.racer === entry.racer);
    if (s.frame !== entry.frame && s.frame >= 0) {
      entry.board.render(entry.racer.frames[s.frame].view, []);
      entry.frame = s.frame;
    }
    entry.node.dataset.frame = String(s.frame);
    entry.node.dataset.move = s.move || "";
    entry.node.classList.toggle("undo", s.move === "undo");
    entry.node.dataset.status = s.status;
    const last = s.move === "undo" ? " · ↶ undo" : "";
    entry.now.textContent = `${figures(s)} · ${statusWord(s)}${last}`;
  }
  renderStandings(order);
  slider.value = String(t);
  slider.setAttribute("aria-valuetext", raceClock(t));
  clockLine.textContent = raceClock(t);
  standingsMoment.textContent = `at ${raceClock(t)}`;
  root.dataset.t = String(t);
  if (passing) {
    const said = marks.filter((m) => SPOKEN.has(m.kind) && m.ms > before && m.ms <= t).map((m) => m.text);
    if (said.length) say(said.slice(-3).join(". ") + ".");
  }
}

function renderStandings(order) {
  const key = order.map((s) => `${s.racer.id}:${s.cards}:${s.moves}:${s.status}`).join("|");
  if (key === standingsKey) return;
  standingsKey = key;
  replaceKeepingFocus(
    standingsList,
    order.map((s, i) => {
      const li = document.createElement("li");
      li.dataset.racer = s.racer.id;
      const head = document.createElement("div");
      head.className = "standing-head";
      const place = span("place", String(i + 1));
      const name = document.createElement("a");
      name.className = "name";
      name.href = s.racer.player.url;
      name.textContent = s.racer.name;
      head.append(place, name, span(`status status-${s.status}`, statusWord(s)));
      const bar = document.createElement("div");
      bar.className = "progress";
      bar.setAttribute("aria-hidden", "true");
      const fill = document.createElement("span");
      fill.style.width = `${Math.round((100 * s.cards) / totalCards)}%`;
      bar.append(fill);
      li.append(head, bar, span("facts muted", figures(s)));
      return li;
    }),
  );
}

function figures(s) {
  return `${cardCount(s.cards)} home · ${moveCount(s.moves)}`;
}

function span(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

function say(text) {
  live.textContent = text;
}

function summary() {
  const order = standingsAt(race, t);
  const who = order.map((s, i) => `${i + 1}. ${s.racer.name}, ${cardCount(s.cards)}${s.status === "playing" ? "" : `, ${statusWord(s)}`}`);
  return `${raceClock(t)}: ${who.join("; ")}.`;
}

// ------------------------------------------------------------------ the clock

function seek(ms) {
  stop();
  show(ms);
  keepAddress();
  say(summary());
}

function keepAddress() {
  const url = new URL(location.href);
  if (t) url.searchParams.set("t", String(t));
  else url.searchParams.delete("t");
  history.replaceState(null, "", url);
}

function setPlaying(on) {
  playing = on;
  playButton.textContent = on ? "Pause" : "Play"; // its name says what it does: no aria-pressed
  root.dataset.playing = on ? "1" : "0";
}

function play() {
  if (t >= race.end) show(0);
  setPlaying(true);
  lastFrameTs = null;
  requestAnimationFrame(tick);
}

function stop() {
  if (!playing) return;
  setPlaying(false);
  keepAddress();
}

function tick(ts) {
  if (!playing) return;
  if (lastFrameTs !== null) show(t + (ts - lastFrameTs) * speed, { passing: true });
  lastFrameTs = ts;
  if (t >= race.end) {
    stop();
    say(`The end. ${summary()}`);
    return;
  }
  requestAnimationFrame(tick);
}

function step(how) {
  if (how === "play") return playing ? (stop(), say(summary())) : play();
  const to = {
    first: () => 0,
    last: () => race.end,
    back: () => previousChange(race, t),
    forward: () => nextChange(race, t),
    back10: () => t - 10_000,
    forward10: () => t + 10_000,
  }[how]();
  seek(to);
}

// ------------------------------------------------------------------ marks and words

function drawLanes() {
  const lanes = root.querySelector(".rr-lanes");
  const span_ = Math.max(1, race.end);
  const lane = (label, list) => {
    const row = document.createElement("div");
    row.className = "rr-lane";
    row.append(span("rr-lane-name", label));
    const track = document.createElement("div");
    track.className = "rr-lane-track";
    for (const m of list) {
      const tick = span(`rr-tick rr-${m.kind}`, "");
      tick.style.left = `${(100 * m.ms) / span_}%`;
      tick.title = `${raceClock(m.ms)} ${m.text}`;
      tick.dataset.ms = String(m.ms);
      track.append(tick);
    }
    row.append(track);
    return row;
  };
  lanes.append(lane("lead", marks.filter((m) => m.kind === "lead")));
  for (const r of race.racers) lanes.append(lane(r.name, marks.filter((m) => m.racer === r && m.kind !== "lead")));
  lanes.addEventListener("click", (e) => {
    const track = e.target.closest(".rr-lane-track");
    if (!track) return;
    const box = track.getBoundingClientRect();
    seek(e.target.dataset.ms ? Number(e.target.dataset.ms) : ((e.clientX - box.left) / box.width) * race.end);
  });
}

function jumpButton(ms, racer) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small-button rr-jump";
  button.textContent = raceClock(ms);
  button.addEventListener("click", () => {
    if (racer) setBig(racer.id);
    seek(ms);
  });
  return button;
}

function listItem(ms, racer, text, kind) {
  const li = document.createElement("li");
  if (kind) li.className = `rr-${kind}`;
  li.append(jumpButton(ms, racer), " ", text);
  return li;
}

function tellStory() {
  document.getElementById("rr-verdicts").append(
    ...verdicts(race).map((v) => listItem(v.ms, v.racer, v.text, v.frame ? "lost" : null)),
  );
  document.getElementById("rr-moments").append(
    ...marks.filter((m) => TURNS.has(m.kind)).map((m) => listItem(m.ms, m.racer, `${m.text}.`, m.kind)),
  );
  // Comparing every position of every racer takes a while on a long race: after the boards.
  setTimeout(() => {
    document.getElementById("rr-meetings").append(...meetings(race).map((m) => listItem(m.secondMs, m.second, m.text)));
    root.dataset.story = "1";
  }, 0);
}

// ------------------------------------------------------------------ wiring

for (const button of root.querySelectorAll("[data-step]")) {
  button.addEventListener("click", () => step(button.dataset.step));
}
for (const radio of root.querySelectorAll('input[name="rr-speed"]')) {
  radio.addEventListener("change", () => {
    speed = Number(radio.value);
    root.dataset.speed = radio.value;
  });
}
slider.addEventListener("input", () => {
  stop();
  show(Number(slider.value));
});
slider.addEventListener("change", () => {
  keepAddress();
  say(summary());
});
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const target = e.target.closest ? e.target : null;
  if (target?.closest("input, select, textarea")) return; // the slider's and radios' own keys
  if (e.key === " " && target?.closest("button, a")) return; // a focused button's own Space
  const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last", " ": "play" };
  let how = keys[e.key];
  if (!how) return;
  if (e.shiftKey && how === "back") how = "back10";
  if (e.shiftKey && how === "forward") how = "forward10";
  e.preventDefault();
  step(how);
});
copyLinkButton(root.querySelector(".copy-link"), keepAddress);

const first = race.racers.find((r) => r.id === params.get("racer")) || race.racers.find((r) => r.place === 1) || race.racers[0];
if (first) setBig(first.id);
drawLanes();
tellStory();
show(Number(params.get("t")) || 0);
root.dataset.ready = "1";
