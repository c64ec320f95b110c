// The arena page: the countdown, the reminder at the start, and the live board over
// /ws/arena/<id>/ (docs/protocol.md, "Arenas"). A player who joined is placed in races by the
// server: a `placed` frame sends this page to the race; the race page waits there for the next.
// The buttons (join, resume, pause, leave) are sent without a reload: the server answers with
// the status and buttons as they now are, and a ticket that makes the page's socket the
// player's. An ended arena's page runs it while races under way at the end still count (the
// frames' `finishing`), then reloads for the final standings, where it only says what the
// reload brought. An arena an admin changes in place (`edited`: a new end, say) shows its new
// name and times, and its clock goes by them, with no reload.

import { ReconnectingSocket } from "./socket.js";
import { formatWait, localizeTimes } from "./times.js";
import { lobbyText } from "./arena-next.js";
import { setText } from "./dom.js";
import {
  factsText,
  finishingText,
  isLater,
  minuteLeft,
  phaseAt,
  switchedTo,
  timesMovedText,
} from "./arena-clock.js";

const root = document.getElementById("arena");
localizeTimes(root); // the start and end in the reader's own zone (the server writes UTC)
const arenaId = root.dataset.arena;
let arenaName = document.querySelector("h1").textContent; // an admin may change it (`edited`)
let me = root.dataset.player ? Number(root.dataset.player) : null;
let starts = Date.parse(root.dataset.starts);
let ends = Date.parse(root.dataset.ends);
const page = Number(root.dataset.page || 1); // of the standings: the first alone is live
const final = root.dataset.final === "true"; // the final standings: nothing changes any more
const REMIND_KEY = `arena-remind:${arenaId}`;
const SAID_KEY = `arena-said:${arenaId}`; // a milestone the page of the phase before said
let offset = 0; // the server's clock minus ours
let left = null; // the countdown's time left at the last tick (ms)
let switchTimer = null;

function now() {
  return Date.now() + offset;
}

/** Say a milestone of the arena (starts or ends in a minute, has started, has ended) in the
 * page's polite status region: the countdown itself ticks silently. */
function announce(text) {
  setText(document.getElementById("arena-announce"), text);
}

function tickClock() {
  const countdown = document.getElementById("arena-countdown");
  if (countdown) {
    const before = left;
    left = Date.parse(countdown.dateTime) - now();
    setText(countdown, formatWait(left));
    const said = minuteLeft(root.dataset.phase, before, left);
    if (said) announce(`${arenaName} ${said}.`);
  }
  const phase = phaseAt(now(), starts, ends);
  if (isLater(phase, root.dataset.phase)) {
    const was = root.dataset.phase;
    root.dataset.phase = phase;
    clearTimeout(switchTimer);
    if (was === "upcoming" && phase === "running") remind();
    sessionStorage.setItem(SAID_KEY, `${arenaName} ${switchedTo(phase)}.`);
    location.reload(); // the page of the new phase: buttons, the podium
  }
}

/** The page's next switch of phase, on time: the tick every second is held back in a hidden
 * tab (once a minute, after a while), where the reminder at the start would come late. Armed
 * again whenever the page learns the server's clock. */
function armSwitch() {
  clearTimeout(switchTimer);
  const phase = root.dataset.phase;
  if (phase === "ended") return;
  const wait = (phase === "upcoming" ? starts : ends) - now();
  // setTimeout runs at once past 2^31 - 1 ms (24.8 days): an arena further off waits in steps.
  switchTimer = setTimeout(
    () => {
      tickClock();
      armSwitch();
    },
    Math.min(Math.max(0, wait) + 50, 2 ** 31 - 1),
  );
}

/** An admin changed the arena in place (`edited`): the heading, the line of facts and the clock
 * take its name and times as they now are, with no reload; the countdown, the switch at the start
 * (and so the reminder) and the one at the end go by the new times. A page the new times take back
 * a phase (a start moved later) loads the page of that phase; one they take on goes as the tick
 * would. */
function onEdited(frame) {
  const moved = timesMovedText({ starts, ends }, { starts: frame.starts_at, ends: frame.ends_at });
  starts = frame.starts_at;
  ends = frame.ends_at;
  root.dataset.starts = new Date(starts).toISOString();
  root.dataset.ends = new Date(ends).toISOString();
  arenaName = frame.name;
  setText(document.querySelector("h1"), arenaName);
  document.title = `${arenaName} — Solitaire Race`;
  setText(document.getElementById("arena-facts"), factsText(frame));
  const shown = root.dataset.phase;
  const countdown = document.getElementById("arena-countdown");
  if (countdown) countdown.dateTime = new Date(shown === "upcoming" ? starts : ends).toISOString();
  root.dataset.edited = String(Number(root.dataset.edited || 0) + 1);
  if (isLater(shown, phaseAt(now(), starts, ends))) {
    location.reload();
    return;
  }
  left = null; // the countdown jumped: no "in 1 minute" said for the jump itself
  if (moved) announce(`${arenaName} ${moved}.`);
  tickClock();
  armSwitch();
}

// ------------------------------------------------------------------ the reminder

/** The reminder the player asked for, once: at the start, or when their first race, dealt just
 * before the start (it begins with it), takes this page to its race. */
function remind(what = "has started", body = "Join or come back to race.") {
  if (localStorage.getItem(REMIND_KEY) !== "1") return;
  localStorage.removeItem(REMIND_KEY);
  const text = `${arenaName} ${what}`;
  if ("Notification" in window && Notification.permission === "granted") {
    new Notification(text, { body });
  }
  sessionStorage.setItem("arena-notice", text);
}

/** The button as the reminder stands (a reload or a new set of buttons shows it set): pressed
 * once, it does nothing more, but keeps the focus a keyboard user pressed it with (a disabled
 * button drops it to the page's start), so `aria-disabled`, not `disabled`. */
function showReminder() {
  const button = document.getElementById("remind-button");
  if (!button || localStorage.getItem(REMIND_KEY) !== "1") return;
  button.setAttribute("aria-disabled", "true");
  button.textContent = "Reminder set";
}

root.addEventListener("click", async (e) => {
  const button = e.target.closest("#remind-button");
  if (!button || button.getAttribute("aria-disabled") === "true") return;
  localStorage.setItem(REMIND_KEY, "1");
  let how = "this page will tell you when it starts; keep it open";
  if ("Notification" in window && Notification.permission !== "denied") {
    const answer = await Notification.requestPermission();
    if (answer === "granted") how = "a notification will tell you when it starts; keep this page open";
  }
  showReminder();
  setStatus(`Reminder set: ${how}.`);
});
showReminder();
const notice = sessionStorage.getItem("arena-notice");
const said = sessionStorage.getItem(SAID_KEY);
sessionStorage.removeItem("arena-notice");
sessionStorage.removeItem(SAID_KEY);
if (notice) setStatus(`${notice}!`); // the reminder says it: once is enough
else if (said) announce(said);

// ------------------------------------------------------------------ the live board

function setStatus(text) {
  const status = document.getElementById("arena-status");
  status.hidden = false;
  status.textContent = text;
}

/** A new row of the board, its cells empty (`fillRow` fills them). */
function newRow() {
  const tr = document.createElement("tr");
  for (let i = 0; i < 4; i += 1) tr.append(document.createElement("td"));
  tr.cells[1].append(document.createElement("a"));
  return tr;
}

/** The flame of a player on a streak, named for a screen reader (which would read the emoji
 * as "fire"), as the server's rows have it (arenas/_board_row.html). */
function streakMark() {
  const flame = document.createElement("span");
  flame.className = "streak";
  flame.setAttribute("role", "img");
  flame.setAttribute("aria-label", "on a streak");
  flame.title = "On a streak: double points";
  flame.textContent = "🔥";
  return flame;
}

/** `tr` made `entry`'s row of the board (`pinned`: the viewer's own, under the top rows),
 * changed only where it differs. The viewer's own row is highlighted, `aria-current`, and says
 * "(you)" after the name to a screen reader, as the server's rows do (arenas/_board_row.html). */
function fillRow(tr, entry, pinned) {
  const you = entry.player === me;
  tr.dataset.player = String(entry.player);
  const mark = you ? (pinned ? "you pinned" : "you") : "";
  if (tr.className !== mark) tr.className = mark;
  if (you) tr.setAttribute("aria-current", "true");
  else tr.removeAttribute("aria-current");
  const [rank, name, points, races] = tr.cells;
  setText(rank, String(entry.rank));
  const link = name.querySelector("a");
  const href = `/arenas/${arenaId}/players/${entry.player}/`;
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
  setText(link, entry.name);
  const tail = `${entry.streak ? " 🔥" : ""}${you ? " (you)" : ""}`;
  if (name.textContent.slice(link.textContent.length) !== tail) {
    while (link.nextSibling) link.nextSibling.remove();
    if (entry.streak) name.append(" ", streakMark());
    if (you) {
      const hidden = document.createElement("span");
      hidden.className = "visually-hidden";
      hidden.textContent = "(you)";
      name.append(" ", hidden);
    }
  }
  setText(points, String(entry.points));
  setText(races, String(entry.races));
  return tr;
}

function emptyRow() {
  const tr = document.createElement("tr");
  tr.className = "empty";
  const td = document.createElement("td");
  td.colSpan = 4;
  td.className = "muted";
  td.textContent = "Nobody has joined yet.";
  tr.append(td);
  return tr;
}

/** The board's rows as the frame has them, the viewer's own pinned below the top when it is not
 * among them. Each player's row is the one the board had, changed in place and moved only where
 * the order changed: a keyboard user on a link of the board stays there, and a row that moved
 * (taken out and put back, which drops the focus) has it back. */
function showRows(frame) {
  const body = document.querySelector("#arena-board tbody");
  const kept = new Map();
  for (const tr of body.querySelectorAll("tr[data-player]")) kept.set(tr.dataset.player, tr);
  const entries = frame.rows.map((entry) => [entry, false]);
  if (frame.you && !frame.rows.some((entry) => entry.player === frame.you.player)) {
    entries.push([frame.you, true]);
  }
  const rows = entries.map(([entry, pinned]) =>
    fillRow(kept.get(String(entry.player)) ?? newRow(), entry, pinned),
  );
  if (!rows.length) rows.push(body.querySelector("tr.empty") ?? emptyRow());
  const focused = document.activeElement;
  rows.forEach((tr, i) => {
    const there = body.children[i];
    if (there !== tr) body.insertBefore(tr, there ?? null);
  });
  while (body.children.length > rows.length) body.lastElementChild.remove();
  if (focused !== document.activeElement && body.contains(focused)) {
    focused.focus({ preventScroll: true });
  }
}

/** An ended arena's standings: live while its races under way at the end finish (`finishing`
 * counts them), final once the last has closed: the page of the final standings and the podium. */
function onFinishing(frame) {
  if (root.dataset.phase !== "ended" || typeof frame.finishing !== "number") return;
  if (frame.finishing === 0) {
    location.reload();
    return;
  }
  setText(document.getElementById("board-h"), finishingText(frame.finishing));
  root.dataset.finishing = String(frame.finishing);
}

function onBoard(frame) {
  if (page === 1) showRows(frame); // a later page shows the board as it was read
  document.getElementById("arena-lobby").textContent =
    `${frame.joined} joined · ${frame.racing} racing · ${frame.waiting} waiting`;
  const status = document.getElementById("arena-status");
  if (status.dataset.lobby && root.dataset.phase === "running" && frame.you) {
    const text = lobbyText(frame);
    if (status.textContent.trim() !== text) setStatus(text); // a live region: said when it changes
  }
  onFinishing(frame);
  root.dataset.board = String(Number(root.dataset.board || 0) + 1);
}

function onFrame(frame) {
  if (typeof frame.now === "number") {
    offset = frame.now - Date.now();
    armSwitch(); // on the server's clock
  }
  if (frame.type === "standings") onBoard(frame);
  else if (frame.type === "edited") onEdited(frame);
  else if (frame.type === "placed") {
    root.dataset.placed = frame.url;
    if (root.dataset.phase === "upcoming") {
      remind("is starting", "Your first race is dealt: it begins with the arena.");
    }
    sock.close();
    location.assign(frame.url);
  } else if (frame.type === "error" && frame.code === "bad_ticket") {
    sock.reconnect(); // a ticket too old: the session says who the player is
  } else if (frame.type === "error") setStatus(frame.reason);
}

// ------------------------------------------------------------------ the buttons, without a reload

/** The server's status line and buttons in place of the page's: the status line's text changes in
 * the live region the page already has (so a screen reader says it), the buttons are replaced, and
 * the focus goes to the first new one if it was on the one pressed. */
function showControls(html, hadFocus) {
  const fresh = document.createElement("template");
  fresh.innerHTML = html;
  const controls = document.getElementById("arena-controls");
  const status = document.getElementById("arena-status");
  const freshStatus = fresh.content.getElementById("arena-status");
  status.innerHTML = freshStatus.innerHTML;
  status.hidden = freshStatus.hidden;
  if (freshStatus.dataset.lobby) status.dataset.lobby = freshStatus.dataset.lobby;
  else delete status.dataset.lobby;
  const actions = controls.querySelector(".arena-actions");
  const freshActions = fresh.content.querySelector(".arena-actions");
  if (actions && freshActions) actions.replaceWith(freshActions);
  else if (freshActions) controls.append(freshActions);
  else if (actions) actions.remove();
  showReminder();
  const first = controls.querySelector(".arena-actions button");
  if (hadFocus && first) first.focus();
}

async function press(form) {
  const hadFocus = form.contains(document.activeElement); // before the buttons are disabled
  const buttons = form.querySelectorAll("button");
  const enable = (on) => buttons.forEach((button) => (button.disabled = !on));
  // Disabled while the server answers, the button pressed dropped the keyboard's focus to the
  // page: a refusal gives it back, for the press to be made again.
  const refused = (text) => {
    enable(true);
    setStatus(text);
    if (hadFocus) buttons[0]?.focus();
  };
  enable(false);
  let answer;
  try {
    const response = await fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    const type = response.headers.get("Content-Type") || "";
    if (!type.startsWith("application/json")) {
      // the forms' budget (429) says why in plain text; anything else is an error page
      const said = type.startsWith("text/plain") ? (await response.text()).trim() : "";
      refused(said || `The server answered ${response.status}: try again.`);
      return;
    }
    answer = await response.json();
  } catch {
    refused("Could not reach the server: check the connection and try again.");
    return;
  }
  if (answer.error === "not_found") {
    gone(answer.note, hadFocus);
    return;
  }
  showControls(answer.controls, hadFocus);
  if (answer.note) setStatus(answer.note);
  const account = document.querySelector(".site-header .account");
  if (answer.who && account && !account.querySelector(".who")) {
    const who = document.createElement("a");
    who.className = "who";
    who.href = answer.who.url;
    who.title = "Your page: what others see of you";
    who.textContent = answer.who.name;
    account.prepend(who);
  }
  const player = answer.player ?? null;
  root.dataset.player = player === null ? "" : String(player);
  me = player;
  // The socket made the player's as they now are (present, or a spectator): the answer's
  // ticket over the socket the page has open, or, if it is not open, a new one (its player
  // comes from the session, which the press may just have made).
  if (!answer.ticket || !sock.send({ type: "player", ticket: answer.ticket })) sock.reconnect();
  root.dataset.pressed = String(Number(root.dataset.pressed || 0) + 1);
}

/** The arena was removed while its page was open (an admin's edit of its schedule removes its
 * coming arenas nobody joined), and a button's answer says so (404 `not_found`): its reason on
 * the status line, the buttons gone (nothing is left to press) and the socket closed (nothing is
 * left to hear); the keyboard's focus, on the button pressed, goes to the status line (`hadFocus`)
 * rather than to the page. The clock still reloads the page at the start: the page of an unknown
 * arena. */
function gone(note, hadFocus) {
  document.querySelector("#arena-controls .arena-actions")?.remove();
  setStatus(note);
  if (hadFocus) {
    const status = document.getElementById("arena-status");
    status.tabIndex = -1;
    status.focus();
  }
  sock.close();
  root.dataset.pressed = String(Number(root.dataset.pressed || 0) + 1);
}

root.addEventListener("submit", (e) => {
  const form = e.target;
  if (!form.closest("#arena-controls")) return;
  e.preventDefault();
  press(form);
});

const sock = new ReconnectingSocket(`/ws/arena/${arenaId}/`);
sock.addEventListener("message", (e) => onFrame(e.detail));
sock.addEventListener("status", (e) => {
  root.dataset.socket = e.detail.state;
});
if (!final) {
  sock.connect();
  tickClock();
  armSwitch();
  setInterval(tickClock, 1000);
  // A tab shown again is told the time at once (its timers may have been held back).
  document.addEventListener("visibilitychange", () => {
    tickClock();
    armSwitch();
  });
}
