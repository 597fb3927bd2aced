// The page of `pokerbot web`: draws the table the server sends over /ws and sends the
// person's actions, each naming the state (seq) it answers. The server checks every
// action against the rules; this page only helps choose one.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
let ws = null;
let table = null;
let sentSeq = -1;       // the state an action was sent for: no second one until a newer state
let amountSeq = -1;     // the state the raise amount was set for
let errorTimer = null;

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.type === "table") render(msg);
    else if (msg.type === "error") showError(msg.message);
  };
  ws.onopen = () => { $("notice").textContent = ""; };
  ws.onclose = () => {
    $("notice").textContent = "connection to the server lost: reconnecting…";
    setTimeout(connect, 1000);
  };
}

function showError(message) {
  sentSeq = -1; // refused: the decision is still open
  $("error").textContent = message;
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => { $("error").textContent = ""; }, 6000);
  if (table) renderActions(table);
}

function cardElement(text) {
  const el = document.createElement("div");
  el.className = "card";
  if (text === null) { el.classList.add("back"); return el; }
  if (text === "") { el.classList.add("empty"); return el; }
  const suit = text[1];
  el.textContent = text[0].replace("T", "10") + SUITS[suit];
  if (suit === "h" || suit === "d") el.classList.add("red");
  el.dataset.card = text;
  return el;
}

function showCards(id, cards) {
  const box = $(id);
  box.replaceChildren(...cards.map(cardElement));
}

const chips = (n) => Math.round(n).toLocaleString("en-US");

function render(t) {
  table = t;
  $("versus").textContent = t.strategy ? `you vs ${t.strategy}` : "";
  $("hand-info").textContent = t.hand ? `hand ${t.hand} of ${chips(t.hands)}` : "";
  const notice = {
    starting: "the bot is starting (loading its blueprint)…",
    over: t.message, failed: "the sitting stopped: " + t.message,
  }[t.status];
  if (notice !== undefined) $("notice").textContent = notice;
  else $("notice").textContent = t.to_act === "you" ? "your turn" : (t.to_act === "bot" ? "the bot is thinking…" : "");
  if (t.you) {
    $("you-position").textContent = `(${t.you.position})`;
    $("bot-position").textContent = `(${t.bot.position})`;
    showCards("you-cards", t.you.cards);
    showCards("bot-cards", t.bot.cards ? t.bot.cards : [null, null]);
    const board = t.board.slice();
    while (board.length < 5) board.push("");
    showCards("board", board);
    $("pot-amount").textContent = chips(t.pot);
    $("you-stack").textContent = chips(t.you.stack);
    $("bot-stack").textContent = chips(t.bot.stack);
    $("you-spent").textContent = chips(t.you.spent);
    $("bot-spent").textContent = chips(t.bot.spent);
    $("you-seat").classList.toggle("to-act", t.to_act === "you");
    $("bot-seat").classList.toggle("to-act", t.to_act === "bot");
    $("you-seat").classList.toggle("folded", t.you.folded);
    $("bot-seat").classList.toggle("folded", t.bot.folded);
    const names = ["preflop", "flop", "turn", "river"];
    const items = [];
    t.betting.forEach((acts, r) => acts.forEach((a) => {
      const li = document.createElement("li");
      li.textContent = `${names[r] || r}: ${a}`;
      items.push(li);
    }));
    $("betting").replaceChildren(...items);
  }
  if (t.bot_seconds !== null && t.bot_seconds !== undefined) {
    $("bot-thinking").textContent = `thought ${t.bot_seconds.toFixed(2)} s (mean ${t.bot_seconds_mean.toFixed(2)} s)`;
  }
  const last = t.history && t.history.length ? t.history[t.history.length - 1] : null;
  $("last-result").textContent = last
    ? `hand ${last.number}: ` + (last.chips === 0 ? "split pot" : `you ${last.chips > 0 ? "won" : "lost"} ${chips(Math.abs(last.chips))}`) +
      (last.bot_cards ? ` · bot showed ${last.bot_cards.join(" ")}` : "")
    : "";
  renderResult(t);
  renderHistory(t);
  renderActions(t);
}

function renderResult(t) {
  const r = t.results || [];
  if (!r.length) { $("result").textContent = "no hands finished yet"; drawChart([]); return; }
  const n = r.length, bb = t.big_blind;
  const mean = r.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0;
  const mbb = (1000 * mean) / bb, ci = n > 1 ? (1000 * 1.96 * sd) / Math.sqrt(n) / bb : null;
  $("result").textContent = `${n} hands, you ${mean >= 0 ? "+" : ""}${chips(mean * n)} chips: ` +
    `${mbb >= 0 ? "+" : ""}${chips(mbb)} mbb/hand` + (ci === null ? "" : ` ± ${chips(ci)} (95 %)`);
  drawChart(r.map((v) => v / bb));
}

function drawChart(values) {
  const c = $("chart"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const cum = [0];
  values.forEach((v) => cum.push(cum[cum.length - 1] + v));
  const lo = Math.min(...cum, -1), hi = Math.max(...cum, 1);
  const x = (i) => 30 + (i * (c.width - 40)) / Math.max(cum.length - 1, 1);
  const y = (v) => 10 + ((hi - v) * (c.height - 20)) / (hi - lo);
  g.strokeStyle = "#557"; g.beginPath(); g.moveTo(30, y(0)); g.lineTo(c.width - 10, y(0)); g.stroke();
  g.fillStyle = "#bcd"; g.font = "10px sans-serif";
  g.fillText(`${hi.toFixed(0)} bb`, 0, 14); g.fillText(`${lo.toFixed(0)} bb`, 0, c.height - 4);
  g.strokeStyle = "#ffd27a"; g.lineWidth = 2; g.beginPath();
  cum.forEach((v, i) => (i ? g.lineTo(x(i), y(v)) : g.moveTo(x(i), y(v))));
  g.stroke();
}

function renderHistory(t) {
  const rows = (t.history || []).slice().reverse().map((h) => {
    const tr = document.createElement("tr");
    [h.number, h.position, h.cards.join(" "), h.board.join(" "), h.bot_cards ? h.bot_cards.join(" ") : "—",
     (h.chips >= 0 ? "+" : "") + chips(h.chips)].forEach((v) => {
      const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
    });
    return tr;
  });
  $("history").tBodies[0].replaceChildren(...rows);
}

function canAct(t) { return t && t.legal && t.status === "playing" && t.seq > sentSeq; }

function renderActions(t) {
  const open = canAct(t);
  $("actions").classList.toggle("disabled", !open);
  const legal = t && t.legal;
  $("fold").disabled = !open || !legal.fold;
  $("call").disabled = !open;
  $("call").firstChild.textContent = legal && legal.call > 0 ? `Call ${chips(legal.call)} ` : "Check ";
  const raise = legal && legal.raise;
  $("raise").disabled = !open || !raise;
  document.querySelectorAll(".frac").forEach((b) => { b.disabled = !open || !raise; });
  $("slider").disabled = $("amount").disabled = !open || !raise;
  if (open && raise && amountSeq !== t.seq) {
    amountSeq = t.seq;
    $("slider").min = $("amount").min = raise[0];
    $("slider").max = $("amount").max = raise[1];
    setAmount(raise[0]);
  }
  $("raise-amount").textContent = $("amount").value ? chips(Number($("amount").value)) : "";
}

function setAmount(v) {
  $("amount").value = v;
  $("slider").value = v;
  $("raise-amount").textContent = chips(v);
}

function fraction(f) {
  const l = table && table.legal;
  if (!canAct(table) || !l || !l.raise) return;
  const to = f === "all" ? l.raise[1] : l.max_spent + Math.round(f * (l.pot + l.call));
  setAmount(Math.min(Math.max(to, l.raise[0]), l.raise[1]));
}

function send(action) {
  if (!canAct(table) || !ws || ws.readyState !== WebSocket.OPEN) return;
  const msg = { type: "act", seq: table.seq, action };
  if (action === "raise") msg.amount = Number($("amount").value);
  sentSeq = table.seq;
  $("error").textContent = "";
  renderActions(table);
  ws.send(JSON.stringify(msg));
}

$("fold").onclick = () => send("fold");
$("call").onclick = () => send("call");
$("raise").onclick = () => send("raise");
$("slider").oninput = () => setAmount(Number($("slider").value));
$("amount").oninput = () => { $("raise-amount").textContent = chips(Number($("amount").value)); };
document.querySelectorAll(".frac").forEach((b) => { b.onclick = () => fraction(b.dataset.frac === "all" ? "all" : Number(b.dataset.frac)); });
$("new-sitting").onclick = () => {
  if (ws && ws.readyState === WebSocket.OPEN && confirm("End this sitting and start a new one?")) {
    ws.send(JSON.stringify({ type: "new_sitting" }));
  }
};
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const typing = e.target === $("amount");
  if (e.key === "Enter") { e.preventDefault(); send("raise"); return; }
  if (typing) return;
  const k = e.key.toLowerCase();
  if (k === "f") send("fold");
  else if (k === "c") send("call");
  else if (k === "r") send("raise");
  else if ("12345".includes(k) && k.length === 1) fraction([0.5, 0.75, 1, 2, "all"][Number(k) - 1]);
  else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
    const l = table && table.legal;
    if (!l || !l.raise) return;
    const step = table.big_blind * (e.key === "ArrowLeft" ? -1 : 1);
    setAmount(Math.min(Math.max(Number($("amount").value) + step, l.raise[0]), l.raise[1]));
    e.preventDefault();
  }
});
connect();
