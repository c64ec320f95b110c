// Times as the pages write them, as plain functions (nothing runs on import): a wait
// ("0:23:41"), and a moment in the reader's own time zone in the server's formats ("Mon 7 Dec,
// 09:05", "2026-12-07 09:05", "09:05"). The server writes moments in UTC (a page without scripts
// says so); the pages' scripts write them again in the reader's zone (`localizeTimes`).

const pad = (n) => String(n).padStart(2, "0");

/** `ms` to wait as "h:mm:ss" (rounded up to the second; never below 0:00:00). */
export function formatWait(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h}:${pad(m)}:${pad(s)}`;
}

/** The reader's time zone (an IANA name; "UTC" where the browser names none). */
export function readerZone() {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

const formats = new Map();

// What a moment's day is written with: "Mon 7 Dec" (`day`), "2026-12-07" (`date`, a past that
// may be years back, such as a player's games).
const DAY_PARTS = {
  day: { weekday: "short", day: "numeric", month: "short" },
  date: { year: "numeric", month: "2-digit", day: "2-digit" },
};

/** The parts of `t` (epoch ms) in `timeZone`: its day's (`DAY_PARTS[style]`), hour, minute. */
function parts(t, timeZone, style = "day") {
  const key = `${style} ${timeZone}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      ...DAY_PARTS[style],
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formats.set(key, format);
  }
  return Object.fromEntries(format.formatToParts(t).map((p) => [p.type, p.value]));
}

/** `t` as a time of day in `timeZone`: "09:05" (the server's "H:i"). */
export function timeOfDay(t, timeZone = readerZone()) {
  const p = parts(t, timeZone);
  return `${p.hour}:${p.minute}`;
}

/** `t` with its day in `timeZone`: "Mon 7 Dec, 09:05" (the server's "D j M, H:i"). */
export function dayTime(t, timeZone = readerZone()) {
  const p = parts(t, timeZone);
  return `${p.weekday} ${p.day} ${p.month}, ${p.hour}:${p.minute}`;
}

/** `t` with its date in `timeZone`: "2026-12-07 09:05" (the server's "Y-m-d H:i"). */
export function dateAndTime(t, timeZone = readerZone()) {
  const p = parts(t, timeZone, "date");
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** What a time in `timeZone` is called beside it: "UTC", else "your time". */
export function zoneName(timeZone = readerZone()) {
  return timeZone === "UTC" || timeZone === "Etc/UTC" ? "UTC" : "your time";
}

/** `t`'s date alone in `timeZone`: "2026-12-07" (the server's "Y-m-d"), as a player's page
 * says since when they play. */
export function dateOnly(t, timeZone = readerZone()) {
  const p = parts(t, timeZone, "date");
  return `${p.year}-${p.month}-${p.day}`;
}

const WRITERS = { day: dayTime, date: dateAndTime, "date-only": dateOnly, time: timeOfDay };

/** Write every `<time data-local="day|date|date-only|time" datetime="…">` under `root` in the
 * reader's zone (`dayTime`, `dateAndTime`, `dateOnly`, `timeOfDay`), the UTC text kept as its
 * title, and every `[data-zone]` as the zone's name (`zoneName`). */
export function localizeTimes(root, timeZone = readerZone()) {
  for (const node of root.querySelectorAll("time[data-local]")) {
    const t = Date.parse(node.getAttribute("datetime"));
    if (Number.isNaN(t)) continue;
    if (!node.title) node.title = `${node.textContent} UTC`;
    node.textContent = (WRITERS[node.dataset.local] ?? timeOfDay)(t, timeZone);
  }
  for (const node of root.querySelectorAll("[data-zone]")) node.textContent = zoneName(timeZone);
}
