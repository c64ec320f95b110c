// A JSON websocket that reconnects by itself.
//
//   const sock = new ReconnectingSocket("/ws/game/");
//   sock.addEventListener("open", (e) => sock.send({type: "open", game}));  // e.detail.reconnect
//   sock.addEventListener("message", (e) => handle(e.detail));              // parsed JSON
//   sock.addEventListener("status", (e) => show(e.detail.state));           // see STATES
//   sock.connect();
//
// Reconnects with exponential backoff and jitter, at once when the browser comes back online
// or the tab becomes visible, and keeps the line alive with pings; a ping left unanswered
// for `deadAfter` ms counts as a dead line and the socket is replaced.

/** "connecting" (first try), "open", "reconnecting" (waiting or retrying), "closed" (by us). */
export const STATES = ["connecting", "open", "reconnecting", "closed"];

const FLOOD_CLOSE = 4008; // the server closed us for flooding: wait the longest delay

export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}`;
}

export class ReconnectingSocket extends EventTarget {
  /**
   * @param {string} path  "/ws/game/" (same origin) or a full ws:// URL
   * @param {object} opts  minDelay, maxDelay (ms, backoff bounds), pingEvery, deadAfter (ms)
   */
  constructor(path, opts = {}) {
    super();
    this.url = /^wss?:/.test(path) ? path : socketUrl(path);
    this.minDelay = opts.minDelay ?? 500;
    this.maxDelay = opts.maxDelay ?? 15000;
    this.pingEvery = opts.pingEvery ?? 20000;
    this.deadAfter = opts.deadAfter ?? 10000;
    this.ws = null;
    this.state = "connecting";
    this.attempt = 0; // failed tries since the last open
    this.opened = 0; // times the socket has opened
    this.rtt = null; // last ping round trip, ms
    this.retryAt = null; // when the next try happens (performance.now() ms)
    this._timer = null;
    this._pingTimer = null;
    this._deadTimer = null;
    this._closedByUs = false;
    this._wake = () => {
      if (this.state === "reconnecting" && !this.ws) this._retryNow();
    };
    window.addEventListener("online", this._wake);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this._wake();
    });
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  connect() {
    this._closedByUs = false;
    clearTimeout(this._timer);
    this._timer = null;
    this.retryAt = null;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    this._setState(this.opened ? "reconnecting" : "connecting");
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.opened += 1;
      this._setState("open");
      this._schedulePing();
      this.dispatchEvent(new CustomEvent("open", { detail: { reconnect: this.opened > 1 } }));
    });
    ws.addEventListener("message", (e) => {
      if (ws !== this.ws) return;
      let data;
      try {
        data = JSON.parse(e.data);
      } catch {
        return; // the server only sends JSON; ignore anything else
      }
      if (data && data.type === "pong") this._pong(data);
      this.dispatchEvent(new CustomEvent("message", { detail: data }));
    });
    ws.addEventListener("close", (e) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this._stopPing();
      this.dispatchEvent(new CustomEvent("close", { detail: { code: e.code, reason: e.reason } }));
      if (this._closedByUs) {
        this._setState("closed");
        return;
      }
      this._scheduleRetry(e.code === FLOOD_CLOSE);
    });
    return this;
  }

  /** Send one JSON message; false if the socket is not open (nothing is queued). */
  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Close for good (no reconnect). */
  close() {
    this._closedByUs = true;
    clearTimeout(this._timer);
    this._stopPing();
    window.removeEventListener("online", this._wake);
    if (this.ws) this.ws.close(1000);
    else this._setState("closed");
  }

  /** Drop the current connection and reconnect now (e.g. a test or a "retry" button). */
  reconnect() {
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      this._stopPing();
      ws.close(4000);
      this.dispatchEvent(new CustomEvent("close", { detail: { code: 4000, reason: "reconnect" } }));
    }
    this.connect();
  }

  /** Milliseconds until the next reconnect try, or null. */
  retryIn() {
    return this.retryAt === null ? null : Math.max(0, this.retryAt - performance.now());
  }

  _scheduleRetry(flooded) {
    const exp = Math.min(this.maxDelay, this.minDelay * 2 ** this.attempt);
    const delay = flooded ? this.maxDelay : Math.round(exp * (0.5 + Math.random() * 0.5));
    this.attempt += 1;
    this.retryAt = performance.now() + delay;
    this._setState("reconnecting");
    this._timer = setTimeout(() => this.connect(), delay);
  }

  _retryNow() {
    clearTimeout(this._timer);
    this.connect();
  }

  _schedulePing() {
    this._stopPing();
    this._pingTimer = setInterval(() => {
      if (!this.send({ type: "ping", t: performance.now() })) return;
      clearTimeout(this._deadTimer);
      this._deadTimer = setTimeout(() => this.reconnect(), this.deadAfter);
    }, this.pingEvery);
  }

  _stopPing() {
    clearInterval(this._pingTimer);
    clearTimeout(this._deadTimer);
    this._pingTimer = null;
    this._deadTimer = null;
  }

  _pong(data) {
    clearTimeout(this._deadTimer);
    if (typeof data.t === "number") this.rtt = performance.now() - data.t;
  }

  _setState(state) {
    if (state === this.state && state !== "reconnecting") return;
    this.state = state;
    this.dispatchEvent(
      new CustomEvent("status", {
        detail: { state, attempt: this.attempt, retryIn: this.retryIn() },
      }),
    );
  }
}

/** Moves, undos and autoplays: the frames the server may answer with `unavailable`. */
const RESENDABLE = ["move", "undo", "autoplay"];
export const STORE_NOTICE = "Reconnecting to the game store…";

/**
 * Resends a move the server could not make durable (docs/protocol.md, `unavailable`: nothing
 * was applied). The same frame, same `seq`, goes again after the server's `retry_ms`; the page
 * keeps it pending meanwhile and shows a calm notice instead of an error.
 *
 *   const store = new StoreRetry((frame) => sock.send(frame), (waiting) => notice(waiting));
 *   onError: if (store.handle(error, pending)) return;   // keep `pending`
 *   onState/onAck: store.clear();
 */
export class StoreRetry {
  /**
   * @param {(frame: object) => void} resend  sends the frame again
   * @param {(waiting: boolean) => void} onWaiting  show or hide the notice
   */
  constructor(resend, onWaiting = () => {}) {
    this.resend = resend;
    this.onWaiting = onWaiting;
    this.timer = null;
    this.frame = null;
  }

  get waiting() {
    return this.frame !== null;
  }

  /** True if `error` is an `unavailable` answer to `pending`: it is resent after retry_ms. */
  handle(error, pending) {
    if (!error || error.code !== "unavailable" || !pending) return false;
    if (!RESENDABLE.includes(pending.type) || (error.ref && error.ref !== pending.type)) return false;
    clearTimeout(this.timer);
    this.frame = pending;
    const delay = Math.max(0, Number(error.retry_ms) || 1000);
    this.timer = setTimeout(() => {
      this.timer = null;
      // a state or ack that came meanwhile has cleared it: nothing to resend
      if (this.frame === pending) this.resend(pending);
    }, delay);
    this.onWaiting(true);
    return true;
  }

  /** An ack or state came: the store answered, stop waiting. */
  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.frame === null) return;
    this.frame = null;
    this.onWaiting(false);
  }
}
