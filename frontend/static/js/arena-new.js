// The "set up an arena" form in the player's own time. The server renders the start in UTC and
// reads it in UTC when no script runs; here the start is shown and typed in the browser's time,
// and the form sends how far that time is ahead of UTC for the day typed (summer time included),
// from which the server reads the start.

const pad = (n) => String(n).padStart(2, "0");

/** A datetime-local value ("2026-03-01T09:30") read in the browser's time: a Date, or null. */
function typedDate(value) {
  const at = value ? new Date(value) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
}

/** The datetime-local value of `at` in the browser's time. */
function localValue(at) {
  return (
    `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}` +
    `T${pad(at.getHours())}:${pad(at.getMinutes())}`
  );
}

/** "UTC+05:30" for 330 minutes ahead. */
function utcName(minutesAhead) {
  const size = Math.abs(minutesAhead);
  return `UTC${minutesAhead < 0 ? "−" : "+"}${pad(Math.floor(size / 60))}:${pad(size % 60)}`;
}

const form = document.getElementById("arena-form");
const start = form.elements.starts_at;
const ahead = form.elements.minutes_ahead_of_utc;

// A first load shows the server's suggested start, in UTC: the same instant in the browser's
// time. A form sent back with an error keeps the start as the player typed it.
if (ahead.value === "") {
  const suggested = typedDate(start.value ? `${start.value}Z` : "");
  if (suggested) start.value = localValue(suggested);
}

const minutesAhead = () => -(typedDate(start.value) ?? new Date()).getTimezoneOffset();
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const label = form.querySelector(`label[for="${start.id}"]`);
const help = document.getElementById(`${start.id}_helptext`);

function sync() {
  ahead.value = String(minutesAhead());
  label.textContent = "Starts at (your time):";
  help.textContent = `In your time: ${zone ? `${zone}, ` : ""}${utcName(minutesAhead())}.`;
}

start.addEventListener("input", sync);
form.addEventListener("submit", sync);
sync();
form.dataset.localTime = "1"; // for tests: the start is read in the browser's time
