// A replay's positions from what the server sends (records/public_replays.py, docs/api.md): the deal in
// full and one step a log row, [move, ms, cards home, edits], the edits turning the position
// before it into the one after. Pure: no DOM, so Node's test runner can load it.

/** The position `edits` lead to from `view` (a new object; untouched piles are shared):
 * ["tableau.3", start, removed, ...added] in a list of piles, ["stock", start, removed, ...added]
 * in a flat list, ["moves", value] for anything else. */
export function applyEdits(view, edits) {
  const next = { ...view };
  const copied = new Set();
  for (const [path, ...rest] of edits) {
    if (rest.length === 1) {
      next[path] = rest[0];
      continue;
    }
    const [key, index] = path.split(".");
    const [start, removed, ...added] = rest;
    if (!copied.has(key)) {
      next[key] = next[key].slice();
      copied.add(key);
    }
    if (index === undefined) {
      next[key].splice(start, removed, ...added);
    } else {
      const pile = next[key][Number(index)].slice();
      pile.splice(start, removed, ...added);
      next[key][Number(index)] = pile;
    }
  }
  return next;
}

/** Every frame of the replay: the deal, then the position after each step. */
export function framesOf(replay) {
  const frames = [{ move: null, ms: replay.deal.ms, cards: replay.deal.cards, view: replay.deal.view }];
  for (const [move, ms, cards, edits] of replay.steps) {
    frames.push({ move, ms, cards, view: applyEdits(frames[frames.length - 1].view, edits) });
  }
  return frames;
}
