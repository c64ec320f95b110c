// The results page listens to its race: when a racer asks for a rematch, every racer looking
// at the results is taken to the new lobby too (spectators get a link instead).

import { ReconnectingSocket } from "./socket.js";

const config = JSON.parse(document.getElementById("race-results-config").textContent);
const sock = new ReconnectingSocket(config.ws_path);
let racer = null;

sock.addEventListener("status", (e) => {
  document.body.dataset.raceResults = e.detail.state; // for tests: "open" once listening
});
sock.addEventListener("message", (e) => {
  const frame = e.detail;
  if (frame.type === "snapshot") {
    racer = frame.you.racer;
  } else if (frame.type === "rematch" && typeof frame.event === "number") {
    if (racer) {
      sock.close();
      location.assign(frame.url);
      return;
    }
    const link = document.getElementById("rematch-link");
    link.href = frame.url;
    link.hidden = false;
  }
});
sock.connect();
