// What a race page knows about its race, kept by applying the server's frames in order.
//
//   const model = new RaceModel();
//   model.apply(frame);     // a snapshot or a numbered event; returns false for a gap
//   model.rows();           // the standings, best first, with each racer's data
//
// The server numbers its events (`event`); a frame whose number is not the next one is a gap,
// and the page asks for what it missed (reconnecting with ?since=N or sending `sync`). Live
// `progress` frames are not numbered: each says where some racers are now, and the standings
// follow from the racers by the server's rule (`standingOrder`).
// Pure data: no DOM here, so the rules of the model are the same everywhere it is used.

const STATUS_LABELS = {
  waiting: "Waiting",
  playing: "Playing",
  stuck: "Stuck",
  won: "Finished",
  resigned: "Resigned",
  out_of_time: "Out of time",
};

/** A racer who will make no more moves. */
export const DONE = ["won", "resigned", "out_of_time"];

/** A racer's status in words; one the server resigned (`resigned_for`: they had left the race,
 * or idled in it while others waited) "Left" or "Idle". A winner's is their time instead,
 * where the page shows one. */
export function statusLabel(racer) {
  return RESIGNED_FOR[racer.resigned_for] || STATUS_LABELS[racer.status] || racer.status;
}

const RESIGNED_FOR = { left: "Left", idle: "Idle" };

/** What a racer who is done waits for while the race runs (`racers`: every racer object): those
 * still racing, whom the server resigns once none of them has made a move for `idleAfterS`
 * (null: the page has no such rule, a spectator's). */
export function waitingLine(racers, idleAfterS) {
  const still = racers.filter((racer) => !DONE.includes(racer.status));
  if (!still.length || !idleAfterS) return "The others play on.";
  if (still.length === 1) {
    return `${still[0].name} is the last one racing: the race ends when they are done, or after ${idleAfterS} s without a move.`;
  }
  return `${listOfNames(still)} still race: the race ends when they are done, or once none of them has made a move for ${idleAfterS} s.`;
}

/** The racers' names as a list: "Ann", "Ann and Bob", "Ann, Bob, and Cat". */
export function listOfNames(racers) {
  return new Intl.ListFormat("en").format(racers.map((racer) => racer.name));
}

/** The lobby's status line: how many have joined of how many the race holds, a race of one
 * ("a solo race") with no count: "1 of 1 players" is not English, and "1 of 1 player" no better. */
export function lobbyLine(joined, most) {
  if (most === 1) return "Waiting in the lobby: a solo race.";
  return `Waiting in the lobby: ${joined} of ${most} players.`;
}

/** A race time as m:ss (with tenths when asked). */
export function clock(ms, tenths = false) {
  if (ms === null || ms === undefined) return "";
  const total = Math.max(0, ms);
  const minutes = Math.floor(total / 60000);
  const seconds = Math.floor((total % 60000) / 1000);
  const base = `${minutes}:${String(seconds).padStart(2, "0")}`;
  return tenths ? `${base}.${Math.floor((total % 1000) / 100)}` : base;
}

/** Racer ids best first, by the server's rule: winners by finishing time, then everyone else by
 * cards home (most first) and when they reached that count (earliest first); ties keep the
 * order of joining (`racers` in that order). */
export function standingOrder(racers) {
  const key = (racer, i) =>
    racer.status === "won"
      ? [0, racer.finish_ms, 0, i]
      : [1, -racer.cards, racer.cards_at_ms, i];
  return racers
    .map((racer, i) => ({ id: racer.id, key: key(racer, i) }))
    .sort((a, b) => {
      for (let k = 0; k < 4; k++) if (a.key[k] !== b.key[k]) return a.key[k] - b.key[k];
      return 0;
    })
    .map((entry) => entry.id);
}

export class RaceModel {
  constructor() {
    this.race = null;
    this.racers = new Map();
    this.standings = [];
    this.you = { racer: null, host: false, name: null };
    this.event = 0;
    this.ratings = {};
    this.liveAt = new Map(); // racer id -> at_ms of the live figures applied last
    // racer id -> when this page saw the racer's count of moves change (server clock, epoch ms;
    // kept across the race's snapshots): the idle rule's clock for the others still racing.
    this.movedAt = new Map();
    this.catchingUp = false; // back after a drop, until the catch-up's live frame (`reconnected`)
  }

  /** The socket is back after a drop: the catch-up's live frame (every racer still playing) may
   * show moves made while the page was away, at a time it cannot know, so they are not taken
   * as moves of that moment (the idle clock then runs from the last move seen before: earlier,
   * never later, than the server's). */
  reconnected() {
    this.catchingUp = true;
  }

  get loaded() {
    return this.race !== null;
  }

  get me() {
    return this.you.racer ? this.racers.get(this.you.racer) || null : null;
  }

  /** Apply one frame; false when it is an event that does not follow the last one (a gap). */
  apply(frame) {
    if (frame.type === "snapshot") {
      this.race = frame.race;
      this.racers = new Map(frame.racers.map((r) => [r.id, r]));
      this.standings = frame.standings;
      this.ratings = frame.ratings || {};
      this.liveAt = new Map();
      this.you = frame.you;
      this.event = frame.event;
      return true;
    }
    if (frame.type === "progress" && typeof frame.event !== "number") {
      this.applyLiveProgress(frame);
      return true;
    }
    if (typeof frame.event !== "number") return true;
    if (frame.event <= this.event) return true; // already applied
    if (!this.loaded || frame.event !== this.event + 1) return false;
    this.applyEvent(frame);
    this.event = frame.event;
    return true;
  }

  /** A live `progress` frame: each racer's progress, unless their play has ended (a finish or a
   * resignation is a numbered event, which a late live frame must not undo) or a later live
   * frame already said it (live frames may arrive out of order). A racer's own `at_ms` (figures
   * another server process read earlier) counts instead of the frame's. */
  applyLiveProgress(frame) {
    if (!this.loaded || this.race.status !== "started") return;
    for (const { at_ms: readAt, ...live } of frame.racers) {
      const at = readAt ?? frame.at_ms ?? 0;
      const racer = this.racers.get(live.id);
      if (!racer || DONE.includes(racer.status) || at < (this.liveAt.get(live.id) ?? -1)) continue;
      const moved = live.moves !== undefined && live.moves !== racer.moves;
      if (moved && !this.catchingUp) this.movedAt.set(live.id, this.race.starts_at + at);
      this.racers.set(live.id, { ...racer, ...live });
      this.liveAt.set(live.id, at);
    }
    if (this.catchingUp) {
      const listed = new Set(frame.racers.map((racer) => racer.id));
      if (this.stillRacing().every((racer) => listed.has(racer.id))) this.catchingUp = false; // the catch-up
    }
    this.standings = standingOrder([...this.racers.values()]);
  }

  applyEvent(frame) {
    switch (frame.type) {
      case "joined":
        this.racers.set(frame.racer.id, frame.racer);
        break;
      case "left":
        this.racers.delete(frame.racer);
        if (this.you.racer === frame.racer) this.you = { ...this.you, racer: null, host: false };
        break;
      case "host":
        for (const [id, racer] of this.racers) this.racers.set(id, { ...racer, host: id === frame.racer });
        if (this.you.racer) this.you = { ...this.you, host: this.you.racer === frame.racer };
        break;
      case "ready": {
        const racer = this.racers.get(frame.racer);
        if (racer) this.racers.set(frame.racer, { ...racer, ready: frame.ready });
        break;
      }
      case "progress":
        for (const racer of frame.racers) this.racers.set(racer.id, racer);
        break;
      case "countdown":
      case "finished":
        this.race = frame.race;
        this.racers = new Map(frame.racers.map((r) => [r.id, r]));
        if (frame.ratings) this.ratings = frame.ratings; // a rated race: each racer's change
        break;
      case "cancelled":
        this.race = frame.race;
        break;
      case "rematch":
        this.race = { ...this.race, rematch: frame.code };
        break;
      case "autostart":
        this.race = { ...this.race, autostart_at: frame.at };
        break;
      default:
        break;
    }
    if (frame.standings) this.standings = frame.standings;
  }

  /** The standings, best first: [{place, racer}] (places only count racers, ties by order). */
  rows() {
    return this.standings
      .map((id) => this.racers.get(id))
      .filter(Boolean)
      .map((racer, i) => ({ place: racer.place || i + 1, racer }));
  }

  /** The racer objects, best first (`rows`). */
  racersInOrder() {
    return this.rows().map((row) => row.racer);
  }

  /** The racers who may still move, best first. */
  stillRacing() {
    return this.racersInOrder().filter((racer) => !DONE.includes(racer.status));
  }

  /** The racers who are done (`DONE`), best first. */
  doneRacing() {
    return this.racersInOrder().filter((racer) => DONE.includes(racer.status));
  }

  /** The race's phase at `serverNow` (epoch ms on the server's clock). */
  phase(serverNow) {
    const race = this.race;
    if (!race) return "loading";
    if (race.status !== "started") return race.status;
    if (serverNow < race.starts_at) return "countdown";
    if (serverNow < race.ends_at) return "running";
    return "overtime";
  }
}
