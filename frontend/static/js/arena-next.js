// An arena's race page once its racer is done in the race (or the race is over): the page stays,
// the result in view, and waits there for its player's next race of the arena on the race's own
// socket: it sends `wait`, and the server puts the socket in the arena's room, as the arena's own
// page is (an open socket there is what makes a player present: placed as soon as their race
// closes). The socket then brings the arena's `standings` (the player's own row) and `placed`,
// after which the same socket is the next race's: the page shows it with no click
// (docs/protocol.md, "Races" and "Arenas"). Between two races of an arena the browser loads no
// page and opens no socket.

import { counted, noun, ordinal } from "./words.js";

/** The player's own row of the arena's board, in words. Before their first race has closed they
 * have no place but a tie at 0 with everyone (first of them by the board's order): not told. */
export function ownRowText(you, count) {
  if (!you.races) return "In the arena: no points yet; your first race counts once it closes.";
  const of = count ? ` of ${count}` : "";
  const points = counted(you.points, "point", "points");
  const races = counted(you.races, "race", "races");
  const streak = you.streak ? ", on a streak: your next race counts double" : "";
  return `In the arena: ${ordinal(you.rank)}${of}, ${points} from ${races}${streak}.`;
}

export const WAITING = "Waiting for your next race of the arena…";

/** What a racer done in a race still on waits for: its others, whose last one done ends the race
 * (or its time limit does); its racers are placed again when it ends. */
export function waitingText(playing) {
  if (!playing) return WAITING;
  const still = `${counted(playing, "racer", "racers")} still ${noun(playing, "plays", "play")}`;
  return `Waiting for your next race of the arena: ${still} this one, which ends when they are done.`;
}
export const LOBBY_WAITING = "Waiting for another free player to race against…";

/** What a player free in the arena's lobby (joined, not sitting out, in no race) is told while
 * the arena runs, from the lobby's counts of a `standings` frame (`waiting` counts them): with
 * another player free they are about to be placed; alone, they wait for a race to end, or for
 * another player to come or come back. */
export function lobbyText({ joined, racing, waiting }) {
  if (waiting > 1) return LOBBY_WAITING;
  if (racing > 0) return "Everyone else is racing: you will be placed as soon as a race ends.";
  if (joined > 1) {
    return "Nobody else is free to race just now: you will be placed as soon as another player is.";
  }
  return "You are the only player so far: you will be placed as soon as another joins.";
}
export const SITTING_OUT = "You are sitting out the arena's races: resume on its page to be placed.";
export const ENDED = "The arena has ended: its podium is on the arena's page.";

/**
 * Wait for the player's next race of the arena the race's `arena` event names, on the race's
 * socket.
 * @param {object} event  the `arena` event: `arena` (its id), `url` (its page), `ends_at` (ms)
 * @param {object} hooks  now() the server's clock (ms); send(frame) on the race's socket;
 *                        status(text); you(text); paused(bool), whether the player sits out
 *                        (paused in another tab: no race comes until they resume); go(url), the
 *                        page's way to leave for the next race; shown, the code of a race the
 *                        page came back from (the back button), which is not sent to it as its
 *                        next race (or undefined)
 * @returns {{take(frame): boolean, connection(state): void, edit(endsAt): void, close(): void}}
 *   take: the race socket's frames, true for those of the wait (`standings`, `placed`, an error
 *   about `wait`); connection: the race socket's state ("open" after a reconnect asks again: the
 *   server's wait ended with the old socket); edit: an admin moved the arena's end (`edited`):
 *   the wait goes by the new one, and waits again if the new end is later than one that passed;
 *   close: stops waiting (the page leaves)
 */
export function waitForNextRace(event, hooks) {
  let over = false; // placed, or the page leaves: the wait is done with
  let ended = false; // the arena's end passed: nobody is placed, unless an admin moves it later
  let paused = false;
  let ending = null;
  const stop = () => {
    over = true;
    clearTimeout(ending);
  };
  const end = () => {
    ended = true;
    hooks.status(ENDED);
  };
  /** The arena's end is at `endsAt`: true while it is ahead (its timer set). */
  const arm = (endsAt) => {
    clearTimeout(ending);
    const left = endsAt - hooks.now();
    ending = left > 0 ? setTimeout(end, left) : null;
    return left > 0;
  };
  const ask = hooks.shown ? { type: "wait", shown: hooks.shown } : { type: "wait" };
  let playing = 0; // the race's racers still playing (`wait.playing`)
  const wait = { close: stop, take: () => false, connection() {}, edit() {}, playing() {} };
  // The arena's end places nobody more: the page stops waiting and says so.
  if (!arm(event.ends_at)) {
    stop();
    hooks.status(ENDED);
    return wait;
  }
  const statusText = () => (paused ? SITTING_OUT : waitingText(playing));
  wait.take = (frame) => {
    if (frame.type === "standings") {
      if (!over && !ended && frame.you) {
        hooks.you(ownRowText(frame.you, frame.count));
        if (Boolean(frame.you.paused) !== paused) {
          paused = Boolean(frame.you.paused);
          hooks.paused(paused);
          hooks.status(statusText());
        }
      }
      return true;
    }
    if (frame.type === "placed") {
      if (!over && !ended) {
        stop();
        hooks.status("Placed: off to your next race…");
        hooks.go(frame.url);
      }
      return true;
    }
    if (frame.type === "error" && frame.ref === "wait") {
      if (!over && !ended) hooks.status(frame.reason || frame.code);
      return true;
    }
    return false;
  };
  wait.connection = (state) => {
    if (over || ended) return;
    if (state === "reconnecting") hooks.status("Connection lost; reconnecting…");
    else if (state === "open") {
      hooks.status(statusText());
      hooks.send(ask);
    }
  };
  wait.edit = (endsAt) => {
    if (over) return;
    if (arm(endsAt)) {
      if (ended) {
        ended = false; // a later end: the socket is still in the arena's room, and is placed
        hooks.status(statusText());
      }
    } else if (!ended) {
      end();
    }
  };
  /** How many of the race's racers still play it (0 once it is over): said while it changes. */
  wait.playing = (count) => {
    if (count === playing) return;
    playing = count;
    if (!over && !ended) hooks.status(statusText());
  };
  hooks.status(WAITING);
  hooks.send(ask);
  return wait;
}
