// The operator console: posts rules.inputs values as JSON to /api/input with the token.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
let latest = null;

function $(id) { return document.getElementById(id); }

function option(value, text) {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = text;
  return el;
}

function showResult(text, ok) {
  const box = $("result");
  box.textContent = text;
  box.className = `result ${ok ? "ok" : "error"}`;
}

async function send(input) {
  let response;
  try {
    response = await fetch("/api/input", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Authorization": `Bearer ${TOKEN}` },
      body: JSON.stringify(input),
    });
  } catch (err) {
    showResult(`Not sent: the server cannot be reached (${err})`, false);
    return;
  }
  const reply = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (response.ok) showResult(`Accepted: ${input.kind}`, true);
  else showResult(`Refused (${response.status}): ${reply.error}`, false);
}

function optionalInt(id) {
  const text = $(id).value.trim();
  return text === "" ? null : Number.parseInt(text, 10);
}

function player(id) { return Number.parseInt($(id).value, 10); }

function wire() {
  $("send-call").onclick = () => send({ kind: "call-shot", ball: $("call-ball").value, pocket: $("call-pocket").value });
  $("send-safety").onclick = () => send({ kind: "safety" });
  $("send-push-out").onclick = () => send({ kind: "push-out" });
  $("send-foul").onclick = () => send({
    kind: "operator-foul", foul: $("foul-kind").value, player: player("foul-player"),
    shot: optionalInt("foul-shot"), note: $("foul-note").value,
  });
  $("send-warning").onclick = () => send({ kind: "warning-given", player: player("foul-player") });
  $("send-extension").onclick = () => send({ kind: "extension", player: player("clock-player") });
  $("send-time-out").onclick = () => send({
    kind: "time-out", player: player("clock-player"), minutes: Number($("timeout-minutes").value),
  });
  $("send-undo").onclick = () => send({
    kind: "undo", target: Number.parseInt($("undo-target").value, 10), reason: $("undo-reason").value,
  });
  $("send-override").onclick = () => {
    const verdict = $("override-verdict").value;
    const input = { kind: "override", shot: optionalInt("override-shot"), reason: $("override-reason").value };
    if (verdict === "legal") input.fouls = [];
    else if (verdict !== "keep") {
      const [kind, rule] = verdict.split("|");
      input.fouls = [{ kind, rule, reason: input.reason, ball: null }];
    }
    send(input);
  };
  $("send-interference").onclick = () => send({
    kind: "interference", outcome: $("interference-outcome").value,
    shot: optionalInt("interference-shot"), note: $("interference-note").value,
  });
  $("send-stalemate").onclick = () => send({ kind: "stalemate", note: "" });
  $("send-rack-ready").onclick = () => send({ kind: "rack-ready", note: "" });
}

async function loadVocabulary() {
  const vocab = await (await fetch("/api/vocabulary")).json();
  $("call-ball").replaceChildren(...vocab.balls.map((b) => option(b, b)));
  $("call-pocket").replaceChildren(...vocab.pockets.map((p) => option(p, p)));
  $("foul-kind").replaceChildren(...vocab.fouls.map((f) => option(f.kind, `${f.rule} ${f.kind}${f.operator_only ? "" : " (seen by camera)"}`)));
  $("override-verdict").replaceChildren(
    option("keep", "keep the fouls found (correct the record)"),
    option("legal", "legal shot: no foul"),
    ...vocab.fouls.map((f) => option(`${f.kind}|${f.rule}`, `foul ${f.rule} ${f.kind}`)),
  );
  $("interference-outcome").replaceChildren(...vocab.interference.map((o) => option(o, o)));
}

function fillPlayers(players, shooter) {
  for (const select of document.querySelectorAll(".player-select")) {
    const chosen = select.value;
    const names = players.map((name, i) => option(String(i), name));
    if (select.options.length !== 2 || select.options[0].textContent !== players[0]) {
      select.replaceChildren(...names);
      select.value = chosen || String(shooter);
    }
  }
}

function renderConsole(s) {
  latest = s;
  const mini = $("mini-clock");
  mini.textContent = s.clock ? clockText(s.clock) : "--";
  mini.className = `mini-clock ${s.clock ? s.clock.phase : ""}`;
  setText("c-players", `${s.players[0]} ${s.score[0]} - ${s.score[1]} ${s.players[1]}`);
  setText("c-shooter", s.players[s.shooter]);
  setText("c-bih", s.ball_in_hand === "none" ? "" : `ball in hand (${s.ball_in_hand})`);
  setText("c-declared", s.declared || "nothing");
  setText("c-call", s.last_call ? `${s.last_call.headline} ${s.last_call.rule ? `(rule ${s.last_call.rule})` : ""}` : "-");
  renderMatch(s);
  fillPlayers(s.players, s.shooter);
  renderChoices(s);
  renderLog(s.log);
  if (s.last_call && s.last_call.shot_index !== null && $("override-shot").value === "") {
    $("override-shot").value = String(s.last_call.shot_index);
  }
}

function renderMatch(s) {
  const race = s.race_to === null ? "" : `race to ${s.race_to} ${s.unit}, `;
  let text = `${race}rack ${s.rack}`;
  if (s.match_winner) text += `: match over, ${s.match_winner} wins`;
  else if (s.next_breaker !== null) text += ` over: ${s.players[s.next_breaker]} breaks next, press "rack ready" once racked`;
  if (s.time_out) text += ` · time-out: ${s.time_out}`;
  setText("c-match", text);
  $("send-rack-ready").disabled = s.next_breaker === null;
}

function renderChoices(s) {
  const box = $("choices");
  if (s.chooser === null || s.choices.length === 0) {
    box.replaceChildren(document.createTextNode("No choice pending."));
    return;
  }
  const label = document.createElement("div");
  label.textContent = `${s.players[s.chooser]} chooses:`;
  const buttons = s.choices.map((c) => {
    const b = document.createElement("button");
    b.textContent = c;
    b.onclick = () => send({ kind: "decision", choice: c });
    return b;
  });
  box.replaceChildren(label, ...buttons);
}

function renderLog(lines) {
  const chosen = $("undo-target").value;
  $("undo-target").replaceChildren(...lines.slice().reverse().map((l) => option(String(l.seq), `#${l.seq} ${l.text}`)));
  if (chosen && lines.some((l) => String(l.seq) === chosen)) $("undo-target").value = chosen;
  $("log").replaceChildren(...lines.map((l) => {
    const div = document.createElement("div");
    div.className = l.cancelled ? "cancelled" : "";
    div.textContent = `#${l.seq} t=${l.time.toFixed(1)} ${l.text}`;
    return div;
  }));
}

function showConnection(up) {
  setText("c-connection", up ? "live" : "reconnecting...");
}

wire();
loadVocabulary().catch((err) => showResult(`Cannot load the console vocabulary: ${err}`, false));
connectLive(renderConsole, showConnection);
