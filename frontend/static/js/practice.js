// The practice page: one game over /ws/game/ (docs/protocol.md), drawn by a Board.
//
// The server is the authority: a move is drawn when its `ack` arrives, never before. One
// message is in flight at a time; if the line drops before the answer, it is sent again with
// the same `seq` after the reconnect (the server answers a duplicate with `state`).
//
// Opening a deal's page writes nothing on the server: until the player first acts, the page
// draws the deal the server rendered into its config (`deal`, a state frame with game null) and
// has no socket. The first move, autoplay or hint POSTs to the page's address, which creates
// the game (and a guest and its session, for a new visitor); then the socket opens it, and the
// action waiting at seq 0 is sent as after any reconnect.
//
// For tests: body[data-ws-ready="1"] once the page can take a move (the socket open and the
// first state drawn, or the deal drawn before any game exists),
// body[data-moves] after every state/ack, #play[data-status] (playing/won/stuck),
// #play[data-hint] (the last hint's move, "" for none) once a hint arrives.

import { applySavedCardPreferences, cardText, fourColour, moveCount, setFourColour } from "./cards.js";
import { Board } from "./board.js";
import { setText } from "./dom.js";
import { describeMoveCards, describePlayed, LegalMoves, pileKind } from "./moves.js";
import { ReconnectingSocket, STORE_NOTICE, StoreRetry } from "./socket.js";

const $ = (id) => document.getElementById(id);
const PENDING_TIMEOUT_MS = 8000;

/** What a hint without a move means, by its `reason` (docs/protocol.md, "hint"). */
const HINT_REASONS = {
  lost: "No win is possible from here: take some moves back.",
  not_found: "No winning line found in time; this position may still be winnable.",
  game_over: "The game is over: nothing to suggest.",
};

/** "1:05", "12:00", "1:02:03" from milliseconds. */
export function formatClock(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Whether autoplay would send anything: a legal move to a foundation (in Spiderweb, where an
 * empty foundation is also a cell, only a whole suit counts). */
export function autoplayUseful(variant, legal) {
  return new LegalMoves(legal).moves.some(
    (m) => !m.deal && pileKind(m.dst) === "foundation" && (variant !== "spiderweb" || m.count === 13),
  );
}

class Toast {
  constructor(node) {
    this.node = node;
    this.timer = null;
  }

  show(text, kind = "info", ms = 3500) {
    if (!text) return;
    this.node.textContent = text;
    this.node.dataset.kind = kind;
    this.node.hidden = false;
    this.node.classList.remove("leaving");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.hide(), ms);
  }

  hide() {
    this.node.classList.add("leaving");
    this.timer = setTimeout(() => {
      this.node.hidden = true;
    }, 200);
  }
}

class Timer {
  constructor(node) {
    this.node = node;
    this.base = 0;
    this.at = performance.now();
    this.running = false;
    setInterval(() => this.paint(), 250);
  }

  /** From the server's elapsed_ms at the frame's arrival; runs only while playing. */
  sync(elapsedMs, running) {
    this.base = elapsedMs || 0;
    this.at = performance.now();
    this.running = running;
    this.paint();
  }

  now() {
    return this.base + (this.running ? performance.now() - this.at : 0);
  }

  paint() {
    setText(this.node, formatClock(this.now()));
  }
}

export class PracticeGame {
  constructor(config) {
    this.config = config;
    this.frame = null; // the last state/ack drawn
    this.pending = null; // the message awaiting its answer
    this.overlayFor = null; // status whose overlay was shown (not shown twice)
    this.hintSeq = null; // seq of the position a hint was asked for, while it is searched
    this.root = $("play");
    this.toast = new Toast($("toast"));
    this.timer = new Timer($("timer"));
    this.board = new Board($("board"), {
      variant: config.variant,
      layout: config.layout,
      interactive: true,
      onMove: (move) => this.act({ type: "move", move }),
      onNotice: (text) => this.toast.show(text, "info", 2200),
    });
    this.socket = new ReconnectingSocket(config.ws_path);
    this.store = new StoreRetry(
      (frame) => {
        this.socket.send(frame);
        this.watchPending(frame);
      },
      (waiting) => this.onStoreWaiting(waiting),
    );
    this.socket.addEventListener("open", () => this.socket.send({ type: "open", game: config.game }));
    this.socket.addEventListener("message", (e) => this.onFrame(e.detail));
    this.socket.addEventListener("status", (e) => this.onStatus(e.detail));
    this.socket.addEventListener("close", () => {
      document.body.dataset.wsReady = "0";
    });
    this.bindControls();
    if (config.game) this.socket.connect();
    else this.showDeal(config.deal);
  }

  /** The deal as dealt, before any game exists: playable at once, created by the first action. */
  showDeal(frame) {
    this.onState(frame);
    const node = $("conn");
    node.dataset.state = "idle";
    node.querySelector(".conn-label").textContent = "Ready";
    node.title = "The game starts on the server with your first move";
    document.body.dataset.wsReady = "1";
  }

  /** Create the game on the server (POST to this page), then open it on the socket. */
  startGame() {
    if (this.starting) return this.starting;
    const token = document.querySelector("#start-game [name=csrfmiddlewaretoken]")?.value || "";
    this.starting = fetch(location.pathname, {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRFToken": token },
      credentials: "same-origin",
    })
      .then((reply) => {
        if (!reply.ok) throw new Error(`the server answered ${reply.status}`);
        return reply.json();
      })
      .then(({ game }) => {
        this.config.game = game;
        if (this.pending) this.pending.game = game;
        this.socket.connect(); // its first state at seq 0 sends the waiting action
      })
      .catch(() => {
        this.starting = null;
        this.pending = null;
        this.hintAfterStart = false;
        this.board.cancelPending();
        this.paintButtons();
        this.toast.show("Could not start the game on the server; try again.", "error");
      });
    return this.starting;
  }

  // ------------------------------------------------------------ server frames

  onFrame(frame) {
    if (!frame || typeof frame !== "object") return;
    if (frame.type === "state" || frame.type === "ack") this.onState(frame);
    else if (frame.type === "hint") this.onHint(frame);
    else if (frame.type === "error") this.onError(frame);
  }

  /** Light up the suggested move's piles, unless the position has changed since the ask. */
  onHint(frame) {
    this.hintSeq = null;
    this.paintButtons();
    if (frame.game !== this.config.game || !this.frame || frame.seq !== this.frame.seq) return;
    this.root.dataset.hint = frame.move || "";
    if (frame.move) {
      this.board.highlight(frame.move);
      const text = `Hint: ${describeMoveCards(frame.move, this.frame.view, cardText)}`;
      this.toast.show(text, "info", 4000);
      $("announce").textContent = text;
    } else {
      this.toast.show(HINT_REASONS[frame.reason] || "No hint for this position.", "info", 4500);
    }
  }

  onState(frame) {
    if (frame.game !== (this.config.game ?? null)) return;
    if (this.frame && frame.seq < this.frame.seq) return; // an older frame overtaken
    const pending = this.pending;
    if (pending && frame.seq > pending.seq) this.pending = null; // applied (maybe before a drop)
    this.frame = frame;
    this.store.clear();
    const legal = frame.status === "playing" ? frame.legal || [] : [];
    this.board.render(frame.view, legal);
    this.timer.sync(frame.elapsed_ms, frame.status === "playing" && !!frame.game);
    $("move-count").textContent = String(frame.moves);
    document.body.dataset.moves = String(frame.moves);
    this.root.dataset.status = frame.status;
    this.root.dataset.seq = String(frame.seq);
    this.paintButtons();
    if (frame.type === "ack") this.announce(frame.played || []);
    this.showOutcome(frame);
    if (this.socket.isOpen) document.body.dataset.wsReady = "1";
    // a state at the same seq after a reconnect: our message never arrived, send it again
    if (this.pending && frame.type === "state" && frame.seq === this.pending.seq) {
      this.socket.send(this.pending);
      this.watchPending(this.pending);
    }
    if (this.hintAfterStart && this.socket.isOpen) {
      this.hintAfterStart = false;
      this.hint();
    }
  }

  onError(frame) {
    if (this.store.handle(frame, this.pending)) {
      clearTimeout(this._pendingTimer); // the server answered: the line is not quiet
      return;
    }
    if (frame.ref === "hint") {
      this.hintSeq = null;
      this.paintButtons();
    }
    const mine = this.pending && (frame.ref === this.pending.type || frame.ref == null);
    if (mine) {
      this.pending = null;
      this.board.cancelPending();
      this.paintButtons();
    }
    if (frame.code === "stale_seq" || frame.code === "server_error" || frame.code === "no_game") {
      this.socket.send({ type: "open", game: this.config.game }); // resync
    }
    const quiet = frame.code === "rate_limited" ? "Slow down a little." : null;
    this.toast.show(quiet || frame.reason || frame.code, "error");
  }

  /** The server's store is away for a moment: a calm notice while the move waits, not an error. */
  onStoreWaiting(waiting) {
    this.root.dataset.store = waiting ? "waiting" : "";
    if (waiting) this.toast.show(STORE_NOTICE, "info", 60_000);
    else if (this.toast.node.textContent === STORE_NOTICE) this.toast.hide();
  }

  onStatus({ state, retryIn }) {
    const node = $("conn");
    node.dataset.state = state;
    const label = {
      connecting: "Connecting…",
      open: "Online",
      reconnecting:
        retryIn == null || retryIn < 1000
          ? "Reconnecting…"
          : `Offline · retry in ${Math.ceil(retryIn / 1000)} s`,
      closed: "Offline",
    }[state];
    node.querySelector(".conn-label").textContent = label;
    node.title =
      state === "open"
        ? "Connected: every move is saved on the server"
        : "Not connected: your moves are safe on the server; reconnecting by itself";
    if (state !== "open") document.body.dataset.wsReady = "0";
    clearTimeout(this._statusTimer);
    if (state === "reconnecting" && retryIn > 1000) {
      this._statusTimer = setTimeout(
        () => this.onStatus({ state: this.socket.state, retryIn: this.socket.retryIn() }),
        1000,
      );
    }
  }

  /** Say what just happened, for screen readers (the board itself changes silently). */
  announce(played) {
    $("announce").textContent = describePlayed(played);
  }

  // ------------------------------------------------------------ actions

  /** Send a move/undo/autoplay with the current seq; one at a time. */
  act(message) {
    if (!this.frame || this.pending) {
      this.board.cancelPending();
      return false;
    }
    if (this.frame.status === "won") {
      this.board.cancelPending();
      return false;
    }
    this.pending = { ...message, seq: this.frame.seq, game: this.config.game };
    this.paintButtons();
    if (!this.config.game) {
      this.startGame();
      return true;
    }
    if (!this.socket.send(this.pending)) {
      this.toast.show("Offline: the move is sent when the connection is back.", "info");
    }
    this.watchPending(this.pending);
    return true;
  }

  /** A move left unanswered on an open line is a line gone quiet: reconnect, which resyncs
   * (and resends the move with its seq if the server never had it). */
  watchPending(pending) {
    clearTimeout(this._pendingTimer);
    this._pendingTimer = setTimeout(() => {
      if (this.pending === pending && this.socket.isOpen) this.socket.reconnect();
    }, PENDING_TIMEOUT_MS);
  }

  undo() {
    if (this.frame && this.frame.can_undo) this.act({ type: "undo" });
  }

  autoplay() {
    if (this.frame && this.frame.status === "playing") this.act({ type: "autoplay" });
  }

  /** Ask the server for the next move of a winning line (practice only; a search of ~2 s). */
  hint() {
    const f = this.frame;
    if (f && f.status === "playing" && !this.config.game) {
      this.hintAfterStart = true;
      this.startGame();
      return;
    }
    if (!f || f.status !== "playing" || this.hintSeq !== null || !this.socket.isOpen) return;
    this.hintSeq = f.seq;
    this.paintButtons();
    this.toast.show("Looking for a winning line…", "info", 2500);
    this.socket.send({ type: "hint", game: this.config.game });
    // a hint lost with the line is not resent: let the button work again after a while
    setTimeout(() => {
      if (this.hintSeq === f.seq) {
        this.hintSeq = null;
        this.paintButtons();
      }
    }, PENDING_TIMEOUT_MS);
  }

  newDeal() {
    location.href = $("btn-new").href;
  }

  paintButtons() {
    const f = this.frame;
    const busy = !!this.pending;
    $("btn-undo").disabled = !f || !f.can_undo || busy;
    $("btn-autoplay").disabled =
      !f || f.status !== "playing" || busy || !autoplayUseful(this.config.variant, f.legal || []);
    $("overlay-undo").hidden = !f || !f.can_undo;
    $("btn-hint").disabled = !f || f.status !== "playing" || this.hintSeq !== null;
  }

  // ------------------------------------------------------------ outcome overlay

  showOutcome(frame) {
    const status = frame.status;
    if (status === "playing") {
      this.overlayFor = null;
      this.hideOverlay();
      return;
    }
    if (this.overlayFor === status) return;
    this.overlayFor = status;
    const won = status === "won";
    $("overlay").dataset.kind = status;
    $("overlay-icon").textContent = won ? "\u2605" : "\u2715";
    $("overlay-title").textContent = won ? "You won!" : "No moves left";
    $("overlay-text").textContent = won
      ? `${this.config.variant_name} solved in ${moveCount(frame.moves)} and ${formatClock(frame.elapsed_ms)}.`
      : frame.can_undo
        ? "There is no legal move left. Take some moves back and try another way, or deal again."
        : "This deal has no legal move at all. Try another one.";
    $("overlay").hidden = false;
    this.board.clearSelection();
    (won ? $("overlay-new") : $("overlay-undo")).focus({ preventScroll: true });
    if (won) this.celebrate();
  }

  hideOverlay() {
    $("overlay").hidden = true;
  }

  /** Suits falling over the table, once, when the game is won (skipped for reduced motion). */
  celebrate() {
    if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const layer = document.createElement("div");
    layer.className = "confetti";
    layer.setAttribute("aria-hidden", "true");
    const symbols = ["\u2660", "\u2665", "\u2666", "\u2663"];
    for (let i = 0; i < 36; i++) {
      const s = document.createElement("span");
      s.textContent = symbols[i % 4];
      s.className = i % 4 === 1 || i % 4 === 2 ? "red" : "black";
      s.style.left = `${Math.random() * 100}%`;
      s.style.animationDelay = `${Math.random() * 1.2}s`;
      s.style.animationDuration = `${2.2 + Math.random() * 1.6}s`;
      s.style.fontSize = `${16 + Math.random() * 22}px`;
      layer.appendChild(s);
    }
    $("board").appendChild(layer);
    setTimeout(() => layer.remove(), 4500);
  }

  // ------------------------------------------------------------ controls and keys

  bindControls() {
    $("btn-undo").addEventListener("click", () => this.undo());
    $("btn-autoplay").addEventListener("click", () => this.autoplay());
    $("btn-hint").addEventListener("click", () => this.hint());
    $("overlay-undo").addEventListener("click", () => this.undo());
    $("overlay-close").addEventListener("click", () => this.hideOverlay());
    const colours = $("btn-colours");
    const paintColours = () => colours.setAttribute("aria-pressed", String(fourColour()));
    colours.addEventListener("click", () => {
      setFourColour(!fourColour());
      paintColours();
    });
    paintColours();
    // The help takes the focus when it opens (a screen reader reads it, Tab reaches its Close);
    // the browser gives it back to where it was when the help closes.
    const help = $("help");
    help.addEventListener("toggle", (e) => {
      if (e.newState === "open") help.focus();
    });
    document.addEventListener("keydown", (e) => this.onKey(e));
  }

  onKey(e) {
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    const help = $("help");
    if (e.key === "Escape" && !$("overlay").hidden) {
      this.hideOverlay();
      e.preventDefault();
      return;
    }
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "z") {
      this.undo();
      e.preventDefault();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.toLowerCase();
    if (key === "?") {
      help.togglePopover();
      e.preventDefault();
      return;
    }
    if (help.matches(":popover-open")) return;
    if (key === "u") this.undo();
    else if (key === "a") this.autoplay();
    else if (key === "h") this.hint();
    else if (key === "n") this.newDeal();
    else if (!this.board.handleKey(e)) return;
    e.preventDefault();
  }
}

function main() {
  applySavedCardPreferences();
  const node = $("board-config");
  if (!node) return;
  const config = JSON.parse(node.textContent);
  window.practice = new PracticeGame(config);
}

main();
