// A finished race on one clock, from the document the server sends (records/race_replays.py,
// docs/api.md "Race replays"): the deal once, and each racer's steps [move, ms, cards, edits]
// with their times from the race's start. Every position is built here from the deal and the
// edits (replay-steps.js), never sent. Pure: no DOM, so Node's test runner loads it.
//
//   const race = buildRace(data);
//   frameAt(race.racers[0], ms)   // the index of the position that racer showed at ms
//   standingsAt(race, ms)         // the order then, best first (races/standings.py's rule)
//   marksOf(race)                 // cards home, undos, finishes, lead changes, losing moves
//   meetings(race)                // two racers in one position: who got there first
//   verdicts(race)                // one sentence a racer: how their race was lost (or won)

import { cardCount, cardText } from "./cards.js";
import { describeMoveCards, parseMove, pileKind, pileName } from "./moves.js";
import { framesOf } from "./replay-steps.js";
import { ordinal } from "./words.js";

/** m:ss.t on the race's clock. */
export function raceClock(ms) {
  const tenths = Math.floor(ms / 100);
  const s = Math.floor(tenths / 10);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}.${tenths % 10}`;
}

/** Each racer's frames (the deal, then the position after each step, at its time on the race's
 * clock), when each frame's count of cards home was reached, and the moves in effect. */
export function buildRace(data) {
  const dealCards = data.deal ? data.deal.cards : 0;
  const racers = data.racers.map((r, order) => {
    const frames = data.deal ? framesOf({ deal: data.deal, steps: r.steps }) : [];
    const reached = [];
    const inEffect = [];
    frames.forEach((f, i) => {
      const same = i > 0 && f.cards === frames[i - 1].cards;
      reached.push(same ? reached[i - 1] : f.ms);
      inEffect.push(i === 0 ? 0 : inEffect[i - 1] + (f.move === "undo" ? -1 : 1));
    });
    return { ...r, order, frames, reached, inEffect };
  });
  const last = Math.max(0, ...racers.flatMap((r) => [r.frames.at(-1)?.ms ?? 0, r.done_ms ?? 0]));
  return { racers, dealCards, end: Math.max(data.end_ms || 0, last) };
}

/** The index of the last frame of `racer` at or before `ms` (0: the deal; -1: no game). */
export function frameAt(racer, ms) {
  const frames = racer.frames;
  let lo = 0;
  let hi = frames.length - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (frames[mid].ms <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Where one racer stood at `ms`: their frame, cards home, status then. */
export function standingAt(racer, ms) {
  const frame = frameAt(racer, ms);
  const won = racer.finish_ms !== null && racer.finish_ms <= ms;
  const done = racer.done_ms !== null && racer.done_ms <= ms;
  return {
    racer,
    frame,
    cards: frame < 0 ? 0 : racer.frames[frame].cards,
    reached: frame < 0 ? 0 : racer.reached[frame],
    moves: frame < 0 ? 0 : racer.inEffect[frame],
    move: frame < 0 ? null : racer.frames[frame].move,
    won,
    status: won ? "won" : done ? racer.status : "playing",
  };
}

const STATUS_WORDS = { playing: "racing", won: "won", resigned: "resigned", stuck: "stuck", out_of_time: "out of time" };

/** A racer's status at a moment (`standingAt`), in the replay's words; one the server resigned
 * says why (`resigned_for`): "left" the race, or "idle" in it while others waited. */
export function statusWord(standing) {
  if (standing.status === "resigned" && standing.racer.resigned_for) return standing.racer.resigned_for;
  return STATUS_WORDS[standing.status] || standing.status;
}

/** The order at `ms`, best first: winners by winning time, then the most cards home, then who
 * reached that count first, then the order of joining (races/standings.py). */
export function standingsAt(race, ms) {
  return race.racers.map((r) => standingAt(r, ms)).sort(better);
}

function better(a, b) {
  if (a.won !== b.won) return a.won ? -1 : 1;
  if (a.won) return a.racer.finish_ms - b.racer.finish_ms || a.racer.order - b.racer.order;
  return b.cards - a.cards || a.reached - b.reached || a.racer.order - b.racer.order;
}

/** Every moment the race turned on, in time order: {ms, kind, racer, frame, text}; kinds
 * "home" (a card to a foundation), "undo", "finish", "end" (resigned, out of time), "lead"
 * (the lead changed hands), "lost" (the losing move, where the solver found one). */
export function marksOf(race) {
  const marks = [];
  for (const r of race.racers) {
    r.frames.forEach((f, i) => {
      if (i === 0) return;
      if (f.move === "undo") marks.push({ ms: f.ms, kind: "undo", racer: r, frame: i, text: `${r.name} undid a move` });
      else if (f.cards > r.frames[i - 1].cards) {
        marks.push({ ms: f.ms, kind: "home", racer: r, frame: i, text: `${r.name}: ${cardCount(f.cards)} home` });
      }
    });
    if (r.finish_ms !== null) {
      marks.push({ ms: r.finish_ms, kind: "finish", racer: r, text: `${r.name} finished (${placeText(r)})` });
    } else if (r.done_ms !== null && r.status !== "won") {
      marks.push({ ms: r.done_ms, kind: "end", racer: r, text: `${r.name} ${endText(r)}` });
    }
    const lost = losingMove(r);
    if (lost) marks.push({ ms: lost.ms, kind: "lost", racer: r, frame: lost.frame, text: lost.sentence });
  }
  marks.push(...leadChanges(race));
  return marks.sort((a, b) => a.ms - b.ms || a.racer.order - b.racer.order);
}

function placeText(r) {
  return r.place ? `${ordinal(r.place)} place` : "no place";
}

function endText(r) {
  if (r.resigned_for === "left") return "left the race";
  if (r.resigned_for === "idle") return "was resigned as idle";
  if (r.status === "resigned") return "resigned";
  if (r.status === "out_of_time") return "ran out of time";
  return `stopped (${r.status.replace(/_/g, " ")})`;
}

/** The moments the lead changed hands (the first lead too, once someone has a card more than
 * the deal gave, or has won). */
export function leadChanges(race) {
  const times = new Set();
  for (const r of race.racers) {
    for (const f of r.frames) times.add(f.ms);
    if (r.finish_ms !== null) times.add(r.finish_ms);
  }
  const out = [];
  let leader = null;
  for (const ms of [...times].sort((a, b) => a - b)) {
    const top = standingsAt(race, ms)[0];
    if (!top || !(top.won || top.cards > race.dealCards) || top.racer === leader) continue;
    const text = leader
      ? `${top.racer.name} takes the lead from ${leader.name} (${cardCount(top.cards)} home)`
      : `${top.racer.name} takes the lead (${cardCount(top.cards)} home)`;
    out.push({ ms, kind: "lead", racer: top.racer, from: leader, text });
    leader = top.racer;
  }
  return out;
}

/** A racer's losing move, as the server stored it: {frame, ms, sentence} or null. `frame` is
 * the position right after it (the log row's number). */
export function losingMove(r) {
  const n = r.losing_frame;
  if (n === null || n === undefined || n < 1 || n >= r.frames.length) return null;
  const step = r.frames[n];
  const plays = r.frames.slice(1, n + 1).filter((f) => f.move !== "undo").length;
  const sentence = `${r.name}'s ${ordinal(plays)} move, ${moveText(step.move, r.frames[n - 1].view)}, lost the game: before it the deal was still winnable.`;
  return { frame: n, ms: step.ms, sentence };
}

/** "3♣ onto 4♥ on pile 6", "A♣ to a foundation", "a deal from the stock". */
export function moveText(move, before) {
  const m = parseMove(move);
  if (!m) return move === "deal" ? "a deal from the stock" : move;
  const said = describeMoveCards(move, before, cardText);
  return pileKind(m.dst) === "tableau" ? `${said} on ${pileName(m.dst).toLowerCase()}` : said;
}

/** One sentence a racer, in the order they finished: where the race was lost, or won. */
export function verdicts(race) {
  const order = [...race.racers].sort((a, b) => (a.place ?? 99) - (b.place ?? 99) || a.order - b.order);
  return order.map((r) => {
    const lost = losingMove(r);
    let text;
    if (r.finish_ms !== null) text = `${r.name} won the deal in ${raceClock(r.finish_ms)} (${placeText(r)}).`;
    else if (lost) text = lost.sentence;
    else if (!r.game) text = `${r.name} has no game on record.`;
    else if (!r.analysed) text = `${r.name}'s game is still being analysed: the losing move shows here once the solver has looked.`;
    else text = `${r.name} ${endText(r)} with ${cardCount(r.cards)} home; the solver proved no move of theirs lost the game.`;
    return { racer: r, ms: lost ? lost.ms : r.finish_ms ?? r.done_ms ?? 0, frame: lost?.frame, text };
  });
}

/** Where two racers reached one position with more cards home than the deal gave: for each
 * pair, the one with the most cards home (the later if equal), and who got there first. */
export function meetings(race) {
  const seen = new Map(); // position -> Map(racer -> {ms, cards})
  for (const r of race.racers) {
    r.frames.forEach((f) => {
      if (f.cards <= race.dealCards) return;
      const key = JSON.stringify(f.view);
      let at = seen.get(key);
      if (!at) seen.set(key, (at = new Map()));
      if (!at.has(r)) at.set(r, { ms: f.ms, cards: f.cards });
    });
  }
  const best = new Map();
  for (const at of seen.values()) {
    if (at.size < 2) continue;
    const entries = [...at].sort((a, b) => a[1].ms - b[1].ms || a[0].order - b[0].order);
    for (let i = 0; i < entries.length; i++) {
      for (let j = i + 1; j < entries.length; j++) {
        const [first, a] = entries[i];
        const [second, b] = entries[j];
        const pair = [first.order, second.order].sort().join(":");
        const old = best.get(pair);
        if (!old || a.cards > old.cards || (a.cards === old.cards && b.ms > old.secondMs)) {
          best.set(pair, { first, second, cards: a.cards, ms: a.ms, secondMs: b.ms });
        }
      }
    }
  }
  return [...best.values()]
    .sort((a, b) => a.ms - b.ms)
    .map((m) => ({
      ...m,
      text:
        m.ms === m.secondMs
          ? `${m.first.name} and ${m.second.name} reached the same position (${cardCount(m.cards)} home) at the same moment, ${raceClock(m.ms)}.`
          : `${m.first.name} and ${m.second.name} reached the same position (${cardCount(m.cards)} home): ${m.first.name} got there first, ${((m.secondMs - m.ms) / 1000).toFixed(1)} s ahead (${raceClock(m.ms)} against ${raceClock(m.secondMs)}).`,
    }));
}

/** The next moment after `ms` at which any board changes (or the end), and the one before. */
export function nextChange(race, ms) {
  let next = race.end;
  for (const r of race.racers) {
    const i = frameAt(r, ms);
    if (i >= 0 && i + 1 < r.frames.length) next = Math.min(next, r.frames[i + 1].ms);
  }
  return Math.max(ms, next);
}

export function previousChange(race, ms) {
  let prev = 0;
  for (const r of race.racers) {
    const i = frameAt(r, ms - 1);
    if (i > 0) prev = Math.max(prev, r.frames[i].ms);
  }
  return prev;
}
