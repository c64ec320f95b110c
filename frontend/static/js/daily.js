// The daily challenge's play page: your attempt over /ws/daily/ (the practice protocol, see
// docs/protocol.md), the server's clock, and, in a ghost race, the recorded run beside you.
// The server deals, checks every move and keeps the time; this page draws what it is sent.
//
// For tests the page sets on #daily: data-socket (connecting/open/closed), data-seq (the last
// state applied), data-status (playing/stuck/won/resigned), data-rank once the board answers.

import { Board } from "./board.js";
import { cardCount, moveCount } from "./cards.js";
import { replaceKeepingFocus } from "./dom.js";
import { cardsHome, GhostRace } from "./ghost.js";
import { describePlayed } from "./moves.js";
import { ReconnectingSocket, STORE_NOTICE, StoreRetry } from "./socket.js";
import { counted, noun } from "./words.js";

const config = JSON.parse(document.getElementById("daily-config").textContent);
const root = document.getElementById("daily");
const $ = (id) => document.getElementById(id);
const TOTAL_CARDS = (config.layout.decks || 1) * 52;

let offset = 0; // the server's clock minus ours, in ms (from each state's elapsed_ms)
let frame = null; // the last state/ack applied
let pending = null; // the message sent and not yet answered (resent after a reconnect)
let board = null;
let finished = false;
const ghost = config.ghost ? new GhostRace($("ghost"), config.ghost, config.variant, TOTAL_CARDS) : null;

const serverNow = () => Date.now() + offset;

// ------------------------------------------------------------------ the socket

const socket = new ReconnectingSocket(config.ws_path);
socket.addEventListener("status", (e) => {
  root.dataset.socket = e.detail.state;
  if (e.detail.state === "reconnecting" && !finished) notice("Connection lost; reconnecting…");
});
socket.addEventListener("open", () => socket.send({ type: "open", game: config.game }));
socket.addEventListener("message", (e) => onFrame(e.detail));
// The store away for a moment: the same move goes again after retry_ms (docs/protocol.md).
const store = new StoreRetry(
  (message) => socket.send(message),
  (waiting) => {
    root.dataset.store = waiting ? "waiting" : "";
    if (waiting) notice(STORE_NOTICE);
    else if ($("notice").textContent === STORE_NOTICE) notice("");
  },
);

// ------------------------------------------------------------------ frames

function onFrame(message) {
  if (message.type === "state" || message.type === "ack") {
    onState(message);
  } else if (message.type === "error") {
    if (store.handle(message, pending)) return; // kept pending, resent after retry_ms
    pending = null;
    board?.cancelPending();
    if (message.code === "stale_seq") socket.send({ type: "open", game: config.game });
    notice(message.reason);
  }
}

function onState(state) {
  if (frame && state.seq < frame.seq) return;
  store.clear();
  if (pending && state.type === "state" && state.seq === pending.seq) {
    socket.send(pending); // sent before a reconnect and never applied: send it again
  } else {
    pending = null;
  }
  if (!state.finished_at) offset = Date.parse(state.started_at) + state.elapsed_ms - Date.now();
  frame = state;
  if (!board) {
    board = new Board($("board"), {
      variant: config.variant,
      layout: config.layout,
      interactive: true,
      onMove: (move) => act({ type: "move", move }),
      onNotice: notice,
    });
  }
  const over = state.status === "won" || state.status === "resigned";
  board.render(state.view, over ? [] : state.legal);
  const home = cardsHome(state.view, config.variant);
  $("moves").textContent = state.moves;
  $("moves-word").textContent = noun(state.moves, "move", "moves");
  $("cards").textContent = home;
  $("cards-word").textContent = noun(home, "card", "cards");
  drawLiveBoard(); // your own row follows your game at once, not at the next refresh
  $("undo").disabled = !state.can_undo;
  $("autoplay").disabled = over;
  $("resign").disabled = over;
  root.dataset.seq = String(state.seq);
  root.dataset.status = state.status;
  if (state.type === "ack") $("announce").textContent = describePlayed(state.played || []);
  if (state.status === "stuck") notice("No move left: undo, or give up to end the game.");
  else if (!over) notice("");
  tick();
  if (over) finish(state);
}

function act(message) {
  if (!frame || pending || finished) {
    board?.cancelPending();
    return;
  }
  pending = { ...message, seq: frame.seq };
  socket.send(pending);
}

function notice(text) {
  $("notice").textContent = text || "";
}

// ------------------------------------------------------------------ the clock and the ghost

function elapsedMs() {
  if (!frame) return 0;
  if (frame.finished_at) return frame.elapsed_ms;
  return Math.max(0, serverNow() - Date.parse(frame.started_at));
}

function clock(ms) {
  const tenths = Math.floor(ms / 100);
  const m = Math.floor(tenths / 600);
  const s = Math.floor((tenths % 600) / 10);
  return `${m}:${String(s).padStart(2, "0")}.${tenths % 10}`;
}

function tick() {
  const ms = elapsedMs();
  $("clock").textContent = clock(ms);
  if (ghost && frame) ghost.update(ms, cardsHome(frame.view, config.variant));
}
setInterval(tick, 100);

// ------------------------------------------------------------------ the end

async function finish(state) {
  if (finished) return;
  finished = true;
  const won = state.status === "won";
  $("result").hidden = false;
  $("result-title").textContent = won
    ? `Won in ${clock(state.elapsed_ms)} (${moveCount(state.moves)})`
    : `Game over: ${cardCount(cardsHome(state.view, config.variant))} home`;
  // The end is said where the focus goes (under the board, on a phone below the fold): a
  // keyboard or screen-reader player is told, and goes on from the result's links.
  $("result-title").focus();
  if (!config.ranked) {
    $("result-rank").textContent = "This game was practice: it is not on the board.";
    return;
  }
  // The board is updated after the move's commit; ask until it shows us (a few tries).
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const response = await fetch(`${config.board_api}?player=${config.player}&per_page=1`);
      const data = await response.json();
      if (data.player) {
        await refreshLiveBoard(); // the side panel shows the finish with the result, not 10 s on
        $("result-rank").textContent = `You are #${data.player.rank} of ${data.total} today.`;
        root.dataset.rank = String(data.player.rank);
        return;
      }
    } catch (err) {
      // try again
    }
    await new Promise((r) => setTimeout(r, 400 * (attempt + 1)));
  }
}

// ------------------------------------------------------------------ the live board (ranked games)

const LIVE_ROWS = 5;
const LIVE_REFRESH_MS = 10_000;

function liveRow(row, mine) {
  const li = document.createElement("li");
  if (mine) li.className = "me";
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = row.rank;
  const name = document.createElement("a");
  name.href = row.player.url;
  name.textContent = row.player.nickname;
  const result = document.createElement("span");
  result.className = "result";
  result.textContent = row.won ? clock(row.time_ms) : cardCount(row.cards);
  li.append(rank, " ", name, result);
  return li;
}

let live = null; // the board as last fetched

/** Your row as the board has it, with the cards home of the game on this page (newer) while
 * it is not won (a win's time comes from the board). */
function ownRow(row) {
  if (!row || !frame || frame.status === "won" || row.won) return row;
  return { ...row, cards: cardsHome(frame.view, config.variant) };
}

function drawLiveBoard() {
  if (!live || !$("live-board")) return;
  const rows = live.rows.map((row) =>
    row.player.id === config.player ? liveRow(ownRow(row), true) : liveRow(row, false),
  );
  replaceKeepingFocus($("live-rows"), rows);
  $("live-total").textContent = `· ${counted(live.total, "player", "players")}`;
  const me = ownRow(live.player);
  $("live-me").textContent = me
    ? `You: #${me.rank}${me.won ? ` in ${clock(me.time_ms)}` : `, ${cardCount(me.cards)} home`}`
    : "";
  $("live-board").dataset.total = String(live.total);
}

async function refreshLiveBoard() {
  const panel = $("live-board");
  if (!panel || document.visibilityState !== "visible") return;
  try {
    const url = `${config.board_api}?per_page=${LIVE_ROWS}&player=${config.player}`;
    live = await (await fetch(url)).json();
    drawLiveBoard();
  } catch (err) {
    // the next round tries again
  }
}

if ($("live-board")) {
  refreshLiveBoard();
  setInterval(refreshLiveBoard, LIVE_REFRESH_MS);
}

// ------------------------------------------------------------------ controls

$("undo").addEventListener("click", () => act({ type: "undo" }));
$("autoplay").addEventListener("click", () => act({ type: "autoplay" }));
$("resign-form").addEventListener("submit", (e) => {
  const message = config.ranked
    ? "Give up your ranked game? It ends here and ranks by the cards you have home."
    : "Give up this game?";
  if (!window.confirm(message)) e.preventDefault();
});
document.addEventListener("keydown", (e) => {
  if (e.target.closest && e.target.closest("input, textarea, select")) return;
  if ((e.key === "z" && (e.ctrlKey || e.metaKey)) || (e.key === "u" && !e.ctrlKey)) {
    e.preventDefault();
    if (frame?.can_undo) act({ type: "undo" });
    return;
  }
  if (e.key === "a" && !e.ctrlKey && !e.metaKey) {
    act({ type: "autoplay" });
    return;
  }
  if (board?.handleKey(e)) e.preventDefault();
});

socket.connect();
