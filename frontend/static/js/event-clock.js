// The time left of the event a race belongs to (an arena's), in the race page's header: in the
// arena page's own format (times.js formatWait), written once a second where it changed, in no live
// region (a screen reader would read it every second).

import { formatWait } from "./times.js";

/** "ends in 0:23:41" with `left` ms to the event's end; "ended" from its end on. */
export function timeLeftText(left) {
  return left > 0 ? `ends in ${formatWait(left)}` : "ended";
}
