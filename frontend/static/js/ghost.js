// A ghost: a recorded run's cards home over time, shown at its real pace beside your board.
//
//   const ghost = new GhostRace(panel, config.ghost, variant);
//   ghost.update(elapsedMs, yourCards);   // every clock tick and after every move
//
// The run's progress comes from the server as [[ms, cards], ...] (the moments the count
// changed); nothing about its cards or moves is sent, only how many were home when.

import { cardCount } from "./cards.js";
import { setStyle, setText } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

/** Cards on the foundations for good in a view (a Spiderweb foundation holding one card is a cell). */
export function cardsHome(view, variant) {
  const piles = view?.foundations || [];
  if (variant === "spiderweb") return piles.filter((p) => p.length === 13).length * 13;
  return piles.reduce((n, p) => n + p.length, 0);
}

/** The ghost's count at `ms`: the last change at or before it. */
export function ghostCardsAt(progress, ms) {
  let cards = progress.length ? progress[0][1] : 0;
  for (const [at, n] of progress) {
    if (at > ms) break;
    cards = n;
  }
  return cards;
}

export class GhostRace {
  constructor(root, ghost, variant, totalCards) {
    this.root = root;
    this.ghost = ghost;
    this.variant = variant;
    this.total = totalCards;
    this.mine = [[0, null]];
    this.chart = root.querySelector("#ghost-chart");
    this.span = Math.max(ghost.end_ms, 60_000);
  }

  update(ms, yourCards) {
    const last = this.mine[this.mine.length - 1];
    if (last[1] !== yourCards) this.mine.push([ms, yourCards]);
    if (this.mine[0][1] === null) this.mine[0] = [0, yourCards];
    const ghostCards = ghostCardsAt(this.ghost.progress, ms);
    // Ten times a second: only what changed is written (dom.js).
    setText(this.root.querySelector("#you-cards"), String(yourCards));
    setText(this.root.querySelector("#ghost-cards"), String(ghostCards));
    setStyle(this.root.querySelector("#you-fill"), "width", `${(100 * yourCards) / this.total}%`);
    setStyle(this.root.querySelector("#ghost-fill"), "width", `${(100 * ghostCards) / this.total}%`);
    if (this.root.dataset.ghostCards !== String(ghostCards)) this.root.dataset.ghostCards = String(ghostCards);
    const done = ms >= this.ghost.end_ms;
    let verdict = "Neck and neck.";
    if (done && this.ghost.status === "won") verdict = "The ghost has finished.";
    else if (done) verdict = "The ghost stopped here.";
    else if (yourCards > ghostCards) verdict = `You are ${cardCount(yourCards - ghostCards)} ahead.`;
    else if (yourCards < ghostCards) verdict = `The ghost is ${cardCount(ghostCards - yourCards)} ahead.`;
    setText(this.root.querySelector("#ghost-verdict"), verdict);
    this.span = Math.max(this.span, ms * 1.1);
    this._draw(ms);
  }

  _line(points, ms, cls) {
    const w = 300;
    const h = 160;
    const x = (t) => (w * Math.min(t, ms)) / this.span;
    const y = (n) => h - (h * n) / this.total;
    let d = "";
    let prev = null;
    for (const [at, n] of points) {
      if (at > ms) break;
      d += prev === null ? `M0 ${y(n)}` : ` H${x(at)} V${y(n)}`;
      prev = n;
    }
    if (prev !== null) d += ` H${x(ms)}`;
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    path.setAttribute("class", cls);
    return path;
  }

  _draw(ms) {
    if (!this.chart) return;
    this.chart.replaceChildren(
      this._line(this.ghost.progress, ms, "ghost-line"),
      this._line(this.mine, ms, "you-line"),
    );
  }
}
