// The live race page: lobby, countdown, the race (your board, or every board when watching),
// the standings beside it, and the end. It draws what the server sends over /ws/race/<code>/
// (docs/protocol.md, "Races"); the server checks every move and keeps the clock.
//
// The page sets data attributes on #race for tests to wait on: data-socket (connecting, open,
// reconnecting, closed),
// data-phase, data-event (the last event applied), data-seq (your board's seq).

import { waitForNextRace } from "./arena-next.js";
import { Board } from "./board.js";
import { cardCount, moveCount } from "./cards.js";
import { setHidden, setText } from "./dom.js";
import { timeLeftText } from "./event-clock.js";
import { cardsHome } from "./ghost.js";
import { clock, DONE, listOfNames, lobbyLine, RaceModel, statusLabel, waitingLine } from "./race-state.js";
import { copyLinkButton } from "./share-link.js";
import { ReconnectingSocket, socketUrl, STORE_NOTICE, StoreRetry } from "./socket.js";

let config = JSON.parse(document.getElementById("race-config").textContent); // this race's
const root = document.getElementById("race");
const $ = (id) => document.getElementById(id);
// An event's race (an arena's): the event's end, whose time left the header shows; the next
// race the page goes on to in place is of the same event.
const eventClock = $("event-clock");
let eventEnds = eventClock ? Date.parse(eventClock.dateTime) : null; // `arena` and `edited` move it

let model = new RaceModel();
let offset = 0; // server clock minus ours, ms
let bestRtt = Infinity;
let board = null; // your Board
let boardFrame = null; // the last state/ack applied to it
let pending = null; // {type, move, seq} sent and not yet answered
// What this page knows of when its racer last moved, for the idle rule (`idleDeadline`):
// the server's clock at its last move this page saw (an ack, or a board moved on by another
// tab), and when the page first had the race (the others' moves: `model.movedAt`).
let movedAt = null;
let openedAt = null;
let idleSaid = null; // the idle rule's status line as last written (`tick` writes its changes)
const IDLE_WARN_S = 10; // its last seconds, when the line warns again
const spectatorBoards = new Map(); // racer id -> {board, frame, node}

const serverNow = () => Date.now() + offset;

// ------------------------------------------------------------------ the socket

// The store away for a moment: the same move goes again after retry_ms (docs/protocol.md).
const store = new StoreRetry(send, (waiting) => {
  root.dataset.store = waiting ? "waiting" : "";
  if (waiting) setStatus(STORE_NOTICE);
  else if ($("race-status").textContent === STORE_NOTICE) render();
});

// The page's socket: the race's, then, on an arena's race page, each next race's (the server
// goes on to the next race on it: showNextRace; a reconnect opens on the race `config` names).
const sock = new ReconnectingSocket(config.ws_path);

// A reconnect asks for the events after the last one applied (?since=N): the server answers
// with exactly those (or a fresh snapshot), then the board as it stands.
sock.addEventListener("open", () => {
  if (model.loaded) model.reconnected(); // the catch-up's moves came at times the page missed
  ping();
  if (pending) send(pending); // a move sent before the drop: the server applies it once
});
sock.addEventListener("message", (e) => onFrame(e.detail));
sock.addEventListener("close", (e) => {
  if (e.detail.code === 4004) sock.close(); // no such race: nothing to come back to
  sock.url = socketUrl(`${config.ws_path}${model.loaded ? `?since=${model.event}` : ""}`);
});
sock.addEventListener("status", (e) => {
  root.dataset.socket = e.detail.state;
  if (e.detail.state === "reconnecting") setStatus("Connection lost; reconnecting…", true);
  nextRace?.connection(e.detail.state); // a socket back: its wait for the next race asked again
});

function send(frame) {
  sock.send(frame);
}

function ping() {
  send({ type: "ping", t: performance.now() });
}

function leavePage(go) {
  sock.close();
  nextRace?.close();
  go();
}

// ------------------------------------------------------------------ frames

function onFrame(frame) {
  if (typeof frame.now === "number" && bestRtt === Infinity) offset = frame.now - Date.now();
  if (nextRace?.take(frame)) return; // the arena's board and placement, once waiting
  switch (frame.type) {
    case "pong": {
      // The server's clock at the middle of the round trip; the shortest trip is the best guess.
      const rtt = performance.now() - frame.t;
      if (rtt <= bestRtt) {
        bestRtt = rtt;
        offset = frame.server_time_ms - (Date.now() - rtt / 2);
      }
      return;
    }
    case "state":
    case "ack":
      return onBoard(frame);
    case "board":
      return onSpectatorBoard(frame);
    case "edited": // an admin moved the arena's end (the page waits for its next race)
      eventEnds = frame.ends_at;
      nextRace?.edit(frame.ends_at);
      return;
    case "error":
      return onError(frame);
    default:
      break;
  }
  if (frame.type === "rematch" && typeof frame.event !== "number") {
    goToRematch(frame.url);
    return;
  }
  const iLeft = frame.type === "left" && model.you.racer && frame.racer === model.you.racer;
  if (!model.apply(frame)) {
    send({ type: "sync", since: model.event }); // a gap: ask for what was missed
    return;
  }
  root.dataset.event = String(model.event);
  openedAt ??= frame.now ?? serverNow();
  if (frame.type === "rematch" && model.you.racer) goToRematch(frame.url);
  if (frame.type === "arena") waitHereForNextRace(frame);
  if (iLeft) {
    leavePage(() => location.reload()); // back to the page as a visitor, with the join form
    return;
  }
  render();
}

function onBoard(frame) {
  if (boardFrame && frame.seq < boardFrame.seq) return;
  if (frame.type === "ack" || (boardFrame && frame.seq > boardFrame.seq)) movedAt = frame.now;
  store.clear();
  if (pending && frame.seq > pending.seq) pending = null; // answered (or applied before a drop)
  boardFrame = frame;
  root.dataset.seq = String(frame.seq);
  if (!board) {
    board = new Board($("board"), {
      variant: config.variant,
      layout: config.layout,
      interactive: true,
      onMove: (move) => play({ type: "move", move }),
      onNotice: (text) => setStatus(text),
    });
  }
  board.render(frame.view, canPlay() ? frame.legal : []);
  keepFocus();
  renderMe();
  if (model.loaded) renderStandings(); // your own row follows your board too
}

/** Whether this racer may still move: racing, and not won, resigned or out of time. */
function canPlay() {
  const me = model.me;
  return Boolean(me) && ["playing", "stuck"].includes(me.status) && model.phase(serverNow()) === "running";
}

/** Redraw the board when whether this racer may move changed since it was drawn: without
 * targets once they are done (or the race is); with its legal moves once the countdown ends on
 * this page's clock, which may be after the server's start sent the board (a clock that runs
 * behind the server's: a slow line, a busy machine). */
function boardFollowsPhase() {
  if (!board || !boardFrame) return;
  const legal = canPlay() ? boardFrame.legal : [];
  if (Boolean(legal.length) !== Boolean(board.legal.list.length)) board.render(boardFrame.view, legal);
}

function play(frame) {
  if (!boardFrame || pending) {
    board?.cancelPending();
    return;
  }
  pending = { ...frame, seq: boardFrame.seq };
  send(pending);
}

function onSpectatorBoard(frame) {
  let entry = spectatorBoards.get(frame.racer);
  if (!entry) {
    const node = document.createElement("figure");
    node.className = "spectator-board";
    node.dataset.racer = frame.racer;
    const caption = document.createElement("figcaption");
    const host = document.createElement("div");
    host.className = "board-host";
    node.append(caption, host);
    $("boards").append(node);
    const b = new Board(host, {
      variant: config.variant,
      layout: config.layout,
      interactive: false,
      fit: "width",
    });
    entry = { board: b, frame: null, node, caption };
    spectatorBoards.set(frame.racer, entry);
  }
  if (entry.frame && frame.seq < entry.frame.seq) return;
  entry.frame = frame;
  entry.board.render(frame.view, []);
  renderSpectatorCaptions();
}

function onError(frame) {
  if (store.handle(frame, pending)) return; // kept pending, resent after retry_ms
  if (pending && ["illegal_move", "stale_seq", "game_over", "race_over", "not_started",
    "already_finished", "rate_limited"].includes(frame.code)) {
    pending = null;
    board?.cancelPending();
  }
  setStatus(frame.reason || frame.code, true);
}

/** What this tab keeps across its page loads (sessionStorage), or null. */
function tabRead(key) {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null; // no storage (a private window's quota): the page keeps nothing across loads
  }
}

/** Keep `value` for this tab's next page loads (null: forget it). */
function tabWrite(key, value) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // no storage: what the page holds lasts while it stays open
  }
}

let nextRace = null; // an arena's race, over: the wait for the next one (arena-next.js)
const backKey = "arena-came-back-from"; // the race a tab came back from (the popstate below)
const cameBackFrom = tabRead(backKey); // that race's code, or null, read once
tabWrite(backKey, null);

/** How many of the race's racers may still move: the race ends when the last of them is done. */
function stillPlaying() {
  return model.stillRacing().length;
}

/** An arena's racer is done (won, resigned, out of time), or the race is over: the page stays,
 * the result in view, and the arena places its racer in the next race from here, as soon as
 * this race closes (the race's socket, already open, waits there: arena-next.js).
 * `wait` is the race's `arena` event, or the page's config (the event's contents) for a racer
 * done before it, or a page that opened (or whose socket came back with a snapshot) after it. */
function waitHereForNextRace(wait) {
  if (!wait || nextRace || !model.you.racer || !$("next-race")) return;
  if (eventClock && typeof wait.ends_at === "number") eventEnds = wait.ends_at; // as of now
  $("next-race").hidden = false;
  if (cameBackFrom) {
    $("came-back-link").href = new URL(`../${cameBackFrom}/`, location.href).pathname;
    setText($("came-back-code"), cameBackFrom);
    $("came-back").hidden = false;
  }
  nextRace = waitForNextRace(wait, {
    now: serverNow,
    send,
    shown: cameBackFrom ?? undefined,
    status: (text) => setText($("next-race-status"), text),
    you: (text) => setText($("next-race-you"), text),
    paused: (paused) => {
      $("pause-button").hidden = paused;
      $("pause-help").hidden = paused;
    },
    go: showNextRace,
  });
}

/** The arena placed the racer in their next race: this page becomes that race's, with no page
 * load and on the same socket (the page of every race of an arena is the same but for the race's
 * own code, links and badges; the server sends the next race's snapshot on the socket right
 * after `placed`). The address bar follows, so a reload, a bookmark or a shared link is the new
 * race's; going back to an earlier race's address loads that page. */
function showNextRace(url) {
  const next = new URL(url, location.href);
  const code = next.pathname.split("/").filter(Boolean).pop();
  nextRace?.close();
  nextRace = null;
  history.pushState({ race: code }, "", next.pathname);
  config = { ...config, code, ws_path: `/ws/race/${code}/`, results_url: `${next.pathname}results/` };
  model = new RaceModel();
  pending = null;
  boardFrame = null;
  movedAt = null;
  openedAt = null;
  boardTookFocus = false;
  board?.destroy();
  board = null;
  const host = document.createElement("div"); // a fresh host: the old board's listeners go with it
  host.className = "board-host";
  host.id = "board";
  $("board").replaceWith(host);
  for (const { board: shown } of spectatorBoards.values()) shown.destroy();
  spectatorBoards.clear();
  $("boards").replaceChildren();
  for (const id of ["next-race-status", "next-race-you", "over-text", "race-remaining"]) {
    setText($(id), "");
  }
  setText($("race-clock"), clock(0)); // the last race's time, which the countdown keeps
  $("next-race").hidden = true;
  $("came-back").hidden = true;
  $("race-over").hidden = true;
  document.title = document.title.replace(/^Race \S+/, `Race ${code}`);
  setText($("race-code"), code);
  const invite = $("invite-link"); // an event's race has none: its link to watch is the address
  if (invite) invite.value = next.href;
  $("results-link").href = config.results_url;
  Object.assign(root.dataset, { phase: "lobby", event: "0" });
  delete root.dataset.seq; // no board of this race yet
  setStatus("Your next race of the arena: the board comes with its countdown…");
}

// An earlier race's address (the back button after races in place): that race's page. The
// tab remembers the race it came back from (sessionStorage, read once by the page it loads): the
// page offers a way back to it, and its wait asks not to be sent there (the server sends a page
// opened just after its player's placement to that race, which would take this one away).
window.addEventListener("popstate", () => {
  if (location.pathname.endsWith(`/${config.code}/`)) return;
  tabWrite(backKey, config.code); // without storage the page may be sent on to that race
  location.reload();
});

function goToRematch(url) {
  leavePage(() => location.assign(url));
}

// ------------------------------------------------------------------ drawing

function setStatus(text, isError = false) {
  const node = $("race-status");
  setText(node, text); // a live region: the same words written again may be read out again
  node.classList.toggle("error", isError);
}

function racerName(racer) {
  return racer.id === model.you.racer ? `${racer.name} (you)` : racer.name;
}

// A racer's name as a link to their player page, opened in a new tab: following it must not
// take a racer out of the lobby or the race.
function racerLink(racer) {
  if (racer.player == null) return document.createTextNode(racerName(racer));
  const link = document.createElement("a");
  link.href = config.player_url.replace(/0\/$/, `${racer.player}/`);
  link.target = "_blank";
  link.rel = "noopener";
  link.textContent = racerName(racer);
  link.title = `${racer.name}'s player page (a new tab)`;
  return link;
}

// A quick race's racer whose socket closed before the start was taken out of the race (the
// server cannot tell a reload or a dropped connection from a closed page): the page, still
// open, takes its seat back, unless its player pressed Leave. The tab remembers the seat it
// held (sessionStorage), so a reload takes it back however its old socket's close and the new
// page cross: the page may load after the leave (it comes as a visitor's), or get the `left`
// after its snapshot named it (and load once more, below in onFrame).
const seatKey = `quick-seat:${config.code}`;
function rememberSeat(held) {
  tabWrite(seatKey, held ? "held" : null); // without storage, kept while the page stays open
}
function seatRemembered() {
  return tabRead(seatKey) === "held";
}
// none, held, rejoining, left
let quickSeat = root.dataset.role === "racer" || seatRemembered() ? "held" : "none";
function keepQuickSeat(phase) {
  if (!model.race.quick) return;
  if (phase !== "lobby") {
    if (model.loaded) rememberSeat(false);
    return;
  }
  if (model.you.racer) {
    quickSeat = "held";
    rememberSeat(true);
  } else if (quickSeat === "held") {
    quickSeat = "rejoining";
    send({ type: "join" });
    send({ type: "sync" }); // a snapshot after the join: it says which racer is you
  }
}

function render() {
  const phase = model.phase(serverNow());
  keepQuickSeat(phase);
  root.dataset.phase = phase;
  root.dataset.role = model.you.racer ? "racer" : "spectator";
  setHidden($("winnable-badge"), !model.race.winnable); // the next race of an arena's, in place
  renderLobby(phase);
  const started = ["countdown", "running", "overtime", "finished"].includes(phase) && model.race.starts_at;
  $("lobby").hidden = phase !== "lobby";
  $("race-main").hidden = !started;
  $("race-controls").hidden = !(model.me && ["playing", "stuck"].includes(model.me.status));
  renderStandings();
  renderOver(phase);
  if (DONE.includes(model.me?.status)) waitHereForNextRace(config.next_race);
  nextRace?.playing(phase === "running" ? stillPlaying() : 0);
  renderMe();
  renderStatusLine(phase);
  boardFollowsPhase();
  keepFocus();
  tick();
}

let boardTookFocus = false;

/** Once your board is up, the skip link leads to it; and the focus that fell with the lobby's
 * buttons when the race started (or that was nowhere) goes to it, once. */
function keepFocus() {
  const up = Boolean(board) && !$("race-main").hidden;
  const skip = document.querySelector(".skip-link");
  if (skip) {
    skip.href = up ? "#board" : "#content";
    skip.textContent = up ? "Skip to the board" : "Skip to the content";
  }
  if (!up || boardTookFocus) return;
  boardTookFocus = true;
  const active = document.activeElement;
  if (!active || active === document.body || active.closest("[hidden]")) board.focus();
}

function renderStatusLine(phase) {
  const race = model.race;
  if (phase === "lobby" && race.quick) {
    const n = model.racers.size;
    const left = race.autostart_at ? Math.max(0, Math.ceil((race.autostart_at - serverNow()) / 1000)) : null;
    const waiting = n === 0
      ? `Quick race: nobody in the lobby yet (up to ${race.max_players} players).`
      : `Quick race: waiting for a second player (${n} of ${race.max_players}).`;
    setStatus(left === null
      ? waiting
      : `Quick race: starts in ${left} s (${n} of ${race.max_players} players; at once with ${race.max_players}).`);
  } else if (phase === "lobby") {
    setStatus(lobbyLine(model.racers.size, race.max_players));
  } else if (phase === "countdown") {
    setStatus(model.me?.status === "resigned" ? "You resigned before the start; the others play on." : "Get ready…");
  } else if (phase === "running") {
    const idle = idleDeadline();
    if (!model.you.racer) setStatus("You are watching this race.");
    else if (idle !== null) setStatus((idleSaid = idleLine(idle)));
    else if (model.me?.status === "stuck") setStatus("No move left: undo, or resign.");
    else if (model.me?.status === "won") setStatus(`You finished in ${clock(model.me.finish_ms, true)}! ${waiting()}`);
    else if (model.me?.status === "resigned") setStatus(`You resigned. ${waiting()}`);
    else setStatus("Race on!");
  } else if (phase === "finished") {
    const why = model.me?.resigned_for;
    setStatus(why ? OVER_FOR[why] + (why === "idle" && config.next_race ? SITS_OUT : "") : "The race is over.");
  } else if (phase === "cancelled") {
    setStatus("This race was cancelled: everyone left the lobby.");
  } else if (phase === "overtime") {
    setStatus("Time is up.");
  }
}

/** The race's end for a racer the server resigned (`resigned_for`), in their page's words. */
const OVER_FOR = {
  left: "The race is over. You had left it while the others were done, so it counted as a resignation.",
  idle: "The race is over. You made no move for a while, nor did anyone else still racing, while others waited for its end: it counted as a resignation.",
};
const SITS_OUT = " You sit out the arena's next races until you resume."; // an arena's idle racer

/** What this racer, done, waits for (`waitingLine`). */
const waiting = () => waitingLine(model.racersInOrder(), config.idle_after_s);

/** When the server resigns this racer as idle (docs/protocol.md): still racing while someone
 * else is done (`stillDeadline`). null when the rule does not apply to them. */
function idleDeadline() {
  return config.idle_after_s && canPlay() ? stillDeadline() : null;
}

/** For this racer once done: when the server resigns those still racing as idle, if none of
 * them moves (`stillDeadline`; a move of theirs that this page sees moves it on). */
function waitDeadline() {
  return config.idle_after_s && model.me && DONE.includes(model.me.status) ? stillDeadline() : null;
}

/** When the server resigns the racers still racing as idle (docs/protocol.md), someone being
 * done: `idle_after_s` after the latest of the last move of anyone still racing (this racer's,
 * or another's this page saw) and the last of the others' ends. null when nobody is done or
 * nobody still races; undefined when this page cannot know that last move (it opened after the
 * last end, and has seen no move since: any move it missed came before one it saw). */
function stillDeadline() {
  const done = model.doneRacing();
  if (!done.length || !model.stillRacing().length) return null;
  const lastDone = model.race.starts_at + Math.max(...done.map((racer) => racer.done_ms ?? 0));
  const moves = [movedAt, ...stillRacingWithMe().map((racer) => model.movedAt.get(racer.id))];
  const seen = moves.filter((at) => at !== null && at !== undefined);
  const lastMove = seen.length ? Math.max(...seen) : null;
  if (lastMove === null && !(openedAt <= lastDone)) return undefined;
  return Math.max(lastDone, lastMove ?? 0) + config.idle_after_s * 1000;
}

/** The others still racing beside this racer. */
const stillRacingWithMe = () => model.stillRacing().filter((racer) => racer.id !== model.you.racer);

/** The status line of a racer whom the server may resign as idle (`idleDeadline`): the rule,
 * then in its last `IDLE_WARN_S` a warning, which a screen reader reads out too (the time to
 * move, counted down beside the clock, is not a live region). The last one racing is told to
 * move; one of several, that a move of any of them keeps the race going. */
function idleLine(deadline) {
  const stuck = model.me?.status === "stuck"; // no move left: an undo is the only move
  const last = !stillRacingWithMe().length;
  const after = config.idle_after_s;
  if (stuck && !boardFrame?.can_undo) {
    return last
      ? `No move left and everyone else is done: resign, or you are resigned within ${after} s.`
      : `No move left: resign, or you are resigned once nobody still racing has made a move for ${after} s.`;
  }
  const move = stuck ? "undo" : "make a move";
  if (deadline && deadline - serverNow() <= IDLE_WARN_S * 1000) {
    return `${stuck ? "Undo" : "Make a move"} within ${IDLE_WARN_S} s, or you resign.`;
  }
  if (last) return `Everyone else is done: ${move} at least every ${after} s, or you resign.`;
  const done = model.doneRacing();
  const waits = done.length === 1 ? "is done and waits" : "are done and wait";
  return `${listOfNames(done)} ${waits}: if nobody still racing makes a move for ${after} s, you all resign.`;
}

function renderLobby(phase) {
  const list = $("lobby-racers");
  list.replaceChildren(
    ...[...model.racers.values()].map((racer) => {
      const li = document.createElement("li");
      li.dataset.racer = racer.id;
      li.className = racer.ready ? "ready" : "";
      li.append(racerLink(racer));
      if (model.race.quick) return li; // no host and no ready: it starts by itself
      if (racer.host) li.append(badge("host"));
      li.append(badge(racer.ready ? "ready" : "not ready", racer.ready ? "ok" : ""));
      return li;
    }),
  );
  $("lobby-count").textContent = `(${model.racers.size} / ${model.race.max_players})`;
  const me = model.me;
  const inLobby = phase === "lobby";
  const quick = Boolean(model.race.quick);
  $("ready-button").hidden = !(inLobby && me) || quick;
  $("ready-button").textContent = me?.ready ? "Not ready" : "I'm ready";
  $("ready-button").setAttribute("aria-pressed", me?.ready ? "true" : "false");
  $("start-button").hidden = !(inLobby && model.you.host) || quick;
  $("leave-button").hidden = !(inLobby && me);
  const joinForm = $("join-form");
  const full = model.racers.size >= model.race.max_players;
  if (joinForm) joinForm.hidden = !inLobby || Boolean(me) || full;
  const fullNote = $("race-full");
  if (fullNote) fullNote.hidden = !inLobby || Boolean(me) || !full;
}

function badge(text, extra = "") {
  const span = document.createElement("span");
  span.className = `race-badge ${extra}`.trim();
  span.textContent = text;
  return span;
}

function renderStandings() {
  const total = model.race.total_cards;
  const list = $("standings");
  const before = new Map([...list.children].map((li) => [li.dataset.racer, li.getBoundingClientRect().top]));
  list.replaceChildren(
    ...model.rows().map(({ place, racer }) => {
      const li = document.createElement("li");
      li.dataset.racer = racer.id;
      li.dataset.status = racer.status;
      li.classList.toggle("you", racer.id === model.you.racer);
      const head = document.createElement("div");
      head.className = "standing-head";
      const placeNode = document.createElement("span");
      placeNode.className = "place";
      placeNode.textContent = String(place);
      const name = document.createElement("span");
      name.className = "name";
      name.append(racerLink(racer));
      const status = document.createElement("span");
      status.className = `status status-${racer.status}`;
      status.textContent =
        racer.status === "won" ? clock(racer.finish_ms, true) : statusLabel(racer);
      head.append(placeNode, name, status);
      const bar = document.createElement("div");
      bar.className = "progress";
      bar.setAttribute("role", "meter");
      bar.setAttribute("aria-valuemin", "0");
      bar.setAttribute("aria-valuemax", String(total));
      const { cards, moves } = figures(racer);
      bar.setAttribute("aria-valuenow", String(cards));
      bar.setAttribute("aria-label", `${racer.name}: ${cards} of ${total} cards home`);
      const fill = document.createElement("span");
      fill.style.width = `${(100 * cards) / total}%`;
      bar.append(fill);
      const facts = document.createElement("div");
      facts.className = "facts muted";
      facts.textContent = `${cards}/${total} cards · ${moveCount(moves)}`;
      li.append(head, bar, facts);
      return li;
    }),
  );
  // Slide rows from where they were (the leaderboard moves with every move).
  for (const li of list.children) {
    const top = before.get(li.dataset.racer);
    if (top === undefined) continue;
    const dy = top - li.getBoundingClientRect().top;
    if (dy && li.animate) li.animate([{ transform: `translateY(${dy}px)` }, { transform: "none" }], 250);
  }
  renderSpectatorCaptions();
}

function renderSpectatorCaptions() {
  for (const [id, entry] of spectatorBoards) {
    const racer = model.racers.get(id);
    if (!racer) continue;
    const status = racer.status === "won" ? clock(racer.finish_ms, true) : statusLabel(racer);
    entry.caption.textContent = `${racer.name} — ${cardCount(racer.cards)}, ${moveCount(racer.moves)} · ${status}`;
  }
}

/** A racer's cards and moves; your own from your own board at once, since progress events are
 * throttled (docs/protocol.md) and may even trail an ack you already have. */
function figures(racer) {
  if (racer.id === model.you.racer && boardFrame) {
    return { cards: cardsHome(boardFrame.view, config.variant), moves: boardFrame.moves };
  }
  return { cards: racer.cards, moves: racer.moves };
}

function renderMe() {
  const me = model.me;
  if (!me) {
    $("race-me").textContent = "";
    return;
  }
  const { cards, moves } = figures(me);
  $("race-me").textContent = `${cards}/${model.race?.total_cards ?? "?"} cards home · ${moveCount(moves)}`;
}

function renderOver(phase) {
  const over = phase === "finished";
  $("race-over").hidden = !over;
  if (!over) return;
  waitHereForNextRace(config.next_race);
  const rows = model.rows();
  const winner = rows.find((r) => r.racer.status === "won");
  $("over-text").textContent = winner
    ? `${racerName(winner.racer)} won in ${clock(winner.racer.finish_ms, true)}.`
    : `Nobody finished; ${rows[0] ? racerName(rows[0].racer) : "nobody"} got the most cards home.`;
  const mine = model.ratings[model.you.racer];
  if (mine) {
    const rating = `${mine.rating}${mine.provisional ? "?" : ""}`;
    $("over-text").textContent += ` Your rating: ${rating} (${mine.label}).`;
  }
  $("rematch-button").hidden = !model.you.racer || !config.rematch; // an arena places its racers
  if (model.race.rematch) {
    $("rematch-button").textContent = "Go to the rematch";
  }
}

// The clocks and the countdown follow the server's clock, whatever this machine's says. A timer,
// not animation frames: those stop in a background tab, and the countdown must not.
function tick() {
  if (eventClock) setText(eventClock, timeLeftText(eventEnds - serverNow()));
  if (model.loaded) {
    const now = serverNow();
    const race = model.race;
    const phase = model.phase(now);
    if (root.dataset.phase !== phase) render();
    else if (phase === "lobby" && race.quick && race.autostart_at) renderStatusLine(phase);
    // Ten ticks a second, for displays that change once a second: each writes only a change.
    const overlay = $("countdown");
    if (phase === "countdown") {
      setHidden(overlay, false);
      setText($("countdown-number"), String(Math.ceil((race.starts_at - now) / 1000)));
    } else if (phase === "running" && now - race.starts_at < 700) {
      setHidden(overlay, false);
      setText($("countdown-number"), "Go!");
    } else {
      setHidden(overlay, true);
    }
    if (race.starts_at && ["running", "overtime", "finished"].includes(phase)) {
      const end = race.finished_at || now;
      const me = model.me;
      const mine = me && me.status === "won" ? me.finish_ms : null;
      setText($("race-clock"), clock(mine ?? Math.min(end, race.ends_at) - race.starts_at));
      const idle = phase === "running" ? idleDeadline() : null;
      const line = idle === null ? idleSaid : idleLine(idle);
      if (line !== idleSaid) setStatus((idleSaid = line));
      const wait = phase === "running" && idle === null ? waitDeadline() : null;
      const toMove = (deadline) => `${clock(Math.min(deadline, race.ends_at) - now)} to move`;
      setText(
        $("race-remaining"),
        idle
          ? toMove(idle)
          : wait
            ? `${listOfNames(stillRacingWithMe())}: ${toMove(wait)}` // whom this racer, done, waits for
            : race.time_limit_s && phase === "running" ? `${clock(race.ends_at - now)} left` : "",
      );
    }
  }
}

// ------------------------------------------------------------------ controls

$("ready-button").addEventListener("click", () => send({ type: "ready", ready: !model.me?.ready }));
$("start-button").addEventListener("click", () => send({ type: "start" }));
$("leave-button").addEventListener("click", () => {
  quickSeat = "left";
  rememberSeat(false);
  send({ type: "leave" });
});
$("undo-button").addEventListener("click", () => play({ type: "undo" }));
$("resign-button").addEventListener("click", () => {
  if (confirm("Resign this race? You keep your place by the cards you have home.")) send({ type: "resign" });
});
$("rematch-button").addEventListener("click", () => {
  if (model.race.rematch) goToRematch(`/races/${model.race.rematch}/`);
  else send({ type: "rematch" });
});
// A friends' race's invite; an event's race (which places its racers) has a link to watch.
$("copy-link")?.addEventListener("click", async () => {
  const input = $("invite-link");
  try {
    await navigator.clipboard.writeText(input.value);
    setStatus("Invite link copied.");
  } catch {
    input.select();
  }
});
if ($("watch-link")) copyLinkButton($("watch-link"));

// The keys of practice (the board's, and U or Ctrl+Z to undo); races have no hint or autoplay.
document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
  if (t && t.tagName === "BUTTON" && (e.key === "Enter" || e.key === " ")) return; // the button's own
  if (!board || !canPlay()) return;
  const undoKey = (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "z";
  if (undoKey || (!e.ctrlKey && !e.metaKey && !e.altKey && e.key.toLowerCase() === "u")) {
    if (boardFrame?.can_undo) play({ type: "undo" });
    e.preventDefault();
    return;
  }
  if (!e.ctrlKey && !e.metaKey && !e.altKey && ["a", "h"].includes(e.key.toLowerCase())) {
    setStatus("No autoplay and no hints in a race: every card is yours to move.");
    e.preventDefault();
    return;
  }
  if (board.handleKey(e)) e.preventDefault();
});

sock.connect();
setInterval(tick, 100);
