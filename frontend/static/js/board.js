// The board: draws a player view of any variant and, when interactive, turns drags, clicks and
// keys into move strings taken from the server's `legal` list.
//
//   const board = new Board(el, {variant, layout, interactive, onMove, onNotice});
//   board.render(view, legal);   // after every state/ack
//   board.cancelPending();       // the server refused the move: put the cards back
//
// A non-interactive board (replays, spectators) only draws.

import { cardCount, cardText, createCard, isHidden, rankLabel } from "./cards.js";
import { cardSize, fanPile, planTable, VARIANT_LAYOUTS } from "./layout.js";
import { LegalMoves, parseMove, pileKind, pileName } from "./moves.js";

export { VARIANT_LAYOUTS };

const DRAG_THRESHOLD = 5; // px before a press becomes a drag
const DOUBLE_CLICK_MS = 380;

const prefersReducedMotion = () =>
  window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

function el(tag, className, attrs = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** The tableau key: "1"…"9" for t0…t8, "0" for t9. */
export function tableauKey(i) {
  return i === 9 ? "0" : String(i + 1);
}

export class Board {
  /**
   * @param {HTMLElement} root  element to draw into (emptied)
   * @param {object} opts
   *   variant: variant id; layout: {tableau, foundations, cells, has_stock, has_waste} (optional)
   *   interactive: accept drags, clicks and keys (default true)
   *   onMove(move): a move string from `legal` (or a well-formed one for the server to explain)
   *   onNotice(text): a short message for the player (no legal move, nothing selected…)
   *   fit: "viewport" (default) sizes cards so the board fits the window; "width" only the width
   */
  constructor(root, opts = {}) {
    this.root = root;
    this.variant = opts.variant;
    this.layout = opts.layout || VARIANT_LAYOUTS[opts.variant] || {};
    this.interactive = opts.interactive !== false;
    this.onMove = opts.onMove || (() => {});
    this.onNotice = opts.onNotice || (() => {});
    this.fit = opts.fit || "viewport";
    this.view = null;
    this.legal = new LegalMoves();
    this.selection = null; // {src, count}
    this.pending = null; // move string sent, awaiting the server
    this.press = null; // pointer press / drag in progress
    this.lastClick = null;
    this.focusedPile = null;
    this.piles = new Map(); // pile name -> element

    root.classList.add("board", `variant-${this.variant}`);
    root.dataset.variant = this.variant;
    root.classList.toggle("interactive", this.interactive);
    if (this.interactive) {
      root.setAttribute("role", "application");
      root.setAttribute("aria-roledescription", "card table");
      // A skip link (or a script) that focuses the table puts the focus ring on a pile.
      root.tabIndex = -1;
      root.addEventListener("focus", () => this.focus());
      this._bindPointer();
      root.addEventListener("focusin", (e) => {
        const pile = e.target.closest && e.target.closest("[data-pile]");
        if (pile) this.focusedPile = pile.dataset.pile;
      });
    }
    // only a change of width re-sizes the cards (the board's own height follows its piles)
    this._resizeObserver = new ResizeObserver(() => {
      if (this.root.clientWidth !== this._measuredWidth) this._measureAndPlace();
    });
    this._resizeObserver.observe(root);
    this._onWindowResize = () => this._measureAndPlace();
    window.addEventListener("resize", this._onWindowResize);
  }

  destroy() {
    this._resizeObserver.disconnect();
    window.removeEventListener("resize", this._onWindowResize);
    this.root.replaceChildren();
  }

  // ---------------------------------------------------------------- drawing

  /** Draw `view` (the engine's player view) with `legal` (list of move strings). */
  render(view, legal = []) {
    const before = this._cardRects();
    const active = document.activeElement;
    const focusName =
      active && this.root.contains(active) ? active.closest("[data-pile]")?.dataset.pile : null;
    // Cards moved (an undo by key, say): the next click starts afresh, not a double-click.
    if (view !== this.view) this.lastClick = null;
    this.view = view;
    this.legal = new LegalMoves(legal);
    this.selection = null;
    this.pending = null;
    this._endPress();
    this._build();
    this._measureAndPlace();
    this._animateFrom(before);
    this.root.dataset.pending = "";
    // keep keyboard focus on the same pile across redraws
    if (focusName) this.piles.get(focusName)?.focus({ preventScroll: true });
  }

  /** The server refused the last move: redraw the position as it was (cards glide back). */
  cancelPending() {
    if (this.view) this.render(this.view, this.legal.list);
  }

  /** Put the keyboard focus on the table: the pile it was last on, else the first pile. */
  focus() {
    this._moveFocus(null, null);
  }

  /** Forget any selection (e.g. when an overlay opens). */
  clearSelection() {
    this.selection = null;
    this._paintSelection();
  }

  /** Data attributes of every card, pile by pile: a cheap fingerprint of what is drawn. */
  snapshot() {
    const out = {};
    for (const [name, pile] of this.piles) {
      out[name] = [...pile.querySelectorAll("[data-card]")].map((c) => c.dataset.card);
    }
    return out;
  }

  /** Mark a suggested move (a hint): its source pile gets `.hint-src`, its destination
   * `.hint-dst`, until the next render; `null` clears. False when `move` is not a move. */
  highlight(move) {
    for (const pile of this.piles.values()) pile.classList.remove("hint-src", "hint-dst");
    const m = move ? parseMove(move) : null;
    if (!m) return false;
    this.piles.get(m.src)?.classList.add("hint-src");
    if (m.dst) this.piles.get(m.dst)?.classList.add("hint-dst");
    return true;
  }

  _build() {
    const plan = planTable(this.variant, this.layout, this.view);
    this.plan = plan;
    this.piles = new Map();
    const top = el("div", "board-top");
    top.style.setProperty("--rows", plan.rows);
    for (const slot of plan.slots) {
      const node = slot.info ? this._infoBox(slot.info) : this._pile(slot.pile);
      node.style.gridRow = String(slot.row + 1);
      node.style.gridColumn = `${slot.col + 1} / span ${slot.span || 1}`;
      top.appendChild(node);
    }
    const tab = el("div", "board-tableau");
    for (let i = 0; i < plan.tableau; i++) tab.appendChild(this._pile(`t${i}`));
    this.root.style.setProperty("--cols", plan.cols);
    this.root.replaceChildren(top, tab);
    if (this.interactive) this._markMovable();
    this._paintSelection();
  }

  /** Cards that can be picked up (a legal move takes exactly them) get .movable. */
  _markMovable() {
    for (const [name, pile] of this.piles) {
      if (name === "stock") continue;
      const counts = new Set(this.legal.counts(name));
      if (!counts.size) continue;
      pile.classList.add("has-moves");
      const cards = [...pile.querySelectorAll(":scope > .card")];
      if (pileKind(name) === "tableau") {
        cards.forEach((c, j) => c.classList.toggle("movable", counts.has(cards.length - j)));
      } else {
        cards.at(-1)?.classList.add("movable");
      }
    }
  }

  _pile(name) {
    const kind = pileKind(name);
    const v = this.view;
    const node = el("div", `pile pile-${kind}`);
    node.dataset.pile = name;
    if (this.interactive) node.tabIndex = 0;
    const key = this._keyFor(name);
    if (key) node.appendChild(el("span", "key-hint", { "aria-hidden": "true" })).textContent = key;
    this.piles.set(name, node);
    let cards = [];
    let label = pileName(name);
    if (kind === "tableau") {
      const i = Number(name.slice(1));
      cards = v.tableau[i];
      const down = (v.down || [])[i] || 0;
      cards.forEach((code, j) => {
        // a card the view hides stays hidden even if the server sent more than `down` says
        const card = createCard(j < down ? "??" : code);
        card.dataset.index = String(j);
        node.appendChild(card);
      });
      label += cards.length
        ? `, ${cardCount(cards.length)}, front ${cardText(cards[cards.length - 1])}`
        : ", empty";
    } else if (kind === "foundation") {
      const i = Number(name.slice(1));
      cards = v.foundations[i];
      const complete = cards.length === 13;
      node.classList.toggle("complete", complete);
      if (this.variant === "spiderweb") {
        node.classList.toggle("as-cell", cards.length === 1);
        if (complete) cards = [...cards].reverse(); // show the King of a finished suit
      }
      node.appendChild(this._placeholder());
      this._appendTop(node, cards, 2);
      if (cards.length > 1) node.appendChild(el("span", "pile-count")).textContent = cards.length;
      if (this.variant === "spiderweb" && cards.length === 1)
        node.appendChild(el("span", "pile-badge")).textContent = "cell";
      label += cards.length ? `, ${cardText(cards[cards.length - 1])}` : ", empty";
    } else if (kind === "cell") {
      const code = v.cells[Number(name.slice(1))];
      cards = code ? [code] : [];
      this._appendTop(node, cards, 1);
      label += code ? `, ${cardText(code)}` : ", empty";
    } else if (kind === "waste") {
      cards = v.waste;
      this._appendTop(node, cards, 2);
      if (cards.length) node.appendChild(el("span", "pile-count")).textContent = cards.length;
      label += cards.length ? `, ${cardCount(cards.length)}, top ${cardText(cards.at(-1))}` : ", empty";
    } else if (kind === "stock") {
      const n = v.stock.length;
      node.classList.toggle("empty", n === 0);
      if (n) {
        if (n > 1) node.appendChild(createCard("??")).classList.add("stock-under");
        node.appendChild(createCard("??"));
      } else {
        node.appendChild(el("span", "pile-placeholder stock-empty")).textContent = "\u2205";
      }
      node.appendChild(el("span", "pile-count stock-count")).textContent = n;
      label += `, ${cardCount(n)} left`;
      node.classList.toggle("can-deal", this.interactive && this.legal.canDeal);
    }
    node.classList.toggle("empty", cards.length === 0 && kind !== "stock");
    node.setAttribute("aria-label", label);
    node.setAttribute("role", "group");
    if (kind === "stock" && this.interactive) node.setAttribute("role", "button");
    return node;
  }

  /** The last `n` cards of `cards`, squared (foundations, waste, cells). */
  _appendTop(node, cards, n) {
    const shown = cards.slice(-n);
    shown.forEach((code, j) => {
      const card = createCard(code);
      card.dataset.index = String(cards.length - shown.length + j);
      node.appendChild(card);
    });
  }

  /** What an empty foundation says it takes. */
  _placeholder() {
    const ph = el("span", "pile-placeholder");
    if (this.variant === "spiderweb") {
      ph.classList.add("cell-or-suit");
      ph.innerHTML = "<b>cell</b><small>or K\u2013A</small>";
    } else if (this.variant === "penguin") {
      const beak = this._beakRank();
      ph.textContent = beak ? rankLabel(beak) : "";
      ph.title = "Starts with the beak's rank";
    } else {
      ph.textContent = "A";
    }
    ph.setAttribute("aria-hidden", "true");
    return ph;
  }

  _beakRank() {
    const started = this.view.foundations.find((f) => f.length && !isHidden(f[0]));
    return started ? started[0][0] : null;
  }

  _infoBox(kind) {
    const box = el("div", "board-info");
    if (kind === "beak") {
      const beak = this._beakRank();
      const below = beak ? "A23456789TJQK"[("A23456789TJQK".indexOf(beak) + 12) % 13] : null;
      box.innerHTML = beak
        ? `<span class="beak-rank" title="The beak's rank">${rankLabel(beak)}</span>` +
          `<span class="beak-text long">Foundations build up from <b>${rankLabel(beak)}</b>, ` +
          `turning the corner K\u2192A. Empty piles take ${/^[A8]/.test(rankLabel(below)) ? "an" : "a"} <b>${rankLabel(below)}</b>.</span>` +
          `<span class="beak-text short">Up from <b>${rankLabel(beak)}</b>, K\u2192A.<br>` +
          `Spaces: <b>${rankLabel(below)}</b></span>`
        : "";
      box.setAttribute("role", "note");
      box.setAttribute("aria-label", beak ? `Beak rank ${rankLabel(beak)}` : "Beak");
    }
    return box;
  }

  _keyFor(name) {
    if (!this.interactive) return "";
    const kind = pileKind(name);
    if (kind === "tableau") return tableauKey(Number(name.slice(1)));
    if (kind === "stock") return "D";
    if (kind === "waste") return "W";
    return "";
  }

  // ---------------------------------------------------------------- sizing

  _measureAndPlace() {
    if (!this.view || !this.plan) return;
    const { cols, rows } = this.plan;
    const width = this.root.clientWidth;
    this._measuredWidth = width;
    if (!width) return;
    const avail = this._availableHeight();
    const { cw, ch, gap, narrow } = cardSize(width, cols, rows, avail);
    const s = this.root.style;
    s.setProperty("--cw", `${cw}px`);
    s.setProperty("--ch", `${ch}px`);
    s.setProperty("--gap", `${gap}px`);
    this.cardW = cw;
    this.cardH = ch;
    this.narrow = narrow;
    this.root.classList.toggle("narrow", narrow);
    const topH = rows * ch + rows * gap;
    const tabAvail = avail ? Math.max(avail - topH - gap, ch * 3) : Infinity;
    let tallest = ch;
    for (let i = 0; i < this.plan.tableau; i++) {
      const pile = this.piles.get(`t${i}`);
      tallest = Math.max(tallest, this._fan(pile, (this.view.down || [])[i] || 0, ch, tabAvail));
    }
    this.root.querySelector(".board-tableau").style.minHeight = `${tallest}px`;
  }

  _availableHeight() {
    if (this.fit !== "viewport") return 0;
    const top = this.root.getBoundingClientRect().top + window.scrollY;
    return Math.max(window.innerHeight - top - 12, 260);
  }

  /** Place a tableau pile's cards; returns its height. Squeezes the fan to fit `limit`. */
  _fan(pile, down, ch, limit) {
    const cards = [...pile.querySelectorAll(":scope > .card")];
    const { tops, height } = fanPile(cards.length, down, ch, limit, this.narrow);
    cards.forEach((card, j) => {
      card.style.top = `${tops[j]}px`;
    });
    pile.style.height = `${height}px`;
    return height;
  }

  // ---------------------------------------------------------------- animation

  _cardRects() {
    if (!this.view || prefersReducedMotion()) return null;
    const rects = new Map();
    const dupes = new Set();
    for (const card of this.root.querySelectorAll(".card.face-up")) {
      const code = card.dataset.card;
      if (rects.has(code)) dupes.add(code);
      rects.set(code, card.getBoundingClientRect());
    }
    for (const d of dupes) rects.delete(d);
    return rects;
  }

  /** FLIP: cards whose code is unique glide from where they were drawn before. */
  _animateFrom(before) {
    if (!before || !before.size) return;
    const seen = new Map();
    for (const card of this.root.querySelectorAll(".card.face-up")) {
      const code = card.dataset.card;
      seen.set(code, seen.has(code) ? null : card);
    }
    for (const [code, card] of seen) {
      const old = before.get(code);
      if (!card || !old) continue;
      const now = card.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      card.animate(
        [
          { transform: `translate(${dx}px, ${dy}px)`, zIndex: 500 },
          { transform: "translate(0, 0)", zIndex: 500 },
        ],
        { duration: 180, easing: "cubic-bezier(.2,.7,.3,1)" },
      );
    }
  }

  // ---------------------------------------------------------------- selection and moves

  /** Cards of `src` that a group of `count` would take (elements, back to front). */
  _groupCards(src, count) {
    const pile = this.piles.get(src);
    if (!pile) return [];
    const cards = [...pile.querySelectorAll(":scope > .card")];
    return count > 0 ? cards.slice(-count) : [];
  }

  _paintSelection() {
    for (const c of this.root.querySelectorAll(".card.selected")) c.classList.remove("selected");
    for (const p of this.root.querySelectorAll(".pile.target")) p.classList.remove("target");
    for (const p of this.root.querySelectorAll(".pile.source")) p.classList.remove("source");
    if (!this.selection) return;
    const { src, count } = this.selection;
    for (const c of this._groupCards(src, count)) c.classList.add("selected");
    this.piles.get(src)?.classList.add("source");
    for (const dst of this.legal.targets(src, count)) this.piles.get(dst)?.classList.add("target");
  }

  /** How many cards a press on card `index` of `pile` takes (1 for squared piles). */
  _countAt(pile, index) {
    if (pileKind(pile) !== "tableau") return 1;
    return this.view.tableau[Number(pile.slice(1))].length - index;
  }

  /**
   * The group to pick up when the player points at `count` cards of `src`: that group if it can
   * move, else the nearest movable group in front of it (a click anywhere on a pile whose only
   * free card is the front one picks that card).
   */
  _movableCount(src, count) {
    if (this.legal.from(src, count).length) return count;
    const smaller = this.legal.counts(src).filter((c) => c < count);
    return smaller.length ? smaller[0] : 0;
  }

  _select(src, count) {
    this.selection = { src, count };
    this._paintSelection();
  }

  /** Send the move (src → dst, count). Illegal but well-formed moves go to the server too, so
   * the player hears its reason; nothing is sent while a move is pending. */
  _send(src, dst, count) {
    if (this.pending) return false;
    if (src === dst) return false;
    const legal = this.legal.find(src, dst, count);
    const move = legal || (count > 1 ? `${src}-${dst}:${count}` : `${src}-${dst}`);
    this.lastClick = null; // a click that moved cards never starts a double-click
    this.pending = move;
    this.root.dataset.pending = move;
    this.selection = null;
    this._paintSelection();
    this.onMove(move);
    return true;
  }

  _deal() {
    if (this.pending) return;
    if (!this.legal.canDeal) {
      this.onNotice(this.view.stock.length ? "You cannot deal now." : "The stock is empty.");
      return;
    }
    this.pending = "deal";
    this.selection = null;
    this._paintSelection();
    this.onMove("deal");
  }

  /** Send `count` cards of `src` to a foundation, if any may go; true if a move was sent. */
  _toFoundation(src, count) {
    const m = this.legal.from(src, count).find((x) => pileKind(x.dst) === "foundation");
    if (m) return this._send(src, m.dst, count);
    return false;
  }

  /** A click or Enter on pile `name` (optionally on its card `index`). */
  _activate(name, index, { viaKey = false } = {}) {
    if (this.pending) return;
    const kind = pileKind(name);
    if (kind === "stock") return this._deal();
    const sel = this.selection;
    if (sel && sel.src !== name) {
      if (this.legal.find(sel.src, name, sel.count)) return this._send(sel.src, name, sel.count);
      // Not a destination. A click on a card that can move picks it up instead; a key names
      // where the pick should go, so the server gets the move and says why not.
      const count = viaKey ? 0 : this._pickCount(name, index, viaKey);
      if (count) return this._select(name, count);
      if (kind !== "waste") return this._send(sel.src, name, sel.count);
      const waste = this._pickCount(name, index, viaKey);
      return waste ? this._select(name, waste) : this.clearSelection();
    }
    if (sel && sel.src === name) {
      if (viaKey || index === undefined) {
        // again on the same pile: cycle through the group sizes that can move, then drop it
        const counts = this.legal.counts(name);
        const next = counts.find((c) => c < sel.count);
        return next ? this._select(name, next) : this.clearSelection();
      }
      const count = this._movableCount(name, this._countAt(name, index));
      if (count && count !== sel.count) return this._select(name, count);
      return this.clearSelection();
    }
    const count = this._pickCount(name, index, viaKey);
    if (count) return this._select(name, count);
    const pile = this.piles.get(name);
    if (pile && pile.querySelector(".card.face-up")) {
      this.onNotice(`No legal move for ${this._describe(name, index)}.`);
      this._shake(name, index);
    } else if (viaKey) {
      this.onNotice(`${pileName(name)} has no card to pick up.`);
    }
  }

  _pickCount(name, index, viaKey) {
    if (viaKey || index === undefined) return this.legal.counts(name)[0] || 0;
    return this._movableCount(name, this._countAt(name, index));
  }

  _describe(name, index) {
    const pile = this.piles.get(name);
    const cards = pile ? [...pile.querySelectorAll(":scope > .card")] : [];
    const card = index !== undefined ? cards.find((c) => c.dataset.index === String(index)) : null;
    return cardText((card || cards.at(-1))?.dataset.card);
  }

  _shake(name, index) {
    const cards = this._groupCards(name, index === undefined ? 1 : this._countAt(name, index));
    for (const c of cards) {
      c.animate(
        [
          { transform: "translateX(0)" },
          { transform: "translateX(-4px)" },
          { transform: "translateX(4px)" },
          { transform: "translateX(0)" },
        ],
        { duration: 200 },
      );
    }
  }

  _doubleActivate(name, index) {
    if (this.pending) return;
    const kind = pileKind(name);
    if (kind === "stock") return;
    const clicked = index === undefined ? 1 : this._countAt(name, index);
    if (this._toFoundation(name, clicked)) return;
    if (clicked !== 1 && this._toFoundation(name, 1)) return;
    this.clearSelection();
    this.onNotice(`${this._describe(name, index)} cannot go to a foundation now.`);
  }

  // ---------------------------------------------------------------- pointer input

  _bindPointer() {
    const root = this.root;
    root.addEventListener("pointerdown", (e) => this._pointerDown(e));
    root.addEventListener("pointermove", (e) => this._pointerMove(e));
    root.addEventListener("pointerup", (e) => this._pointerUp(e));
    root.addEventListener("pointercancel", () => this._dragAbort());
    root.addEventListener("lostpointercapture", () => {
      if (this.press && this.press.dragging) this._dragAbort();
    });
    // no native drag of card images, no text selection on long press
    root.addEventListener("dragstart", (e) => e.preventDefault());
    root.addEventListener("contextmenu", (e) => {
      if (this.press) e.preventDefault();
    });
  }

  _target(e) {
    const pile = e.target.closest("[data-pile]");
    if (!pile || !this.root.contains(pile)) return null;
    const card = e.target.closest(".card");
    const index = card && card.dataset.index !== undefined ? Number(card.dataset.index) : undefined;
    return { name: pile.dataset.pile, index, card };
  }

  _pointerDown(e) {
    if (e.button !== 0 || this.pending) return;
    if (this.press && this.press.dragging) return; // a second finger while dragging
    const t = this._target(e);
    if (!t) {
      if (this.selection) this.clearSelection(); // a press on the bare table drops the pick
      return;
    }
    let count = 0;
    if (t.card && t.card.classList.contains("face-up") && pileKind(t.name) !== "stock") {
      count = this._movableCount(t.name, this._countAt(t.name, t.index));
    }
    this.press = {
      id: e.pointerId,
      x: e.clientX,
      y: e.clientY,
      target: t,
      count,
      dragging: false,
    };
    if (count) {
      // keep the pointer on the board even when it leaves it mid-drag (touch too)
      try {
        this.root.setPointerCapture(e.pointerId);
      } catch {
        /* a synthetic event may have no capturable pointer */
      }
      e.preventDefault();
    }
  }

  _pointerMove(e) {
    const p = this.press;
    if (!p || p.id !== e.pointerId) return;
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    if (!p.dragging) {
      if (!p.count || Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      this._dragStart(p);
    }
    for (const c of p.cards) c.style.transform = `translate(${dx}px, ${dy}px)`;
    this._dragHover(e.clientX, e.clientY, p);
  }

  _dragStart(p) {
    p.dragging = true;
    const src = p.target.name;
    p.cards = this._groupCards(src, p.count);
    p.cards.forEach((c, i) => {
      c.classList.add("dragging");
      c.style.zIndex = String(1000 + i);
    });
    this.selection = { src, count: p.count };
    this._paintSelection();
    p.targets = this.legal.targets(src, p.count);
    this.root.classList.add("is-dragging");
  }

  /** The pile the dragged group is over: the one its lead card overlaps most, else the
   * one under the pointer. */
  _dropPile(x, y, p) {
    const lead = p.cards[0].getBoundingClientRect();
    let best = null;
    let bestArea = 0;
    for (const [name, pile] of this.piles) {
      if (name === p.target.name || name === "stock") continue;
      const r = pile.getBoundingClientRect();
      const w = Math.min(r.right, lead.right) - Math.max(r.left, lead.left);
      const h = Math.min(r.bottom, lead.bottom) - Math.max(r.top, lead.top);
      if (w <= 0 || h <= 0) continue;
      // legal targets win ties: a drop near two piles goes where it can
      const area = w * h * (p.targets.has(name) ? 2 : 1);
      if (area > bestArea) {
        best = name;
        bestArea = area;
      }
    }
    if (best) return best;
    for (const [name, pile] of this.piles) {
      const r = pile.getBoundingClientRect();
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return name;
    }
    return null;
  }

  _dragHover(x, y, p) {
    const over = this._dropPile(x, y, p);
    if (over === p.over) return;
    if (p.over) this.piles.get(p.over)?.classList.remove("drop-hover");
    p.over = over;
    if (over) this.piles.get(over)?.classList.add("drop-hover");
  }

  _pointerUp(e) {
    const p = this.press;
    if (!p || p.id !== e.pointerId) return;
    if (!p.dragging) {
      this.press = null;
      this._click(p.target);
      return;
    }
    const over = this._dropPile(e.clientX, e.clientY, p);
    const src = p.target.name;
    this._clearDragClasses(p, false);
    this.press = null;
    if (over && over !== src && pileKind(over) !== "stock") {
      // the cards stay where they were dropped until the server answers
      this._send(src, over, p.count);
      return;
    }
    this._snapBack(p);
  }

  _click(t) {
    if (t.name === "stock") {
      this.lastClick = null; // quick clicks on the stock are so many deals, not a double-click
      this._deal();
      return;
    }
    const now = performance.now();
    const last = this.lastClick;
    const isDouble =
      last && last.name === t.name && last.index === t.index && now - last.at < DOUBLE_CLICK_MS;
    this.lastClick = isDouble ? null : { name: t.name, index: t.index, at: now };
    if (isDouble) {
      this._doubleActivate(t.name, t.index);
      return;
    }
    this._activate(t.name, t.card ? t.index : undefined);
  }

  _clearDragClasses(p, resetTransform) {
    this.root.classList.remove("is-dragging");
    if (p.over) this.piles.get(p.over)?.classList.remove("drop-hover");
    for (const c of p.cards || []) {
      c.classList.remove("dragging");
      if (resetTransform) {
        c.style.transform = "";
        c.style.zIndex = "";
      }
    }
  }

  _snapBack(p) {
    this.selection = null;
    this._paintSelection();
    for (const c of p.cards || []) {
      const from = c.style.transform;
      c.style.transform = "";
      c.style.zIndex = "";
      if (from && !prefersReducedMotion()) {
        c.animate([{ transform: from, zIndex: 900 }, { transform: "none", zIndex: 900 }], {
          duration: 160,
          easing: "ease-out",
        });
      }
    }
  }

  _dragAbort() {
    const p = this.press;
    if (!p) return;
    this.press = null;
    if (p.dragging) {
      this._clearDragClasses(p, false);
      this._snapBack(p);
    }
  }

  _endPress() {
    this.press = null;
    this.root.classList.remove("is-dragging");
  }

  // ---------------------------------------------------------------- keyboard

  /**
   * Handle a key for the board; returns true if it was used. Keys: 1–9, 0 tableau piles;
   * F foundation; C cell; W waste; D deal; arrows move focus; Enter/Space pick up or drop on
   * the focused pile; Esc drops the selection.
   */
  handleKey(e) {
    if (!this.interactive || !this.view) return false;
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const key = e.key;
    this.root.classList.add("kbd");
    if (/^[0-9]$/.test(key)) {
      const i = key === "0" ? 9 : Number(key) - 1;
      const n = this.plan.tableau;
      if (i >= n) this.onNotice(`This game has ${n} piles: keys 1 to ${n === 10 ? 0 : n}.`);
      else this._keyActivate(`t${i}`);
      return true;
    }
    // A board key this game has no pile for says so instead of doing nothing.
    const lower = key.toLowerCase();
    if (lower === "f") return this._keyGroup("foundation");
    if (lower === "c") {
      if (this.view.cells && this.view.cells.length) return this._keyGroup("cell");
      this.onNotice("This game has no free cells.");
      return true;
    }
    if (lower === "w") {
      if (this.piles.has("w")) this._keyActivate("w");
      else this.onNotice("This game has no waste pile.");
      return true;
    }
    if (lower === "d") {
      if (this.piles.has("stock")) this._deal();
      else this.onNotice("This game has no stock: every card is dealt at the start.");
      return true;
    }
    if (key === "Escape" && this.selection) {
      this.clearSelection();
      return true;
    }
    const focused = document.activeElement?.closest?.("[data-pile]");
    const inBoard = focused && this.root.contains(focused);
    if ((key === "Enter" || key === " ") && inBoard) {
      this._keyActivate(focused.dataset.pile);
      return true;
    }
    if (key.startsWith("Arrow")) {
      this._moveFocus(key, inBoard ? focused : null);
      return true;
    }
    return false;
  }

  _keyActivate(name) {
    const pile = this.piles.get(name);
    if (pile) {
      pile.focus({ preventScroll: false });
      this.focusedPile = name;
    }
    this._activate(name, undefined, { viaKey: true });
  }

  /** F or C: with a selection, send it to the first such pile that takes it; without one,
   * pick up from the next such pile that has a legal move (pressing again cycles). */
  _keyGroup(kind) {
    if (this.pending) return true;
    const names = [...this.piles.keys()].filter((n) => pileKind(n) === kind);
    const sel = this.selection;
    const movable = names.filter((n) => this.legal.from(n).length);
    if (sel && pileKind(sel.src) === kind) {
      // again: pick up from the next such pile, then put the pick down
      const next = movable[movable.indexOf(sel.src) + 1];
      this.clearSelection();
      if (next) this._keyActivate(next);
      return true;
    }
    if (sel) {
      // The picked group, or else its top card alone (F after picking up a run sends its top
      // card home when it can go, whatever the group's size).
      for (const count of new Set([sel.count, 1])) {
        const dst = names.find((n) => this.legal.find(sel.src, n, count));
        if (dst) return this._send(sel.src, dst, count);
      }
      const where = kind === "cell" ? "a free cell" : "a foundation";
      this.onNotice(`${this._describe(sel.src)} cannot go to ${where} now.`);
      return true;
    }
    if (!movable.length) {
      this.onNotice(`Pick a card up first (a pile's number), then ${kind === "cell" ? "C" : "F"}.`);
      return true;
    }
    this._keyActivate(movable[0]);
    return true;
  }

  _moveFocus(key, from) {
    const piles = [...this.piles.values()];
    if (!from) {
      (this.piles.get(this.focusedPile) || this.piles.get("t0") || piles[0])?.focus();
      return;
    }
    const r0 = from.getBoundingClientRect();
    const cx = r0.left + r0.width / 2;
    const cy = r0.top;
    let best = null;
    let bestScore = Infinity;
    for (const p of piles) {
      if (p === from) continue;
      const r = p.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top;
      const dx = x - cx;
      const dy = y - cy;
      let ok;
      let score;
      if (key === "ArrowRight" || key === "ArrowLeft") {
        ok = (key === "ArrowRight" ? dx > 1 : dx < -1) && Math.abs(dy) < this.cardH / 2;
        score = Math.abs(dx);
      } else {
        ok = key === "ArrowDown" ? dy > this.cardH / 2 : dy < -this.cardH / 2;
        score = Math.abs(dy) * 4 + Math.abs(dx);
      }
      if (ok && score < bestScore) {
        best = p;
        bestScore = score;
      }
    }
    if (best) {
      best.focus();
      this.focusedPile = best.dataset.pile;
    }
  }
}
