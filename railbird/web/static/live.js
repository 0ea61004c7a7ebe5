// The live feed shared by the scoreboard and the console: server-sent events from
// /api/stream, one "state" event per published ScoreboardState. EventSource reconnects itself.
"use strict";

function connectLive(render, onStatus) {
  const source = new EventSource("/api/stream");
  source.addEventListener("state", (event) => {
    const state = JSON.parse(event.data);
    if (state !== null) render(state);
  });
  source.addEventListener("open", () => onStatus(true));
  source.addEventListener("error", () => onStatus(false));
  return source;
}

function clockText(clock) {
  if (!clock) return "";
  if (clock.phase === "expired") return "TIME";
  return String(Math.ceil(clock.remaining_s - 1e-9));
}

function setText(id, text) {
  const el = document.getElementById(id);
  if (el.textContent !== text) el.textContent = text;
}
