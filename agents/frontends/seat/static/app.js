// kocka web: the hint companion in a browser. One ES module, no build step, no library.
//
// The page speaks the AI seat's protocol (docs/PROTOCOL.md: POST / with one JSON request,
// one JSON response). It holds the game as the seat's state documents and asks the seat
// for every rule and number: the legal moves and their labels (legal), the hint (rank;
// "play to win": rank with the winner agent, P(finishing first) against the other cards),
// the hint in plain words (advice), the points of each box (score), the distribution of
// the final score (distribution). It names no game: what it draws it reads from the state
// document's fields and from hello. A network failure (the seat restarting) is retried;
// requests are stateless, so nothing is lost meanwhile.

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------
// The seat
// ---------------------------------------------------------------------------------------
const seat = {
  token: null,
  nextId: 1,
  failing: false,

  // One request; protocol errors reject with {code, message}; network failures are
  // retried (with a message) until the seat answers again.
  async call(method, fields = {}) {
    const body = JSON.stringify({ id: this.nextId++, method, ...fields });
    const headers = { "Content-Type": "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let delay = 300;
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await fetch("/", { method: "POST", headers, body, cache: "no-store" });
      } catch (err) {
        this.failing = true;
        showError(`The seat is not answering (is kocka web still running?); trying again…`, false);
        await sleep(delay);
        delay = Math.min(delay * 2, 2000);
        if (attempt > 200) throw { code: "unreachable", message: "the seat did not answer for minutes" };
        continue;
      }
      let doc;
      try {
        doc = await response.json();
      } catch (err) {
        throw { code: "bad_response", message: `the seat answered HTTP ${response.status} without JSON` };
      }
      if (this.failing) {
        this.failing = false;
        hideError();
      }
      if (response.status === 503 && attempt < 20) {  // busy: retry shortly
        await sleep(delay);
        continue;
      }
      if (doc.error) throw doc.error;
      return doc.result;
    }
  },
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------
// What the page holds
// ---------------------------------------------------------------------------------------
const app = {
  hello: null,
  games: new Map(),     // name -> hello's game description
  game: null,           // the game description being played
  rules: {},
  names: [],
  ai: new Set(),        // seats the AI plays (mode "ai")
  mode: "table",
  lang: null,           // null: the game's own language
  defaultLang: null,
  position: null,       // {state, node, player, returns}
  history: [],          // earlier positions, for undo
  legal: null,
  entry: [],            // dice typed at a roll
  selected: new Set(),  // indices of the dice picked to keep / set aside
  generation: 0,        // bumps on every position: late answers for an old one are dropped
  hintsOn: true,
  toWin: false,         // "play to win": the hint ranks by the winner agent (where offered)
  rolling: false,
};

function showError(text, retry = false) {
  $("error-text").textContent = text;
  $("error-retry").hidden = !retry;
  $("error").hidden = false;
}

function hideError() {
  $("error").hidden = true;
}

function say(text) {
  $("message").textContent = text || "";
}

function failure(err) {
  const text = err && err.message ? err.message : String(err);
  showError(text, false);
}

// ---------------------------------------------------------------------------------------
// Reading state documents (by their fields, whatever the game)
// ---------------------------------------------------------------------------------------
function shape(doc) {
  const s = doc.state;
  if (Array.isArray(s.scores)) return "scores";
  if (Array.isArray(s.records)) return "records";
  if (Array.isArray(s.cards) && s.cards.length && s.cards[0] && s.cards[0].entries) return "cards";
  if (Array.isArray(s.cards) && Array.isArray(s.fences)) return "stages";
  return "other";
}

function boxIds(doc) {
  const s = doc.state;
  switch (shape(doc)) {
    case "cards": return Object.keys(s.cards[0].entries);
    case "stages": return (doc.rules && doc.rules.boxes) || app.game.boxes.map((b) => b.id);
    case "records": return app.game.boxes.map((b) => b.id);
    default: return [];
  }
}

function entriesOf(doc, seatIndex) {
  const s = doc.state;
  const ids = boxIds(doc);
  switch (shape(doc)) {
    case "cards": return ids.map((b) => s.cards[seatIndex].entries[b]);
    case "stages": return s.cards[s.stage - 1][seatIndex];
    case "records": return s.records[seatIndex];
    default: return [];
  }
}

function boxLabel(id) {
  const box = app.game.boxes.find((b) => b.id === id);
  if (!box) return id.replace(/_/g, " ");
  const lang = app.lang || app.game.language;
  return box.labels[lang] || box.labels.en || id;
}

function diceShown(doc) {
  const s = doc.state;
  if (Array.isArray(s.dice) && s.dice.length) return s.dice;
  if (Array.isArray(s.roll)) return s.roll;
  return null;
}

function keptDice(doc) {
  return Array.isArray(doc.state.kept) ? doc.state.kept : [];
}

function throwsMade(doc) {
  const s = doc.state;
  if (typeof s.throw === "number") return s.throw;
  if (typeof s.throws === "number") return s.throws;
  return null;
}

function seatName(i) {
  return app.names[i] || `player ${i + 1}`;
}

function sameDice(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].sort(), y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}

// ---------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------
const SVG = "http://www.w3.org/2000/svg";
const PIPS = {
  1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[26, 26], [50, 50], [74, 74]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]], 5: [[26, 26], [74, 26], [50, 50], [26, 74], [74, 74]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function dieFace(value) {
  const face = svg("svg", { viewBox: "0 0 100 100", role: "img", "aria-label": value ? `die showing ${value}` : "empty" });
  for (const [cx, cy] of PIPS[value] || []) face.append(svg("circle", { cx, cy, r: 9 }));
  return face;
}

function dieButton(value, attrs) {
  const button = el("button", { type: "button", class: "die", ...attrs });
  button.append(dieFace(value));
  return button;
}

function formatValue(value, valueName) {
  if (value === null || value === undefined) return "–";
  if (valueName && valueName.startsWith("P(")) return `${(100 * value).toFixed(1)}%`;
  return value.toFixed(4);
}

function formatLoss(loss, valueName) {
  if (loss === null || loss === undefined) return "–";
  if (valueName && valueName.startsWith("P(")) return `${(100 * loss).toFixed(1)} pp`;
  return loss.toFixed(4);
}

// ---------------------------------------------------------------------------------------
// One position
// ---------------------------------------------------------------------------------------
async function setPosition(position, remember = true) {
  if (remember && app.position) app.history.push(app.position);
  app.position = position;
  app.entry = [];
  app.selected = new Set();
  app.generation += 1;
  save();
  await refresh();
}

async function refresh() {
  const generation = app.generation;
  const pos = app.position;
  try {
    app.legal = await seat.call("legal", { state: pos.state, lang: app.lang || undefined });
  } catch (err) {
    failure(err);
    return;
  }
  if (generation !== app.generation) return;
  render();
  const player = app.legal.player;
  if (app.legal.node === "decision" && !(app.mode === "ai" && app.ai.has(player))) {
    loadHint(generation);
  } else {
    clearHint();
  }
  loadChart(generation);
  if (app.mode === "ai") aiStep(generation);
}

function render() {
  const pos = app.position;
  const doc = pos.state;
  $("setup").hidden = true;
  $("table").hidden = false;
  $("loading").hidden = true;
  $("title").textContent = gameTitle(app.game);
  // the position on show (its generation), and below the hint and the card drawn for it:
  // a test or script waits for these to match rather than for time (tests/test_browser.py)
  document.body.dataset.position = String(app.generation);
  renderTurn(doc);
  renderDice(doc);
  renderControls(doc);
  renderCard(doc);
  renderCards(doc, null);
  renderShare(doc);
  $("to-win-label").hidden = !canPlayToWin(doc);
  $("undo").disabled = app.history.length === 0;
}

function gameTitle(game) {
  return game.description.split(/[,:(]/)[0].trim();
}

function renderTurn(doc) {
  const legal = app.legal;
  const s = doc.state;
  let text;
  if (legal.node === "terminal") {
    // final scores: the returns, or (where the returns are win shares) the banked scores
    const finals = shape(doc) === "scores" ? s.scores : legal.returns;
    const best = Math.max(...legal.returns);
    const winners = legal.returns.map((v, i) => (v === best ? seatName(i) : null)).filter(Boolean);
    text = `Game over: ${finals.map((v, i) => `${seatName(i)} ${v}`).join(", ")}` +
      (finals.length > 1 ? `; ${winners.length > 1 ? "shared win" : "winner"}: ${winners.join(", ")}` : "");
  } else {
    const who = seatName(s.player ?? 0);
    const parts = [];
    if (typeof s.stage === "number") parts.push(`stage ${s.stage}`);
    const t = throwsMade(doc);
    if (t !== null) {
      const fences = Array.isArray(s.fences) ? s.fences[s.player] : 0;
      parts.push(`throw ${t} of ${3 + fences}`);
      if (Array.isArray(s.fences)) parts.push(`fences ${fences}`);
    }
    if (shape(doc) === "scores") parts.push(`turn total ${s.turn_total}`, `banked ${s.scores[s.player]}`);
    const what = legal.node === "chance" ? `roll ${rollSize()} ${rollSize() === 1 ? "die" : "dice"}` : "to play";
    text = `${who}: ${what}${parts.length ? " · " + parts.join(" · ") : ""}`;
  }
  $("turn").textContent = text;
}

function rollSize() {
  const outcomes = app.legal && app.legal.outcomes;
  return outcomes && outcomes.length ? outcomes[0].outcome.length : 0;
}

function renderDice(doc) {
  const box = $("dice");
  box.replaceChildren();
  const faces = $("faces");
  faces.replaceChildren();
  faces.hidden = true;
  const legal = app.legal;
  if (legal.node === "chance") {
    keptDice(doc).forEach((v, i) => box.append(dieButton(v, { class: "die kept", disabled: true, id: `kept-${i}`, title: "kept" })));
    const n = rollSize();
    for (let i = 0; i < n; i++) {
      const v = app.entry[i];
      box.append(dieButton(v, {
        class: v ? "die" : "die empty", id: `die-${i}`, "aria-label": v ? `thrown ${v}, tap to clear` : "die to enter",
        onclick: () => { app.entry.splice(i, 1); renderDice(doc); renderControls(doc); },
      }));
    }
    faces.hidden = false;
    for (let f = 1; f <= 6; f++) {
      faces.append(el("button", { type: "button", id: `face-${f}`, text: String(f), "aria-label": `a die showing ${f}`,
        onclick: () => addFace(f) }));
    }
    return;
  }
  const dice = diceShown(doc);
  if (!dice) return;
  dice.forEach((v, i) => {
    box.append(dieButton(v, {
      class: app.selected.has(i) ? "die selected" : "die", id: `die-${i}`, "aria-pressed": app.selected.has(i) ? "true" : "false",
      onclick: () => {
        if (legal.node !== "decision") return;
        if (app.selected.has(i)) app.selected.delete(i); else app.selected.add(i);
        renderDice(doc);
        renderControls(doc);
      },
    }));
  });
}

function addFace(f) {
  const doc = app.position.state;
  if (app.legal.node !== "chance" || app.entry.length >= rollSize()) return;
  app.entry.push(f);
  renderDice(doc);
  renderControls(doc);
}

function renderControls(doc) {
  const controls = $("controls");
  controls.replaceChildren();
  const legal = app.legal;
  if (legal.node === "terminal") {
    controls.append(el("button", { type: "button", class: "primary", text: "new game", onclick: () => showSetup() }));
    return;
  }
  const actor = doc.state.player ?? 0;
  const aiTurn = app.mode === "ai" && app.ai.has(actor);
  if (legal.node === "chance") {
    const n = rollSize();
    const full = app.entry.length === n;
    controls.append(el("button", { type: "button", class: "primary", id: "enter-roll", disabled: !full || aiTurn,
      text: full ? `enter ${app.entry.join(" ")}` : `tap the ${n} ${n === 1 ? "die" : "dice"} thrown`,
      onclick: () => enterRoll([...app.entry]) }));
    if (app.mode === "ai" && !aiTurn) {
      controls.append(el("button", { type: "button", id: "roll-for-me", text: "roll for me", onclick: () => enterRoll(randomDice(n)) }));
    }
    return;
  }
  if (aiTurn) return;
  const dice = diceShown(doc) || [];
  const picked = [...app.selected].map((i) => dice[i]);
  const withDice = legal.actions.filter((a) => Array.isArray(a.action.dice));
  const match = withDice.find((a) => sameDice(a.action.dice, picked));
  if (withDice.length) {
    controls.append(el("button", { type: "button", class: picked.length ? "primary" : "", id: "keep", disabled: !match,
      text: match ? match.label : (picked.length ? `${picked.join(" ")}: not a move here` : "tap the dice to keep"),
      onclick: () => match && applyAction(match.action) }));
  }
  for (const a of legal.actions) {
    if (Array.isArray(a.action.dice) || isWrite(a.action)) continue;
    controls.append(el("button", { type: "button", class: "move", "data-type": a.action.type, text: a.label,
      onclick: () => applyAction(a.action) }));
  }
}

function isWrite(action) {
  return ["Fill", "Write", "Record"].includes(action.type);
}

function writeActionFor(box) {
  if (!app.legal || app.legal.node !== "decision") return null;
  return app.legal.actions.find((a) => isWrite(a.action) && (a.action.box === box || a.action.combo === box)) || null;
}

function randomDice(n) {
  const values = new Uint32Array(n);
  crypto.getRandomValues(values);
  return [...values].map((v) => 1 + (v % 6));  // 2^32 mod 6 = 4: a bias below 1e-9, invisible here
}

async function enterRoll(dice) {
  if (app.rolling) return;
  app.rolling = true;
  try {
    const pos = await seat.call("apply", { state: app.position.state, outcome: dice });
    hideError();
    say(`${seatName(app.position.state.state.player ?? 0)} threw ${[...dice].sort().join(" ")}`);
    await setPosition(pos);
  } catch (err) {
    failure(err);
  } finally {
    app.rolling = false;
  }
}

async function applyAction(action) {
  const before = app.position;
  const label = (app.legal.actions.find((a) => JSON.stringify(a.action) === JSON.stringify(action)) || {}).label;
  try {
    const pos = await seat.call("apply", { state: before.state, action });
    hideError();
    say(`${seatName(before.state.state.player ?? 0)}: ${label || action.type}`);
    await setPosition(pos);
  } catch (err) {
    failure(err);
  }
}

// ---------------------------------------------------------------------------------------
// The hint: rank (fast), then advice (plain words) and the chart
// ---------------------------------------------------------------------------------------
function clearHint() {
  $("hint").replaceChildren();
  $("advice").replaceChildren();
  $("to-win-note").hidden = true;
}

// "Play to win" is offered where the seat has the winner agent for the game (hello lists
// each game's agents) and there are other players to beat.
function canPlayToWin(doc) {
  return Boolean(app.game && app.game.agents && app.game.agents.includes("winner")) && doc.players >= 2;
}

const POINTS = "expected final score";  // the winner agent's detail: the same move's expected score

async function loadHint(generation) {
  clearHint();
  if (!app.hintsOn) return;
  const doc = app.position.state;
  const lang = app.lang || undefined;
  let ranked = null;
  let agent;                  // undefined: the seat's default agent (optimal)
  let toWinNote = null;
  if (app.toWin && canPlayToWin(doc)) {
    try {
      ranked = await seat.call("rank", { state: doc, lang, agent: "winner" });
      agent = "winner";
    } catch (err) {
      // no target table, or the agent cannot play here: say so, and hint for points instead
      toWinNote = `No ranking to win: ${err.message}`;
    }
    if (generation !== app.generation) return;
  }
  if (!ranked) {
    try {
      ranked = await seat.call("rank", { state: doc, lang });
    } catch (err) {
      if (generation === app.generation) $("hint").replaceChildren(el("p", { class: "note", text: `no hint: ${err.message}` }));
      return;
    }
    if (generation !== app.generation) return;
  }
  const points = agent === "winner" && ranked.actions.some((a) => a.detail && typeof a.detail[POINTS] === "number");
  const rows = ranked.actions.slice(0, 10).map((a, i) => el("tr", {
    class: i === 0 ? "hint-row best" : "hint-row", "data-action": JSON.stringify(a.action), title: "tap to play this",
    onclick: () => applyAction(a.action),
  }, el("td", { text: a.label }), el("td", { class: "num", text: formatValue(a.value, ranked.value_name) }),
     el("td", { class: a.loss <= 1e-12 ? "num loss-0" : "num", text: formatLoss(a.loss, ranked.value_name) }),
     points ? el("td", { class: "num points", text: formatValue(a.detail && a.detail[POINTS], POINTS) }) : null));
  const table = el("table", { id: "hint-table", "data-position": generation },
    el("thead", {}, el("tr", {}, el("th", { text: "move" }), el("th", { class: "num", text: ranked.value_name }),
                    el("th", { class: "num", text: "loss" }), points ? el("th", { class: "num", text: "points" }) : null)),
    el("tbody", {}, ...rows));
  const more = ranked.actions.length > 10 ? el("p", { class: "note", text: `and ${ranked.actions.length - 10} more moves` }) : null;
  $("hint").replaceChildren(el("div", { class: "scroll" }, table));
  if (more) $("hint").append(more);
  if (agent === "winner") toWinNote = toWinWords(ranked);
  if (toWinNote) {
    $("to-win-note").textContent = toWinNote;
    $("to-win-note").hidden = false;
  }
  window.kockaHintShownAt = performance.now();  // for scripts/bench_web.py
  try {
    const advice = await seat.call("advice", { state: doc, lang, top: 3, agent });
    if (generation !== app.generation) return;
    $("advice").replaceChildren(...advice.advice.map((a) => el("li", { text: a.text })));
  } catch (err) {
    if (generation === app.generation) $("advice").replaceChildren(el("li", { text: `no plain words: ${err.message}` }));
  }
}

// The winner agent's ranking in words: its chance with the best move, and whether the
// move best for points (the highest expected final score beside it) is also best to win.
function toWinWords(ranked) {
  const acts = ranked.actions;
  if (!acts.length) return null;
  const best = acts[0];
  const pct = (p) => `${(100 * p).toFixed(1)}%`;
  const win = typeof ranked.win_probability === "number" ? ranked.win_probability : best.value;
  let text = `P(win) ${pct(win)} with ${best.label} (ties shared), if the others play for points.`;
  const scored = acts.filter((a) => a.detail && typeof a.detail[POINTS] === "number");
  if (!scored.length) return text;
  const top = Math.max(...scored.map((a) => a.detail[POINTS]));
  // among moves equally good for points, the one best to win (acts are best to win first)
  const forPoints = scored.find((a) => a.detail[POINTS] >= top - 1e-9);
  if (best.value - forPoints.value <= 1e-9) {
    text += ` ${forPoints.label[0].toUpperCase()}${forPoints.label.slice(1)}, the best move for points, is also the best to win.`;
  } else {
    const cost = typeof best.detail?.[POINTS] === "number" ? `, and gives up ${(top - best.detail[POINTS]).toFixed(2)} points on average` : "";
    text += ` To win, ${best.label} rather than ${forPoints.label}, the best for points: ` +
      `${pct(best.value)} against ${pct(forPoints.value)}${cost}.`;
  }
  return text;
}

// The distribution takes up to a second early in a game, and the seat finishes a request
// the page has given up on: so the chart waits until the position has stood still a moment,
// and at most one is asked for at a time (then the latest position's).
const chart = { busy: false, wanted: null };

async function loadChart(generation) {
  const panel = $("chart-panel");
  const doc = app.position.state;
  if (shape(doc) !== "cards" || app.legal.node === "terminal") {
    panel.hidden = true;
    return;
  }
  chart.wanted = generation;
  await sleep(400);
  if (generation !== app.generation || chart.busy || chart.wanted !== generation) return;
  chart.busy = true;
  let dist;
  try {
    dist = await seat.call("distribution", { state: doc });
  } catch (err) {
    dist = null;
    if (generation === app.generation) {
      panel.hidden = false;
      $("chart").replaceChildren(el("p", { class: "note", text: `no chart: ${err.message}` }));
    }
  } finally {
    chart.busy = false;
  }
  if (chart.wanted !== generation && chart.wanted === app.generation) {
    loadChart(app.generation);  // the position moved on meanwhile: draw the latest one's
    return;
  }
  if (!dist || generation !== app.generation) return;
  panel.hidden = false;
  $("chart").replaceChildren(drawChart(dist, seatName(dist.seat)));
  renderCards(doc, dist.totals);
}

// P(final score >= x) as a step curve, drawn here from the distribution's probabilities.
function drawChart(dist, who) {
  const W = 340, H = 170, L = 34, R = 8, T = 10, B = 26;
  const n = dist.probs.length;
  let lo = 0, hi = n - 1;
  while (lo < hi && dist.probs[lo] < 1e-6) lo++;
  while (hi > lo && dist.probs[hi] < 1e-6) hi--;
  const first = dist.first + lo, last = dist.first + hi;
  const span = Math.max(1, last - first);
  const x = (score) => L + ((score - first) / span) * (W - L - R);
  const y = (p) => T + (1 - p) * (H - T - B);
  let tail = 1;
  const points = [];
  for (let k = lo; k <= hi; k++) {
    const score = dist.first + k;
    points.push([x(score), y(tail)]);
    tail -= dist.probs[k];
    points.push([x(score), y(Math.max(tail, 0))]);
  }
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", id: "chart-svg",
    "aria-label": `P(final score ≥ x) for ${who}: mean ${dist.mean.toFixed(1)}, from ${first} to ${last}` });
  const title = svg("title");
  title.textContent = `chance that ${who}'s final score is at least x, following the hint (mean ${dist.mean.toFixed(2)})`;
  chart.append(title);
  const path = points.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`).join(" ");
  chart.append(svg("path", { class: "area", d: `${path} L${x(last).toFixed(1)},${y(0)} L${x(first).toFixed(1)},${y(0)} Z` }));
  chart.append(svg("path", { class: "curve", d: path }));
  chart.append(svg("line", { class: "axis", x1: L, y1: y(0), x2: W - R, y2: y(0) }));
  chart.append(svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: y(0) }));
  chart.append(svg("line", { class: "mean", x1: x(dist.mean), y1: T, x2: x(dist.mean), y2: y(0) }));
  const label = (text, attrs) => { const t = svg("text", attrs); t.textContent = text; chart.append(t); };
  for (const p of [0, 0.5, 1]) label(`${Math.round(100 * p)}%`, { x: L - 4, y: y(p) + 4, "text-anchor": "end" });
  label(String(first), { x: x(first), y: H - 8, "text-anchor": "start" });
  label(String(last), { x: x(last), y: H - 8, "text-anchor": "end" });
  label(`mean ${dist.mean.toFixed(1)}`, { x: x(dist.mean), y: H - 8, "text-anchor": "middle" });
  return chart;
}

// ---------------------------------------------------------------------------------------
// Cards
// ---------------------------------------------------------------------------------------
async function renderCard(doc) {
  const panel = $("card-panel");
  const ids = boxIds(doc);
  if (!ids.length || app.legal.node === "terminal") {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const player = doc.state.player ?? 0;
  $("card-title").textContent = `Card of ${seatName(player)} (tap a box to write it)`;
  const entries = entriesOf(doc, player);
  const dice = app.legal.node === "decision" ? diceShown(doc) : null;
  const generation = app.generation;
  let points = {};
  if (dice && dice.length === 5) {
    try {
      const scored = await seat.call("score", { game: doc.game, rules: doc.rules, dice, first_throw: throwsMade(doc) === 1 });
      points = scored.points;
    } catch (err) {
      points = {};
    }
    if (generation !== app.generation) return;
  }
  const rows = ids.map((id, i) => {
    const write = writeActionFor(id);
    const open = entries[i] === null || entries[i] === undefined;
    return el("tr", {
      id: `box-${id}`, class: `${open ? "open" : "filled"}${write ? " writable" : ""}`,
      title: write ? `tap to ${write.label}` : null, "data-box": id,
      onclick: write ? () => applyAction(write.action) : null,
    }, el("td", { text: boxLabel(id) }), el("td", { class: "num", text: open ? "" : String(entries[i]) }),
       el("td", { class: "num now", text: open && id in points ? String(points[id]) : "" }));
  });
  $("card").replaceChildren(el("table", { id: "card-table", "data-position": generation },
    el("thead", {}, el("tr", {}, el("th", { text: "box" }), el("th", { class: "num", text: "written" }),
                    el("th", { class: "num", text: "now" }))),
    el("tbody", {}, ...rows)));
}

function renderCards(doc, totals) {
  const s = doc.state;
  const box = $("cards");
  if (shape(doc) === "scores") {
    box.replaceChildren(el("table", { id: "scores-table" },
      el("tbody", {}, ...s.scores.map((score, i) => el("tr", { class: i === s.player ? "best" : "" },
        el("td", { text: seatName(i) }), el("td", { class: "num", text: String(score) }))))));
    return;
  }
  const ids = boxIds(doc);
  if (!ids.length) {
    box.replaceChildren();
    return;
  }
  const n = doc.players;
  const head = el("tr", {}, el("th", { text: "box" }), ...Array.from({ length: n }, (_, i) => el("th", { class: "num", text: seatName(i) })));
  const rows = ids.map((id, k) => el("tr", {}, el("td", { text: boxLabel(id) }),
    ...Array.from({ length: n }, (_, i) => { const v = entriesOf(doc, i)[k]; return el("td", { class: "num", text: v === null ? "·" : String(v) }); })));
  const written = el("tr", {}, el("td", { text: "written" }),
    ...Array.from({ length: n }, (_, i) => el("td", { class: "num", text: String(entriesOf(doc, i).reduce((a, v) => a + (v || 0), 0)) })));
  const extra = [written];
  if (totals) {
    extra.push(el("tr", { class: "best" }, el("td", { text: "total" }),
      ...totals.map((t) => el("td", { class: "num", text: String(t) }))));
  }
  const stage = typeof s.stage === "number" ? el("p", { class: "note", text: `stage ${s.stage}; fences: ${s.fences.map((f, i) => `${seatName(i)} ${f}`).join(", ")}` }) : null;
  box.replaceChildren(el("div", { class: "scroll" }, el("table", { id: "cards-table" }, el("thead", {}, head), el("tbody", {}, ...rows, ...extra))));
  if (stage) box.append(stage);
}

// ---------------------------------------------------------------------------------------
// Links: a position as an address that opens straight to its hint
// ---------------------------------------------------------------------------------------
function renderShare(doc) {
  const link = $("share-link");
  const url = shareUrl(doc);
  link.href = url;
  link.textContent = location.origin + url;
}

function shareUrl(doc) {
  const p = new URLSearchParams();
  p.set("game", doc.game);
  const s = doc.state;
  const defaults = Object.fromEntries(app.game.rules.map((r) => [r.name, r.default]));
  const changed = Object.fromEntries(Object.entries(doc.rules || {}).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(defaults[k])));
  if (Object.keys(changed).length) p.set("rules", JSON.stringify(changed));
  if (app.lang) p.set("lang", app.lang);
  const dice = diceShown(doc);
  const simple = shape(doc) === "cards" && doc.players === 1 && dice && !s.declared && app.legal.node === "decision";
  if (simple) {
    p.set("dice", dice.join(""));
    p.set("roll", String(s.throw));
    const card = Object.entries(s.cards[0].entries).filter(([, v]) => v !== null).map(([k, v]) => `${k}:${v}`).join(",");
    if (card) p.set("card", card);
  } else {
    p.set("state", encodeState(doc));
    p.set("players", app.names.join(","));
  }
  return `/?${p.toString()}`;
}

function encodeState(doc) {
  const bytes = new TextEncoder().encode(JSON.stringify(doc.state));
  let text = "";
  bytes.forEach((b) => { text += String.fromCharCode(b); });
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeState(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(b64 + "===".slice((b64.length + 3) % 4));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(raw, (c) => c.charCodeAt(0))));
}

class LinkError extends Error {}

function parseDice(text, what) {
  const digits = (text || "").replace(/[\s,]/g, "");
  if (!/^[1-6]+$/.test(digits)) throw new LinkError(`the link's ${what} must be digits 1 to 6, e.g. ${what}=33355; got "${text}"`);
  return [...digits].map(Number).sort((a, b) => a - b);
}

function boxNamed(name) {
  const wanted = name.trim().toLowerCase();
  const box = app.game.boxes.find((b) => b.id === wanted || Object.values(b.labels).some((l) => l.toLowerCase() === wanted));
  return box ? box.id : null;
}

function parseCard(text) {
  const entries = {};
  for (const part of (text || "").split(",")) {
    if (!part.trim()) continue;
    const m = part.match(/^(.+?)[:=]([+-]?\d+)$/);
    if (!m) throw new LinkError(`the link's card takes box:points pairs, e.g. card=pair:12,full_house:19; got "${part}"`);
    const id = boxNamed(m[1]);
    if (!id) throw new LinkError(`the link's card names "${m[1]}", which is not a box of this game`);
    entries[id] = Number(m[2]);
  }
  return entries;
}

function intParam(p, name, fallback) {
  if (!p.has(name)) return fallback;
  const v = p.get(name);
  if (!/^\d+$/.test(v)) throw new LinkError(`the link's ${name} must be a whole number, got "${v}"`);
  return Number(v);
}

// The position a link describes, as a state document built on the game's initial one.
async function positionFromLink(p) {
  const name = p.get("game");
  const game = app.games.get(name);
  if (!game) throw new LinkError(`the link names the game "${name}", which this seat does not know`);
  let rules = {};
  if (p.has("rules")) {
    try { rules = JSON.parse(p.get("rules")); } catch (err) { throw new LinkError(`the link's rules are not JSON: ${p.get("rules")}`); }
  }
  app.game = game;
  app.rules = rules;
  if (p.has("state")) {
    let body;
    try { body = decodeState(p.get("state")); } catch (err) { throw new LinkError("the link's state cannot be read (cut short?)"); }
    const players = (p.get("players") || "").split(",").filter((x) => x.trim());
    const template = (await seat.call("new", { game: name, rules, players: Math.max(players.length, 1) })).state;
    app.names = players.length ? players : Array.from({ length: template.players }, (_, i) => `player ${i + 1}`);
    const doc = { ...template, state: body };
    const legal = await seat.call("legal", { state: doc });
    return { state: doc, node: legal.node, player: legal.player };
  }
  let template = (await seat.call("new", { game: name, rules, players: 1 })).state;
  const players = shape(template) === "scores" ? 2 : 1;  // banked scores: a race against one opponent
  if (players === 2) template = (await seat.call("new", { game: name, rules, players })).state;
  const doc = JSON.parse(JSON.stringify(template));
  const s = doc.state;
  const dice = p.has("dice") ? parseDice(p.get("dice"), "dice") : null;
  if (shape(doc) === "cards") {
    if (!dice || dice.length !== 5) throw new LinkError(`the link's dice must be the five dice showing, e.g. dice=33355; got "${p.get("dice") || ""}"`);
    const entries = parseCard(p.get("card"));
    for (const c of s.cards) for (const [k, v] of Object.entries(entries)) {
      if (!(k in c.entries)) throw new LinkError(`the link's card names ${k}, which is not on this card`);
      c.entries[k] = v;
    }
    s.throw = intParam(p, "roll", 1);
    s.dice = dice;
    s.kept = [];
  } else if (shape(doc) === "scores") {
    s.scores = [intParam(p, "score", 0), intParam(p, "opponent", 0)].slice(0, doc.players);
    s.turn_total = intParam(p, "total", 0);
    if (dice) {
      s.stage = "set_aside"; s.roll = dice; s.dice_in_play = dice.length; s.last_event = "rolled";
    } else if (p.has("left")) {
      s.stage = "bank_or_roll"; s.dice_in_play = intParam(p, "left", 6); s.last_event = "set_aside";
    }
  } else {
    throw new LinkError("for this game a link carries the whole position (state=...); open it from the page's own link");
  }
  app.names = players === 2 ? ["me", "opponent"] : ["me"];
  const legal = await seat.call("legal", { state: doc });
  return { state: doc, node: legal.node, player: legal.player };
}

// ---------------------------------------------------------------------------------------
// Playing against the AI: the page rolls, the seat chooses
// ---------------------------------------------------------------------------------------
async function aiStep(generation) {
  const legal = app.legal;
  if (legal.node === "terminal") return;
  const actor = app.position.state.state.player ?? 0;
  if (!app.ai.has(actor)) return;
  await sleep(300);  // a moment to see what the AI does
  if (generation !== app.generation) return;
  try {
    if (legal.node === "chance") {
      await enterRoll(randomDice(rollSize()));
      return;
    }
    const choice = await seat.call("choose", { state: app.position.state, agent: "optimal" });
    if (generation !== app.generation) return;
    await applyAction(choice.action);
  } catch (err) {
    failure(err);
  }
}

// ---------------------------------------------------------------------------------------
// Setup, saving, languages
// ---------------------------------------------------------------------------------------
const STORE = "kocka-web-game";

function save() {
  try {
    localStorage.setItem(STORE, JSON.stringify({
      game: app.game.name, rules: app.rules, names: app.names, mode: app.mode, ai: [...app.ai],
      position: app.position, history: app.history.slice(-200),
    }));
  } catch (err) { /* private mode: nothing kept */ }
}

function saved() {
  try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch (err) { return null; }
}

function fillLanguages() {
  const select = $("lang");
  const own = app.game ? app.game.language : "en";
  const choices = [["", `${own} (the game's own)`]];
  if (own !== "en") choices.push(["en", "en"]);
  if (app.lang && app.lang !== "en" && app.lang !== own) choices.push([app.lang, app.lang]);
  select.replaceChildren(...choices.map(([value, text]) => el("option", { value, text })));
  select.value = app.lang && app.lang !== own ? app.lang : "";
}

function showSetup() {
  $("loading").hidden = true;
  $("table").hidden = true;
  $("setup").hidden = false;
  $("title").textContent = "";
  const select = $("game-select");
  if (!select.options.length) {
    for (const g of app.games.values()) select.append(el("option", { value: g.name, text: gameTitle(g) }));
  }
  describeChoice();
  $("continue").hidden = !saved();
}

function describeChoice() {
  const g = app.games.get($("game-select").value);
  if (!g) return;
  $("game-description").textContent = `${g.description} Players: ${g.players.min} to ${g.players.max}.`;
  app.game = g;
  fillLanguages();
}

async function startFromSetup(event) {
  event.preventDefault();
  const g = app.games.get($("game-select").value);
  app.game = g;
  app.mode = $("mode-ai").checked ? "ai" : "table";
  let rules = {};
  const text = $("rules").value.trim();
  if (text) {
    try { rules = JSON.parse(text); } catch (err) { showError(`the rule options are not JSON: ${text}`); return; }
  }
  const humans = $("players").value.split(",").map((x) => x.trim()).filter(Boolean);
  app.names = humans.length ? humans : ["me"];
  app.ai = new Set();
  if (app.mode === "ai") {
    const count = Math.max(1, Math.min(5, Number($("ai-count").value) || 1));
    for (let i = 0; i < count; i++) {
      app.ai.add(app.names.length);
      app.names.push(count === 1 ? "AI" : `AI ${i + 1}`);
    }
  }
  app.rules = rules;
  app.history = [];
  app.position = null;
  try {
    const pos = await seat.call("new", { game: g.name, rules, players: app.names.length });
    hideError();
    history.replaceState(null, "", "/");
    await setPosition(pos, false);
  } catch (err) {
    failure(err);
  }
}

async function continueSaved() {
  const s = saved();
  if (!s || !app.games.get(s.game)) return;
  Object.assign(app, { game: app.games.get(s.game), rules: s.rules, names: s.names, mode: s.mode, ai: new Set(s.ai || []),
                       history: s.history || [] });
  app.position = null;
  fillLanguages();
  await setPosition(s.position, false);
}

async function undo() {
  if (!app.history.length) return;
  const previous = app.history.pop();
  app.position = null;
  await setPosition(previous, false);
  say("undone");
}

async function main() {
  const params = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("token")) sessionStorage.setItem("kocka-token", hash.get("token"));
  seat.token = sessionStorage.getItem("kocka-token");
  app.defaultLang = document.querySelector('meta[name="kocka-lang"]').content || null;
  app.lang = params.get("lang") || app.defaultLang;
  $("error-retry").addEventListener("click", () => { hideError(); refresh(); });
  $("setup-form").addEventListener("submit", startFromSetup);
  $("game-select").addEventListener("change", describeChoice);
  $("continue").addEventListener("click", continueSaved);
  $("undo").addEventListener("click", undo);
  $("new-game").addEventListener("click", () => { history.replaceState(null, "", "/"); showSetup(); });
  $("hints-on").addEventListener("change", () => { app.hintsOn = $("hints-on").checked; if (app.position) refresh(); });
  $("to-win").addEventListener("change", () => { app.toWin = $("to-win").checked; if (app.position) refresh(); });
  for (const radio of document.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => { $("ai-label").hidden = !$("mode-ai").checked; });
  }
  $("lang").addEventListener("change", () => { app.lang = $("lang").value || null; if (app.position) refresh(); });
  document.addEventListener("keydown", (e) => {
    if (!app.legal || app.legal.node !== "chance" || e.target.tagName === "INPUT") return;
    if (/^[1-6]$/.test(e.key)) addFace(Number(e.key));
    else if (e.key === "Backspace" && app.entry.length) { app.entry.pop(); renderDice(app.position.state); renderControls(app.position.state); }
    else if (e.key === "Enter" && app.entry.length === rollSize()) enterRoll([...app.entry]);
  });
  try {
    app.hello = await seat.call("hello", { client: "kocka web page" });
  } catch (err) {
    $("loading").hidden = true;
    failure(err);
    return;
  }
  for (const g of app.hello.games) if (g.available && g.agents.includes("optimal")) app.games.set(g.name, g);
  window.kockaReadyAt = performance.now();  // hello answered: the page can be used (scripts/bench_web.py)
  if (params.has("game")) {
    try {
      const pos = await positionFromLink(params);
      fillLanguages();
      app.history = [];
      app.position = null;
      await setPosition(pos, false);
    } catch (err) {
      $("loading").hidden = true;
      showSetup();
      showError(err instanceof LinkError ? `This link cannot be opened: ${err.message}.` : `This link cannot be opened: ${err.message}`);
    }
    return;
  }
  showSetup();
}

main();
