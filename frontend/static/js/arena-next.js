// An arena's race page once its racer is done in the race (or the race is over): the page stays,
// the result in view, and waits there for its player's next race of the arena over
// /ws/arena/<id>/, as the arena's own page does (an open arena socket is what makes a player
// present: placed as soon as their race closes); the `placed` frame sends the page to that race
// with no click (docs/protocol.md, "Arenas"). Between two races of an arena the browser loads one
// page, the next race's, not the arena's page as well.

import { ReconnectingSocket } from "./socket.js";

const ORDINAL = { one: "st", two: "nd", few: "rd", other: "th" };
const rules = new Intl.PluralRules("en", { type: "ordinal" });

/** 1 -> "1st", 22 -> "22nd", 13 -> "13th". */
export function ordinal(n) {
  return `${n}${ORDINAL[rules.select(n)]}`;
}

/** The player's own row of the arena's board, in words. */
export function ownRowText(you, count) {
  const of = count ? ` of ${count}` : "";
  const points = `${you.points} point${you.points === 1 ? "" : "s"}`;
  const races = `${you.races} race${you.races === 1 ? "" : "s"}`;
  const streak = you.streak ? ", on a streak: your next race counts double" : "";
  return `In the arena: ${ordinal(you.rank)}${of}, ${points} from ${races}${streak}.`;
}

export const WAITING = "Waiting for your next race of the arena…";
export const SITTING_OUT = "You are sitting out the arena's races: resume on its page to be placed.";
export const ENDED = "The arena has ended: its podium is on the arena's page.";

/**
 * Wait for the player's next race of the arena the race's `arena` event names.
 * @param {object} event  the `arena` event: `arena` (its id), `url` (its page), `ends_at` (ms)
 * @param {object} hooks  now() the server's clock (ms); status(text); you(text); paused(bool),
 *                        whether the player sits out (paused in another tab: no race comes
 *                        until they resume); go(url), the page's way to leave for the next race
 * @returns {{close(): void}}  stops waiting (the page leaves)
 */
export function waitForNextRace(event, hooks) {
  if (hooks.now() >= event.ends_at) {
    hooks.status(ENDED);
    return { close() {} };
  }
  const sock = new ReconnectingSocket(`/ws/arena/${event.arena}/`);
  const stop = () => {
    clearTimeout(ending);
    sock.close();
  };
  // The arena's end places nobody more: the page stops waiting and says so.
  const ending = setTimeout(() => {
    stop();
    hooks.status(ENDED);
  }, event.ends_at - hooks.now());
  let paused = false;
  sock.addEventListener("message", (e) => {
    const frame = e.detail;
    if (frame.type === "standings" && frame.you) {
      hooks.you(ownRowText(frame.you, frame.count));
      if (Boolean(frame.you.paused) !== paused) {
        paused = Boolean(frame.you.paused);
        hooks.paused(paused);
        hooks.status(paused ? SITTING_OUT : WAITING);
      }
    } else if (frame.type === "placed") {
      stop();
      hooks.status("Placed: off to your next race…");
      hooks.go(frame.url);
    } else if (frame.type === "error") {
      hooks.status(frame.reason || frame.code);
    }
  });
  sock.addEventListener("status", (e) => {
    if (e.detail.state === "reconnecting") hooks.status("Connection lost; reconnecting…");
    else if (e.detail.state === "open") hooks.status(paused ? SITTING_OUT : WAITING);
  });
  hooks.status(WAITING);
  sock.connect();
  return { close: stop };
}
