// Move strings in the engine contract's notation, and an index over the server's `legal` list.
//
// The page holds no rules: what may be dragged and where it may land comes only from the list
// of legal moves the server sends with every state.

const MOVE_RE = /^([tfc](?:0|[1-9]\d*)|w)-([tfc](?:0|[1-9]\d*))(?::([1-9]\d*))?$/;

/** {move, src, dst, count} for "t2-t5:3"; {move, deal: true} for "deal"; null if malformed. */
export function parseMove(move) {
  if (move === "deal") return { move, deal: true, src: "stock", dst: null, count: 0 };
  const m = MOVE_RE.exec(move);
  if (!m || m[1] === m[2]) return null;
  return { move, deal: false, src: m[1], dst: m[2], count: m[3] ? Number(m[3]) : 1 };
}

/** The move string for moving `count` front cards of `src` onto `dst`. */
export function formatMove(src, dst, count = 1) {
  return count > 1 ? `${src}-${dst}:${count}` : `${src}-${dst}`;
}

/** The kind of pile a name denotes: "tableau", "foundation", "cell", "waste" or "stock". */
export function pileKind(pile) {
  if (pile === "stock") return "stock";
  if (pile === "w") return "waste";
  return { t: "tableau", f: "foundation", c: "cell" }[pile[0]];
}

/** "Pile 3", "Foundation 1", "Cell 2", "Waste", "Stock": a pile as people number it. */
export function pileName(pile) {
  const kind = pileKind(pile);
  const n = Number(pile.slice(1)) + 1;
  return {
    tableau: `Pile ${n}`,
    foundation: `Foundation ${n}`,
    cell: `Cell ${n}`,
    waste: "Waste",
    stock: "Stock",
  }[kind];
}

/** A log entry in words, for screen readers: "3 cards from pile 2 to pile 5", "Dealt". */
export function describeMove(move) {
  if (move === "undo") return "Move taken back";
  const m = parseMove(move);
  if (!m) return move;
  if (m.deal) return "Dealt from the stock";
  const what = m.count > 1 ? `${m.count} cards from ` : "";
  const from = pileName(m.src);
  return `${what}${what ? from.toLowerCase() : from} to ${pileName(m.dst).toLowerCase()}`;
}

/** What an action's `played` entries did, for screen readers (the board changes silently):
 * "Pile 4 to foundation 1", "5 cards sent to the foundations". */
export function describePlayed(played) {
  if (!played.length) return "Nothing to send to the foundations";
  if (played.length > 3) return `${played.length} cards sent to the foundations`;
  return played.map(describeMove).join(". ");
}

/** The cards of pile `name` in a player view (cells hold one card or null). */
function pileCards(view, name) {
  const i = Number(name.slice(1));
  if (name === "w") return view.waste || [];
  if (name[0] === "t") return (view.tableau || [])[i] || [];
  if (name[0] === "f") return (view.foundations || [])[i] || [];
  if (name[0] === "c") return (view.cells || [])[i] ? [view.cells[i]] : [];
  return [];
}

/**
 * A move named by its cards in `view` (the position before it), for hints: "Q♥ onto K♥",
 * "3 cards from 9♠ onto 10♥", "A♣ to a foundation", "7♦ to an empty pile". `cardText` names
 * one card (cards.js; passed in to keep this module free of the DOM).
 */
export function describeMoveCards(move, view, cardText) {
  const m = parseMove(move);
  const from = m && !m.deal && view ? pileCards(view, m.src) : [];
  const card = from[from.length - (m?.count || 1)];
  if (!card || card === "??") return describeMove(move);
  const what = m.count > 1 ? `${m.count} cards from ${cardText(card)}` : cardText(card);
  const kind = pileKind(m.dst);
  const onto = pileCards(view, m.dst).at(-1);
  if (kind === "foundation") return `${what} to a foundation`;
  if (onto && onto !== "??") return `${what} onto ${cardText(onto)}`;
  return `${what} to ${kind === "cell" ? "a free cell" : "an empty pile"}`;
}

/** Lookups over one position's legal moves. */
export class LegalMoves {
  constructor(legal = []) {
    this.list = [...legal];
    this.moves = this.list.map(parseMove).filter(Boolean);
    this.canDeal = this.moves.some((m) => m.deal);
  }

  /** Moves that take exactly `count` cards from `src` (any count if omitted). */
  from(src, count) {
    return this.moves.filter((m) => m.src === src && (count === undefined || m.count === count));
  }

  /** Group sizes that can leave `src`, largest first. */
  counts(src) {
    return [...new Set(this.from(src).map((m) => m.count))].sort((a, b) => b - a);
  }

  /** The legal move string for (src, dst, count), or null. */
  find(src, dst, count) {
    const m = this.moves.find((x) => x.src === src && x.dst === dst && x.count === count);
    return m ? m.move : null;
  }

  /** Destination piles open to `count` cards from `src`. */
  targets(src, count) {
    return new Set(this.from(src, count).map((m) => m.dst));
  }

  get size() {
    return this.list.length;
  }
}
