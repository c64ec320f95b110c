// Unit tests of the pure frontend modules (node --test; run by tests/browser/test_js_modules.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cardSize, fanPile, planTable, VARIANT_LAYOUTS } from "../../../frontend/static/js/layout.js";

const VIEWS = {
  "penelopes-web": { tableau: 8, foundations: 4, cells: 0, stock: 0 },
  "eighty-thieves": { tableau: 10, foundations: 16, cells: 0, stock: 128 },
  penguin: { tableau: 7, foundations: 4, cells: 7, stock: 0 },
  spiderweb: { tableau: 7, foundations: 4, cells: 0, stock: 25 },
  queenie: { tableau: 7, foundations: 4, cells: 0, stock: 24 },
};

function view(v) {
  const n = VIEWS[v];
  return {
    variant: v,
    tableau: Array.from({ length: n.tableau }, () => []),
    foundations: Array.from({ length: n.foundations }, () => []),
    cells: Array(n.cells).fill(null),
    stock: Array(n.stock).fill("??"),
    waste: [],
  };
}

for (const variant of Object.keys(VIEWS)) {
  test(`${variant}: every pile has one cell of the grid, inside it`, () => {
    const plan = planTable(variant, VARIANT_LAYOUTS[variant], view(variant));
    const L = VARIANT_LAYOUTS[variant];
    const piles = plan.slots.filter((s) => s.pile).map((s) => s.pile);
    const expected = [
      ...(L.has_stock ? ["stock"] : []),
      ...(L.has_waste ? ["w"] : []),
      ...Array.from({ length: L.foundations }, (_, i) => `f${i}`),
      ...Array.from({ length: L.cells }, (_, i) => `c${i}`),
    ];
    assert.deepEqual([...piles].sort(), [...expected].sort());
    const taken = new Set();
    for (const s of plan.slots) {
      for (let c = s.col; c < s.col + (s.span || 1); c++) {
        const key = `${s.row}:${c}`;
        assert.ok(!taken.has(key), `two slots at ${key}`);
        taken.add(key);
        assert.ok(c >= 0 && c < plan.cols && s.row >= 0 && s.row < plan.rows);
      }
    }
    assert.equal(plan.tableau, L.tableau);
  });
}

test("Eighty Thieves puts its sixteen foundations in two rows of eight beside stock and waste", () => {
  const plan = planTable("eighty-thieves", null, view("eighty-thieves"));
  assert.equal(plan.cols, 10);
  assert.equal(plan.rows, 2);
  const rows = [0, 1].map((r) => plan.slots.filter((s) => s.pile?.startsWith("f") && s.row === r));
  assert.deepEqual(rows.map((r) => r.length), [8, 8]);
});

test("Penguin has a row of seven cells and the beak note beside its foundations", () => {
  const plan = planTable("penguin", null, view("penguin"));
  assert.equal(plan.rows, 2);
  assert.deepEqual(
    plan.slots.filter((s) => s.pile?.startsWith("c")).map((s) => s.row),
    Array(7).fill(1),
  );
  assert.ok(plan.slots.some((s) => s.info === "beak" && s.row === 0));
});

test("cards fit the width: ten columns at 360 px are narrow cards that still fit", () => {
  const width = 340;
  const { cw, gap, narrow } = cardSize(width, 10, 2, 600);
  assert.ok(cw * 10 + gap * 9 <= width);
  assert.ok(narrow);
  assert.ok(cw >= 28);
});

test("cards stop growing on a wide screen and shrink for a short window", () => {
  assert.equal(cardSize(4000, 7, 1, 0).cw, 104);
  const short = cardSize(1200, 7, 1, 500).cw;
  assert.ok(short < cardSize(1200, 7, 1, 1200).cw);
  assert.ok(short >= 58, "not below a comfortable size while the width allows it");
});

test("a fan squeezes backs before faces to stay within its limit", () => {
  const loose = fanPile(10, 5, 100);
  assert.deepEqual(loose.tops.slice(0, 3), [0, 10, 20]);
  assert.equal(loose.height, loose.tops[9] + 100);
  const tight = fanPile(10, 5, 100, loose.height - 20);
  assert.ok(tight.height <= loose.height - 20);
  assert.equal(tight.tops[6] - tight.tops[5], loose.tops[6] - loose.tops[5], "faces untouched");
});

test("a fan never squeezes faces past a readable offset", () => {
  const { tops } = fanPile(30, 0, 100, 300);
  assert.ok(tops[1] - tops[0] >= 19);
});

test("an empty pile is one card tall", () => {
  assert.deepEqual(fanPile(0, 0, 90), { tops: [], height: 90 });
});
