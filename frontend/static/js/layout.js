// Where piles go and how big cards are: pure geometry, no DOM, so it can be tested alone.

/** What each variant has besides its tableau (used when a page gives no layout). */
export const VARIANT_LAYOUTS = {
  "penelopes-web": { tableau: 8, foundations: 4, cells: 0, has_stock: false, has_waste: false },
  "eighty-thieves": { tableau: 10, foundations: 16, cells: 0, has_stock: true, has_waste: true },
  penguin: { tableau: 7, foundations: 4, cells: 7, has_stock: false, has_waste: false },
  spiderweb: { tableau: 7, foundations: 4, cells: 0, has_stock: true, has_waste: false },
  queenie: { tableau: 7, foundations: 4, cells: 0, has_stock: true, has_waste: false },
};

export const CARD_RATIO = 1.4; // height / width
const MAX_CARD_W = 104;
const MIN_CARD_W = 20;
const MIN_COMFY_CARD_W = 58; // the height may not shrink cards below this; only the width may
const PLANNED_PILE = 11; // cards a pile is sized for before it starts to squeeze
export const NARROW_CARD_W = 48; // below this a card gets a bigger index (phones)
const FAN = {
  up: 0.27, // vertical offset of a face-up card, in card heights
  upMin: 0.19,
  upNarrow: 0.34, // a bigger index needs a wider fan
  upMinNarrow: 0.27,
  down: 0.1,
  downMin: 0.05,
};

/**
 * The grid above the tableau: {cols, rows, tableau, slots}, each slot {pile, row, col} or
 * {info, row, col, span}. Stock and waste top left; foundations to the right (centred when
 * there is no stock, wrapped into rows when they outnumber the columns left); Penguin's
 * foundations at the left with the beak note beside them; cells in a row of their own.
 */
export function planTable(variant, layout, view) {
  const L = { ...(VARIANT_LAYOUTS[variant] || {}), ...(layout || {}) };
  const tableau = view.tableau.length || L.tableau;
  const foundations = view.foundations.length || L.foundations;
  const cells = (view.cells || []).length || L.cells || 0;
  const hasStock = L.has_stock ?? view.stock.length > 0;
  const hasWaste = L.has_waste ?? view.waste.length > 0;
  const cols = Math.max(tableau, cells);
  const slots = [];
  let first = 0;
  if (hasStock) slots.push({ pile: "stock", row: 0, col: first++ });
  if (hasWaste) slots.push({ pile: "w", row: 0, col: first++ });
  const room = cols - first;
  if (variant === "penguin") {
    for (let i = 0; i < foundations; i++) slots.push({ pile: `f${i}`, row: 0, col: i });
    if (cols - foundations >= 2) {
      slots.push({ info: "beak", row: 0, col: foundations, span: cols - foundations });
    }
  } else if (foundations <= room) {
    const start = hasStock ? cols - foundations : Math.floor((cols - foundations) / 2);
    for (let i = 0; i < foundations; i++) slots.push({ pile: `f${i}`, row: 0, col: start + i });
  } else {
    const perRow = Math.max(room, 1);
    for (let i = 0; i < foundations; i++) {
      slots.push({ pile: `f${i}`, row: Math.floor(i / perRow), col: first + (i % perRow) });
    }
  }
  let rows = 1 + Math.max(0, ...slots.map((s) => s.row));
  if (cells) {
    for (let i = 0; i < cells; i++) slots.push({ pile: `c${i}`, row: rows, col: i });
    rows += 1;
  }
  return { cols, rows, tableau, slots };
}

/**
 * Card size for a board `width` px wide with `cols` columns and `rows` rows above the tableau:
 * {cw, ch, gap, narrow}. With `height` (the room the window leaves, or 0 for none) cards also
 * shrink so a pile of PLANNED_PILE cards fits, but not below a comfortable size unless the
 * width demands it.
 */
export function cardSize(width, cols, rows, height = 0) {
  const gap = Math.round(Math.max(3, Math.min(14, width * 0.012)));
  const byWidth = Math.floor((width - gap * (cols - 1)) / cols);
  let cw = Math.min(byWidth, MAX_CARD_W);
  if (height) {
    const perCw = CARD_RATIO * (rows + 1 + (PLANNED_PILE - 1) * FAN.up);
    const byHeight = Math.floor((height - gap * (rows + 1)) / perCw);
    cw = Math.min(cw, Math.max(byHeight, Math.min(MIN_COMFY_CARD_W, byWidth)));
  }
  cw = Math.max(cw, MIN_CARD_W);
  return { cw, ch: Math.round(cw * CARD_RATIO), gap, narrow: cw < NARROW_CARD_W };
}

/**
 * Tops of a tableau pile's `n` cards (the first `down` face down) and the pile's height,
 * squeezing the backs first, then the faces, to stay within `limit` px where it can.
 */
export function fanPile(n, down, ch, limit = Infinity, narrow = false) {
  const downGaps = Math.min(down, Math.max(n - 1, 0));
  const upGaps = Math.max(0, n - 1 - downGaps);
  let fu = (narrow ? FAN.upNarrow : FAN.up) * ch;
  let fd = FAN.down * ch;
  const room = limit - ch;
  if (downGaps * fd + upGaps * fu > room) {
    if (downGaps) fd = Math.max(FAN.downMin * ch, (room - upGaps * fu) / downGaps);
    if (upGaps && downGaps * fd + upGaps * fu > room) {
      fu = Math.max((narrow ? FAN.upMinNarrow : FAN.upMin) * ch, (room - downGaps * fd) / upGaps);
    }
  }
  const tops = [];
  let y = 0;
  for (let j = 0; j < n; j++) {
    tops.push(Math.round(y));
    y += j < down ? fd : fu;
  }
  return { tops, height: n ? tops[n - 1] + ch : ch };
}
