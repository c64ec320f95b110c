// The arena page: the countdown, the reminder at the start, and the live board over
// /ws/arena/<id>/ (docs/protocol.md, "Arenas"). A player who joined is placed in races by the
// server: a `placed` frame sends this page to the race; the race page waits there for the next.
// The buttons (join, resume, pause, leave) are sent without a reload: the server answers with
// the status and buttons as they now are, and a ticket that makes the page's socket the
// player's.

import { ReconnectingSocket } from "./socket.js";
import { formatWait } from "./daily-countdown.js";
import { lobbyText } from "./arena-next.js";

const root = document.getElementById("arena");
const arenaId = root.dataset.arena;
let me = root.dataset.player ? Number(root.dataset.player) : null;
const starts = Date.parse(root.dataset.starts);
const ends = Date.parse(root.dataset.ends);
const page = Number(root.dataset.page || 1); // of the standings: the first alone is live
const PHASES = ["upcoming", "running", "ended"];
const REMIND_KEY = `arena-remind:${arenaId}`;
let offset = 0; // the server's clock minus ours

function now() {
  return Date.now() + offset;
}

function tickClock() {
  const countdown = document.getElementById("arena-countdown");
  if (countdown) countdown.textContent = formatWait(Date.parse(countdown.dateTime) - now());
  const phase = now() < starts ? "upcoming" : now() < ends ? "running" : "ended";
  // Forward only: a clock behind the server's (before its first frame) never takes the page
  // back to a phase the server has left.
  if (PHASES.indexOf(phase) > PHASES.indexOf(root.dataset.phase)) {
    const was = root.dataset.phase;
    root.dataset.phase = phase;
    if (was === "upcoming" && phase === "running") remind();
    location.reload(); // the page of the new phase: buttons, the podium
  }
}

// ------------------------------------------------------------------ the reminder

/** The reminder the player asked for, once: at the start, or when their first race, dealt just
 * before the start (it begins with it), takes this page to its race. */
function remind(what = "has started", body = "Join or come back to race.") {
  if (localStorage.getItem(REMIND_KEY) !== "1") return;
  localStorage.removeItem(REMIND_KEY);
  const text = `${document.querySelector("h1").textContent} ${what}`;
  if ("Notification" in window && Notification.permission === "granted") {
    new Notification(text, { body });
  }
  sessionStorage.setItem("arena-notice", text);
}

/** The button as the reminder stands (a reload or a new set of buttons shows it set). */
function showReminder() {
  const button = document.getElementById("remind-button");
  if (!button || localStorage.getItem(REMIND_KEY) !== "1") return;
  button.disabled = true;
  button.textContent = "Reminder set";
}

root.addEventListener("click", async (e) => {
  if (!e.target.closest("#remind-button")) return;
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
if (notice) {
  sessionStorage.removeItem("arena-notice");
  setStatus(`${notice}!`);
}

// ------------------------------------------------------------------ the live board

function setStatus(text) {
  const status = document.getElementById("arena-status");
  status.hidden = false;
  status.textContent = text;
}

function cell(text, href) {
  const td = document.createElement("td");
  if (href) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    td.append(a);
  } else {
    td.textContent = text;
  }
  return td;
}

function row(entry, pinned) {
  const tr = document.createElement("tr");
  tr.dataset.player = String(entry.player);
  if (entry.player === me) tr.className = pinned ? "you pinned" : "you";
  const name = entry.streak ? `${entry.name} 🔥` : entry.name;
  tr.append(
    cell(String(entry.rank)),
    cell(name, `/arenas/${arenaId}/players/${entry.player}/`),
    cell(String(entry.points)),
    cell(String(entry.races)),
  );
  return tr;
}

/** The heading of an ended arena's standings while races under way at its end still count. */
function finishingText(count) {
  return `Standings — ${count} race${count === 1 ? "" : "s"} still finishing`;
}

/** An ended arena's standings: live while its races under way at the end finish (`finishing`
 * counts them), final once the last has closed: the page of the final standings and the podium. */
function onFinishing(frame) {
  if (root.dataset.phase !== "ended" || typeof frame.finishing !== "number") return;
  if (frame.finishing === 0) {
    location.reload();
    return;
  }
  document.getElementById("board-h").textContent = finishingText(frame.finishing);
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

function showRows(frame) {
  const body = document.querySelector("#arena-board tbody");
  const rows = frame.rows.map((entry) => row(entry, false));
  if (frame.you && !frame.rows.some((entry) => entry.player === frame.you.player)) {
    rows.push(row(frame.you, true)); // pinned below the top
  }
  if (!rows.length) {
    const empty = document.createElement("tr");
    empty.className = "empty";
    const td = cell("Nobody has joined yet.");
    td.colSpan = 4;
    td.className = "muted";
    empty.append(td);
    rows.push(empty);
  }
  body.replaceChildren(...rows);
}

function onFrame(frame) {
  if (typeof frame.now === "number") offset = frame.now - Date.now();
  if (frame.type === "standings") onBoard(frame);
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
  const refused = (text) => {
    enable(true);
    setStatus(text);
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
sock.connect();
tickClock();
setInterval(tickClock, 1000);
