// The scoreboard: renders each ScoreboardState the server streams.
"use strict";

const BALL_IN_HAND = { anywhere: "ball in hand", kitchen: "ball in hand behind the head string" };

function renderBoard(s) {
  for (const i of [0, 1]) {
    setText(`name-${i}`, s.players[i]);
    setText(`score-${i}`, String(s.score[i]));
    document.getElementById(`player-${i}`).classList.toggle("at-table", s.shooter === i && !s.game_over);
    const meta = [];
    if (s.sets) meta.push(`sets ${s.sets[i]}`);
    if (s.groups.length === 2) meta.push(s.groups[i]);
    if (s.fouls_in_a_row[i] > 0) meta.push(`fouls ${s.fouls_in_a_row[i]}`);
    setText(`meta-${i}`, meta.join(" · "));
  }
  setText("game", s.game);
  setText("race", s.race_to === null ? "" : `race to ${s.race_to} ${s.unit}`);
  setText("rack", `rack ${s.rack}`);
  renderClock(s.clock);
  renderBadges(s);
  renderBalls(s.on_table);
  renderCall(s.last_call);
  renderNotices(s.warnings, s.reviews);
  setText("sensors", s.sensors);
  setText("camera", s.camera);
  document.getElementById("sensors").classList.toggle("bad", s.sensors !== "ok");
  document.getElementById("camera").classList.toggle("bad", s.camera !== "ok");
}

function renderClock(clock) {
  const el = document.getElementById("clock");
  const phase = clock ? clock.phase : "off";
  el.className = `clock ${phase}`;
  el.dataset.phase = phase;
  el.textContent = clock ? clockText(clock) : "no shot clock";
}

function badge(text, kind) {
  const el = document.createElement("span");
  el.className = `badge ${kind || ""}`;
  el.textContent = text;
  return el;
}

function renderBadges(s) {
  const badges = [];
  const shooter = s.players[s.shooter];
  if (s.match_winner) badges.push(badge(`${s.match_winner} wins the match`));
  else if (s.game_over) badges.push(badge(s.winner ? `${s.winner} wins the rack` : "rack over"));
  if (s.next_breaker !== null) badges.push(badge(`${s.players[s.next_breaker]} breaks next`));
  if (s.time_out) badges.push(badge(`time-out: ${s.time_out}${timeOutLeft(s.time_out_left_s)} (rule 1.13)`, "warn"));
  if (!s.game_over && s.ball_in_hand !== "none") badges.push(badge(`${shooter}: ${BALL_IN_HAND[s.ball_in_hand]}`, "warn"));
  if (s.declared) badges.push(badge(`called: ${s.declared}`));
  if (s.chooser !== null && s.choices.length) badges.push(badge(`${s.players[s.chooser]} to choose`, "warn"));
  if (s.clock && s.clock.extension_used) badges.push(badge("extension used"));
  document.getElementById("badges").replaceChildren(...badges);
}

function timeOutLeft(seconds) {
  if (seconds === null) return "";
  if (seconds <= 0) return ", over";
  const whole = Math.ceil(seconds);
  return `, ${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")} left`;
}

function renderBalls(balls) {
  document.getElementById("balls").replaceChildren(...balls.map((b) => {
    const el = document.createElement("span");
    el.className = "ball";
    el.textContent = b;
    return el;
  }));
}

function renderCall(call) {
  const box = document.getElementById("call");
  box.classList.toggle("hidden", call === null);
  if (call === null) return;
  box.classList.toggle("foul", !call.legal);
  setText("call-headline", call.headline);
  setText("call-rule", call.rule ? `rule ${call.rule}` : "");
  setText("call-reason", call.reason);
}

function renderNotices(warnings, reviews) {
  const items = warnings.map((w) => [`${w.text} (rule ${w.rule})`, ""]);
  for (const r of reviews) items.push([`under review (rule ${r.rule}): ${r.text}`, "review"]);
  document.getElementById("notices").replaceChildren(...items.map(([text, kind]) => {
    const li = document.createElement("li");
    li.className = kind;
    li.textContent = text;
    return li;
  }));
}

function showConnection(up) {
  const el = document.getElementById("connection");
  el.textContent = up ? "live" : "reconnecting...";
  el.classList.toggle("bad", !up);
}

connectLive(renderBoard, showConnection);
