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
//
// Words: every sentence the page writes is English in this file, marked t("...") (or
// tn(singular, plural, n) for a count) and read in the page's language from the message
// catalogues (GET /i18n/<lang>.json, domain "page"; scripts/catalogues.py extracts the
// marks from here). Placeholders are named, {dice}, filled after translation. Never put a
// t(...) inside a `template literal`: the extractor does not look there. Numbers are
// written by Intl in the page's language (decimal comma in hu, pl and sk).

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------
// The page's language
// ---------------------------------------------------------------------------------------
const LANG_STORE = "kocka-web-lang";   // the language picked on the switch, remembered
const i18n = {
  lang: null,                          // the language whose messages are loaded
  messages: {},                        // English id -> translation (a list: plural forms)
  languages: { en: "English", hu: "magyar", pl: "polski", sk: "slovenčina" },  // replaced by the server's list
  plural: new Intl.PluralRules("en"),
};

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// msgid (an English sentence) in the page's language, its {placeholders} filled.
function t(msgid, params) {
  const text = i18n.messages[msgid];
  return fill(typeof text === "string" && text ? text : msgid, params);
}

// The sentence for a count n (Polish and Slovak have three forms: one, few, many); {n} is n.
function tn(singular, plural, n, params) {
  const forms = i18n.messages[singular];
  let text;
  if (Array.isArray(forms) && forms.length) {
    const kind = i18n.plural.select(n);  // the catalogue's order: one, (few,) other
    text = forms[kind === "one" ? 0 : kind === "few" && forms.length > 2 ? 1 : forms.length - 1];
  } else {
    text = n === 1 ? singular : plural;
  }
  return fill(text, { n, ...params });
}

// x with `digits` decimals, the page's language's way (12.5 / 12,5); no grouping, like the seat's.
function num(x, digits = 0) {
  return new Intl.NumberFormat(i18n.lang || "en", { minimumFractionDigits: digits, maximumFractionDigits: digits,
                                                     useGrouping: false }).format(x);
}

// A probability as a percentage, the language's way ("62.5%", "62,5%", "62,5 %").
function pct(p, digits = 1) {
  return new Intl.NumberFormat(i18n.lang || "en", { style: "percent", minimumFractionDigits: digits,
                                                     maximumFractionDigits: digits }).format(p);
}

// The words of index.html by their data-t key (see the comment there).
function pageWords() {
  return {
    documentTitle: t("kocka: hints at the table"),
    language: t("language"),
    retry: t("retry"),
    loading: t("Loading…"),
    newGame: t("New game"),
    game: t("Game"),
    dice: t("Dice"),
    modeTable: t("real dice: we roll, the page keeps the game and hints"),
    modeAi: t("play against the computer: the page rolls"),
    players: t("Players, in playing order"),
    me: t("me"),
    aiPlayers: t("Computer players"),
    ruleOptions: t("Rule options"),
    // TRANSLATORS: keep the JSON example as it is: its words are the rule options' names
    rulesJson: t("as JSON, e.g. {example}", { example: '{"boxes": ["sixes", "chance", "pair"]}' }),
    start: t("Start"),
    continue: t("Continue the saved game"),
    hint: t("Hint"),
    show: t("show"),
    toWin: t("play to win"),
    toWinTitle: t("rank the moves by the chance of finishing first against the other cards"),
    chart: t("Chance of each final score or more, following the hint"),
    everybody: t("Everybody"),
    share: t("This position as a link"),
    undo: t("undo"),
    newGameButton: t("new game"),
  };
}

// The language the page speaks: the one picked (switch, remembered, or the link's), else
// the server's --lang, else the game's own, else English.
function pageLang() {
  return app.lang || app.defaultLang || (app.game && app.game.language) || "en";
}

// Loads the messages of the page's language (once per language) and rewrites the page's
// fixed words; the caller redraws what it drew itself.
async function loadLanguage() {
  const lang = pageLang();
  if (i18n.lang !== lang) {
    const response = await fetch(`/i18n/${lang}.json`, { cache: "no-store" });
    if (!response.ok) throw { code: "no_language", message: (await response.text()).trim() };
    const doc = await response.json();
    i18n.messages = doc.messages;
    i18n.languages = doc.languages;
    i18n.lang = lang;
    i18n.plural = new Intl.PluralRules(lang);
  }
  document.documentElement.lang = lang;
  const words = pageWords();
  document.title = words.documentTitle;
  $("loading").textContent = words.loading;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = words[node.dataset.t];
  for (const node of document.querySelectorAll("[data-t-title]")) node.title = words[node.dataset.tTitle];
  for (const node of document.querySelectorAll("[data-t-placeholder]")) node.placeholder = words[node.dataset.tPlaceholder];
  fillLanguages();
}

// The switch: the four languages, each in its own name, the page's one selected.
function fillLanguages() {
  const select = $("lang");
  select.replaceChildren(...["hu", "pl", "sk", "en"].filter((code) => code in i18n.languages)
    .map((code) => el("option", { value: code, text: i18n.languages[code] })));
  select.value = pageLang();
}

async function switchLanguage(lang) {
  app.lang = lang;
  try { localStorage.setItem(LANG_STORE, lang); } catch (err) { /* private mode: not remembered */ }
  await applyLanguage();
}

// After the language changed: its messages, the games' titles in it, and the page redrawn;
// then body[data-lang] says the language the page is drawn in (a test waits for it).
async function applyLanguage() {
  const before = i18n.lang;
  await loadLanguage();
  if (before !== i18n.lang) {
    await loadGames();
    if (app.position) await refresh();
    else if (!$("setup").hidden) showSetup();
    if (app.banner) showBanner(app.banner);
  }
  document.body.dataset.lang = i18n.lang;
}

// A link asking for a language this page does not have: said in English and in the
// language the page shows instead (the link opens in that one).
function showBanner(asked) {
  app.banner = asked;
  const languages = Object.entries(i18n.languages).map(([code, name]) => `${name} (${code})`).join(", ");
  const params = { asked, languages, shown: i18n.languages[i18n.lang] || i18n.lang };
  // the same sentence twice: once as written here (English), once translated
  const english = fill("This link asks for the language \"{asked}\", which this page does not have; it is shown in {shown} instead. Languages: {languages}.", params);
  const own = t("This link asks for the language \"{asked}\", which this page does not have; it is shown in {shown} instead. Languages: {languages}.", params);
  $("banner").replaceChildren(el("p", { text: english }), own !== english ? el("p", { text: own, lang: i18n.lang }) : null);
  $("banner").hidden = false;
}

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
    const body = JSON.stringify({ id: this.nextId++, method, lang: pageLang(), ...fields });
    const headers = { "Content-Type": "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let delay = 300;
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await fetch("/", { method: "POST", headers, body, cache: "no-store" });
      } catch (err) {
        this.failing = true;
        showError(t("The seat is not answering (is kocka web still running?); trying again…"), false);
        await sleep(delay);
        delay = Math.min(delay * 2, 2000);
        if (attempt > 200) throw { code: "unreachable", message: t("the seat did not answer for minutes") };
        continue;
      }
      let doc;
      try {
        doc = await response.json();
      } catch (err) {
        throw { code: "bad_response", message: t("the seat answered HTTP {status} without JSON", { status: response.status }) };
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
  pace: 0,              // ms before each computer move (?pace=: pauseBeforeComputerMoves)
  games: new Map(),     // name -> hello's game description
  game: null,           // the game description being played
  rules: {},
  names: [],
  ai: new Set(),        // seats the AI plays (mode "ai")
  mode: "table",
  lang: null,           // the language picked (the switch, remembered, or the link's); null: see pageLang
  defaultLang: null,    // kocka web --lang
  banner: null,         // the unknown language a link asked for
  linkSeats: false,     // a link's position: the seats are "me" and "opponent"
  position: null,       // {state, node, player, returns}
  history: [],          // earlier positions, for undo
  legal: null,
  entry: [],            // dice typed at a roll
  selected: new Set(),  // indices of the dice picked to keep / set aside
  generation: 0,        // bumps on every position: late answers for an old one are dropped
  hintsOn: true,
  toWin: false,         // "play to win": the hint ranks by the winner agent (where offered)
  rolling: false,
  events: [],           // the latest rolls and moves, shown under the dice (logEvent)
  points: {},           // box -> what the dice on show would write there (the card's "now")
  confirming: null,     // the move waiting for "yes" (a scratch, a zero entry): {action, text}
  stake: null,          // the stake the picker holds for a claim (the bluff games, BLUFF-12)
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

// What happened, the latest last: every roll and move, the computer's too (its rolls are
// shown, not only what it wrote); a new game starts an empty list.
const EVENTS_SHOWN = 8;

function logEvent(text) {
  say(text);
  app.events.push(text);
  if (app.events.length > EVENTS_SHOWN) app.events.splice(0, app.events.length - EVENTS_SHOWN);
  renderEvents();
}

function renderEvents() {
  const list = $("events");
  // the latest is the message above the list; the list holds the ones before it, newest first
  list.replaceChildren(...app.events.slice(0, -1).reverse().map((text) => el("li", { text })));
  list.dataset.count = String(app.events.length);
}

function failure(err) {
  showError(reasonOf(err), false);
}

// What went wrong, for the player. A missing table is said as what to run on the computer
// serving the page: the seat's message also names the table's file there (a path and a
// hash), which means nothing to a player at the table.
function reasonOf(err) {
  if (err && err.code === "unauthorized") {
    return t("this server needs its token: open the address kocka web printed (it ends in #token=…) or a link shared from a page that has it");
  }
  const message = err && err.message ? err.message : String(err);
  const build = message.match(/kocka-solve build [^;'"\n]*/);
  if (!build) return message;
  const command = build[0].replace(/\s+--cache-dir\s+\S+/, "").replace(/[.\s]+$/, "");
  return t("the tables for this are not built yet; on the computer serving this page, run: {command}", { command });
}

// ---------------------------------------------------------------------------------------
// Reading state documents (by their fields, whatever the game)
// ---------------------------------------------------------------------------------------
function shape(doc) {
  const s = doc.state;
  if (Array.isArray(s.scores)) return "scores";
  if (Array.isArray(s.records)) return "records";
  // (a card object has entries; a Polish stage is an array, whose entries is Array's method)
  if (Array.isArray(s.cards) && s.cards.length && s.cards[0] && !Array.isArray(s.cards[0]) && s.cards[0].entries) return "cards";
  if (Array.isArray(s.cards) && Array.isArray(s.fences)) return "stages";
  // chips and a standing claim: the bluff games (hidden dice, claims, stakes)
  if (Array.isArray(s.chips) && "standing" in s) return "bluff";
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
  return box.labels[pageLang()] || box.labels[app.game.language] || box.labels.en || id;
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

// The seat whose move or roll it is: the decision's player; at a roll in the bluff games the
// claimant (his dice under the cup), or null for a roll everybody sees (the seating, the open
// dice); elsewhere the state's player.
function actorOf(doc, legal = app.legal) {
  if (legal && legal.node === "decision") return legal.player;
  const s = doc.state;
  if (shape(doc) === "bluff") return ["roll", "reroll"].includes(s.phase) && s.active >= 0 ? s.active : null;
  return s.player ?? 0;
}

// The seat the person plays against the computer (the first one it does not play); at the
// table every seat is a person's.
function mySeat() {
  if (app.mode !== "ai") return null;
  const n = app.position ? app.position.state.players : app.names.length;
  for (let i = 0; i < n; i++) if (!app.ai.has(i)) return i;
  return null;
}

// Dice a seat may see: its own, and (at the table, where the page holds what is typed) all.
function canSee(seatIndex) {
  const me = mySeat();
  return me === null || me === seatIndex;
}

// A seat by its player's name, else by its part: "me" (the one person), "opponent" (a
// link's other seat), the computer, or 1-based ("player 2").
function seatName(i) {
  if (app.names[i]) return app.names[i];
  if (app.ai.has(i)) return app.ai.size === 1 ? t("computer") : t("computer {n}", { n: [...app.ai].sort((a, b) => a - b).indexOf(i) + 1 });
  if (app.linkSeats) return i === 0 ? t("me") : t("opponent");
  const people = (app.position ? app.position.state.players : app.names.length) - app.ai.size;
  if (people <= 1) return t("me");
  return t("player {n}", { n: i + 1 });
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
  const face = svg("svg", { viewBox: "0 0 100 100", role: "img", "aria-label": value ? t("die showing {n}", { n: value }) : t("empty") });
  for (const [cx, cy] of PIPS[value] || []) face.append(svg("circle", { cx, cy, r: 9 }));
  return face;
}

function dieButton(value, attrs) {
  const button = el("button", { type: "button", class: "die", ...attrs });
  button.append(dieFace(value));
  return button;
}

// The seat's value names are identifiers of what a value measures ("P(win)", "expected
// final score"): a probability is written as a percentage, anything else as a number.
function isChance(valueName) {
  return Boolean(valueName) && valueName.startsWith("P(");
}

function formatValue(value, valueName) {
  if (value === null || value === undefined) return "–";
  if (isChance(valueName)) return pct(value, 1);
  return num(value, 4);
}

function formatLoss(loss, valueName) {
  if (loss === null || loss === undefined) return "–";
  // TRANSLATORS: percentage points, the difference of two percentages
  if (isChance(valueName)) return t("{value} pp", { value: num(100 * loss, 1) });
  return num(loss, 4);
}

// The column heading for a value name, in words.
function valueHeading(valueName) {
  if (!valueName) return t("value");
  if (valueName.startsWith("P(win")) return t("chance of winning");
  if (isChance(valueName)) return t("chance");
  if (valueName.includes("chips")) return t("expected chips");
  if (valueName.includes("this turn")) return t("expected points this turn");
  if (valueName.includes("score") || valueName.includes("points")) return t("expected score");
  return valueName;
}

// ---------------------------------------------------------------------------------------
// One position
// ---------------------------------------------------------------------------------------
async function setPosition(position, remember = true) {
  if (remember && app.position) app.history.push(app.position);
  app.position = position;
  app.entry = [];
  app.selected = new Set();
  app.confirming = null;
  app.generation += 1;
  save();
  await refresh();
}

async function refresh() {
  const generation = app.generation;
  const pos = app.position;
  try {
    app.legal = await seat.call("legal", { state: pos.state, totals: true });
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
  renderBluff(doc);
  renderDice(doc);
  renderControls(doc);
  renderCard(doc);
  renderCards(doc, null);
  renderShare(doc);
  $("to-win-label").hidden = !canPlayToWin(doc);
  $("undo").disabled = app.history.length === 0;
}

function gameTitle(game) {
  return game.title || game.description.split(/[,:(]/)[0].trim();
}

function renderTurn(doc) {
  const legal = app.legal;
  const s = doc.state;
  let text;
  if (legal.node === "terminal") {
    // final scores: the returns, or (where the returns are win shares) the banked scores, the chips
    const finals = shape(doc) === "scores" ? s.scores : shape(doc) === "bluff" ? s.chips : legal.returns;
    const best = Math.max(...legal.returns);
    const winners = legal.returns.map((v, i) => (v === best ? seatName(i) : null)).filter(Boolean);
    const scores = finals.map((v, i) => seatName(i) + " " + String(v)).join(", ");
    if (finals.length <= 1) text = t("Game over: {scores}", { scores });
    else if (winners.length > 1) text = t("Game over: {scores}; shared win: {winners}", { scores, winners: winners.join(", ") });
    else text = t("Game over: {scores}; winner: {winner}", { scores, winner: winners[0] });
  } else if (shape(doc) === "bluff") {
    const actor = actorOf(doc);
    const round = t("round {n}", { n: (s.rounds || 0) + 1 });
    if (legal.node === "decision") text = t("{player}: to play", { player: seatName(actor) }) + " · " + round;
    else if (actor === null) text = tn("a roll everybody sees: {n} die", "a roll everybody sees: {n} dice", rollSize()) + " · " + round;
    else text = seatName(actor) + ": " + tn("roll {n} die", "roll {n} dice", rollSize()) + " · " + round;
  } else {
    const who = seatName(s.player ?? 0);
    const parts = [];
    if (typeof s.stage === "number") parts.push(t("stage {n}", { n: s.stage }));
    const made = throwsMade(doc);
    if (made !== null) {
      const fences = Array.isArray(s.fences) ? s.fences[s.player] : 0;
      parts.push(t("throw {n} of {most}", { n: made, most: 3 + fences }));
      if (Array.isArray(s.fences)) parts.push(tn("{n} fence", "{n} fences", fences));
    }
    if (shape(doc) === "scores") {
      parts.push(t("turn total {points}", { points: s.turn_total }), t("banked {points}", { points: s.scores[s.player] }));
    }
    const what = legal.node === "chance" ? who + ": " + tn("roll {n} die", "roll {n} dice", rollSize())
      : t("{player}: to play", { player: who });
    text = what + (parts.length ? " · " + parts.join(" · ") : "");
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
  const note = $("dice-note");
  note.hidden = true;
  if (shape(doc) === "bluff") {
    renderBluffDice(doc);
    // the faces to enter a roll: one's own dice, and at the table every roll (the page rolls
    // the shared ones against the computer)
    const actor = actorOf(doc);
    const enters = app.mode !== "ai" || (actor !== null && canSee(actor));
    if (legal.node !== "chance" || !enters) return;
  }
  const aside = shape(doc) === "scores" ? (app.position.aside || []) : [];
  aside.forEach((v, i) => box.append(dieButton(v, { class: "die kept", disabled: true, id: `aside-${i}`, title: t("set aside") })));
  if (shape(doc) === "scores" && legal.node === "decision" && !Array.isArray(doc.state.roll)) {
    // bank or roll: the dice set aside, and the dice left to throw
    const left = doc.state.dice_in_play || 0;
    for (let i = 0; i < left; i++) box.append(dieButton(0, { class: "die empty", disabled: true, id: `left-${i}`, title: t("to throw") }));
    note.textContent = aside.length
      ? tn("set aside {dice}; {n} die left to throw", "set aside {dice}; {n} dice left to throw", left, { dice: aside.join(" ") })
      : tn("{n} die left to throw", "{n} dice left to throw", left);
    note.hidden = false;
    return;
  }
  if (legal.node === "chance") {
    keptDice(doc).forEach((v, i) => box.append(dieButton(v, { class: "die kept", disabled: true, id: `kept-${i}`, title: t("kept") })));
    const n = rollSize();
    for (let i = 0; i < n; i++) {
      const v = app.entry[i];
      box.append(dieButton(v, {
        class: v ? "die" : "die empty", id: `die-${i}`, "aria-label": v ? t("thrown {n}, tap to clear", { n: v }) : t("die to enter"),
        onclick: () => { app.entry.splice(i, 1); renderDice(doc); renderControls(doc); },
      }));
    }
    faces.hidden = false;
    for (let f = 1; f <= 6; f++) {
      faces.append(el("button", { type: "button", id: `face-${f}`, text: String(f), "aria-label": t("die showing {n}", { n: f }),
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
  delete controls.dataset.confirm;
  const legal = app.legal;
  if (legal.node === "terminal") {
    controls.append(el("button", { type: "button", class: "primary", text: t("new game"), onclick: () => showSetup() }));
    return;
  }
  const actor = actorOf(doc);
  // the computer's move, or (against it) a roll nobody's own: the page makes it
  const aiTurn = app.mode === "ai" && (actor === null || app.ai.has(actor));
  if (legal.node === "chance") {
    const n = rollSize();
    const full = app.entry.length === n;
    controls.append(el("button", { type: "button", class: "primary", id: "enter-roll", disabled: !full || aiTurn,
      text: full ? t("enter {dice}", { dice: app.entry.join(" ") }) : tn("tap the {n} die thrown", "tap the {n} dice thrown", n),
      onclick: () => enterRoll([...app.entry]) }));
    if (app.mode === "ai" && !aiTurn) {
      controls.append(el("button", { type: "button", id: "roll-for-me", text: t("roll for me"), onclick: () => enterRoll(randomDice(n)) }));
    }
    return;
  }
  if (aiTurn) return;
  if (app.confirming) {
    renderConfirm(doc);
    return;
  }
  const dice = diceShown(doc) || [];
  const picked = [...app.selected].map((i) => dice[i]);
  const withDice = legal.actions.filter((a) => Array.isArray(a.action.dice));
  const match = withDice.find((a) => sameDice(a.action.dice, picked));
  if (withDice.length) {
    controls.append(el("button", { type: "button", class: picked.length ? "primary" : "", id: "keep", disabled: !match,
      text: match ? match.label : (picked.length ? t("{dice}: not a move here", { dice: picked.join(" ") }) : t("tap the dice to keep")),
      onclick: () => match && applyAction(match.action) }));
  }
  const ranged = legal.actions.filter((a) => a.stake && a.stake.max > a.stake.min);
  if (ranged.length) controls.append(stakePicker(doc, ranged));
  for (const a of legal.actions) {
    if (Array.isArray(a.action.dice) || isWrite(a.action) || isBoxChoice(a.action)) continue;
    const move = withStake(a);
    controls.append(el("button", { type: "button", class: "move", "data-type": a.action.type, text: move.label,
      onclick: () => applyAction(move.action, move.label) }));
  }
  // the boxes to scratch: one control, then the box, then "yes" (nothing is scratched by one tap)
  const scratches = legal.actions.filter((a) => a.action.type === "Scratch");
  if (scratches.length) {
    controls.append(el("button", { type: "button", id: "scratch", text: t("scratch…"),
      onclick: () => { app.confirming = { pick: scratches }; renderControls(doc); } }));
  }
  if (legal.actions.some((a) => a.action.type === "Declare")) {
    controls.append(el("p", { class: "note", id: "declare-note", text: t("declare a box: tap it on the card") }));
  }
}

// A declaration or a scratch names a box: they are offered on the card and behind the
// "scratch…" control, not as a button per box.
function isBoxChoice(action) {
  return ["Scratch", "Declare"].includes(action.type);
}

// The move waiting for a "yes": first the box to scratch (pick), then the question.
function renderConfirm(doc) {
  const controls = $("controls");
  const c = app.confirming;
  const cancel = el("button", { type: "button", id: "confirm-no", text: t("cancel"),
    onclick: () => { app.confirming = null; renderControls(doc); } });
  if (c.pick) {
    controls.append(el("p", { class: "note wide", text: t("Scratch which box?") }),
      ...c.pick.map((a) => el("button", { type: "button", class: "scratch-choice", "data-box": a.action.box, text: a.label,
        onclick: () => askConfirm(t("{move}: sure? The box is used up.", { move: a.label }), a.action) })), cancel);
    controls.dataset.confirm = "pick";
    return;
  }
  controls.append(el("p", { class: "note wide", id: "confirm-text", text: c.text }),
    el("button", { type: "button", class: "primary", id: "confirm-yes", text: t("yes"),
      onclick: () => { app.confirming = null; applyAction(c.action); } }), cancel);
  controls.dataset.confirm = "ask";
}

function askConfirm(text, action) {
  app.confirming = { text, action };
  renderControls(app.position.state);
}

// A move from a tap (the card, the hint): writing a box that scores 0 asks first.
function playMove(action) {
  const box = action.box || action.combo;
  if (action.type === "Scratch") {
    const label = (app.legal.actions.find((a) => JSON.stringify(a.action) === JSON.stringify(action)) || {}).label || action.type;
    askConfirm(t("{move}: sure? The box is used up.", { move: label }), action);
    window.scrollTo({ top: 0 });
    return;
  }
  if (isWrite(action) && box && app.points[box] === 0) {
    askConfirm(t("this writes 0 in {box}: write it?", { box: boxLabel(box) }), action);
    window.scrollTo({ top: 0 });
    return;
  }
  applyAction(action);
}

function isWrite(action) {
  return ["Fill", "Write", "Record"].includes(action.type);
}

// The move a tap on a box of the card makes: write it, or declare it (PL-15, SK's part 1).
function writeActionFor(box) {
  if (!app.legal || app.legal.node !== "decision") return null;
  return app.legal.actions.find((a) => (isWrite(a.action) || a.action.type === "Declare") && (a.action.box === box || a.action.combo === box)) || null;
}

// The dice set aside so far this turn where the state does not keep them (Kocka's banked
// scores: the state has the turn total and the dice left, not the dice taken): the page's
// own record, from the moves it applied; a new turn (another player, or nothing on the
// turn) starts empty.
function asideAfter(before, after, action) {
  if (shape(after.state) !== "scores") return [];
  const was = before.state.state, now = after.state.state;
  if (now.player !== was.player || !now.turn_total) return [];
  const aside = before.aside || [];
  return Array.isArray(action.dice) ? [...aside, ...action.dice] : aside;
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
    const before = app.position;
    const pos = await seat.call("apply", { state: before.state, outcome: dice });
    hideError();
    logEvent(rollWords(before.state, dice));
    if (shape(pos.state) === "bluff") bluffAfter(before, pos, null, null);
    // six dice set aside and six thrown again (KOCKA: all six scored): a fresh row of aside dice
    const aside = app.position.aside || [];
    pos.aside = aside.length + dice.length > 6 ? [] : aside;
    await setPosition(pos);
  } catch (err) {
    failure(err);
  } finally {
    app.rolling = false;
  }
}

async function applyAction(action, label = null) {
  const before = app.position;
  label = label || (app.legal.actions.find((a) => JSON.stringify(a.action) === JSON.stringify(action)) || {}).label;
  const actor = actorOf(before.state);
  try {
    const pos = await seat.call("apply", { state: before.state, action });
    hideError();
    logEvent(seatName(actor) + ": " + (label || action.type));
    pos.aside = asideAfter(before, pos, action);
    if (shape(pos.state) === "bluff") bluffAfter(before, pos, action, label);
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
  let ranked = null;
  let agent;                  // undefined: the seat's default agent (optimal)
  let toWinNote = null;
  if (app.toWin && canPlayToWin(doc)) {
    try {
      ranked = await seat.call("rank", { state: doc, agent: "winner" });
      agent = "winner";
    } catch (err) {
      // no target table, or the agent cannot play here: say so, and hint for points instead
      toWinNote = t("No ranking to win: {reason}", { reason: reasonOf(err) });
    }
    if (generation !== app.generation) return;
  }
  if (!ranked) {
    try {
      const asked = await withAgent("rank", { state: doc });
      ranked = asked.answer;
      agent = asked.agent;
      toWinNote = asked.note || toWinNote;
    } catch (err) {
      if (generation === app.generation) $("hint").replaceChildren(el("p", { class: "note", text: t("no hint: {reason}", { reason: reasonOf(err) }) }));
      return;
    }
    if (generation !== app.generation) return;
  }
  const points = agent === "winner" && ranked.actions.some((a) => a.detail && typeof a.detail[POINTS] === "number");
  const rows = ranked.actions.slice(0, 10).map((a, i) => el("tr", {
    class: i === 0 ? "hint-row best" : "hint-row", "data-action": JSON.stringify(a.action), title: t("tap to play this"),
    onclick: () => playMove(a.action),
  }, el("td", { text: a.label }), el("td", { class: "num", text: formatValue(a.value, ranked.value_name) }),
     el("td", { class: a.loss <= 1e-12 ? "num loss-0" : "num", text: formatLoss(a.loss, ranked.value_name) }),
     points ? el("td", { class: "num points", text: formatValue(a.detail && a.detail[POINTS], POINTS) }) : null));
  const table = el("table", { id: "hint-table", "data-position": generation },
    el("thead", {}, el("tr", {}, el("th", { text: t("move") }), el("th", { class: "num", text: valueHeading(ranked.value_name) }),
                    el("th", { class: "num", text: t("loss") }), points ? el("th", { class: "num", text: t("expected score") }) : null)),
    el("tbody", {}, ...rows));
  const more = ranked.actions.length > 10 ? el("p", { class: "note", text: tn("and {n} more move", "and {n} more moves", ranked.actions.length - 10) }) : null;
  $("hint").replaceChildren(el("div", { class: "scroll" }, table));
  if (more) $("hint").append(more);
  if (agent === "winner") toWinNote = toWinWords(ranked);
  if (toWinNote) {
    $("to-win-note").textContent = toWinNote;
    $("to-win-note").hidden = false;
  }
  window.kockaHintShownAt = performance.now();  // for scripts/bench_web.py
  try {
    const advice = await seat.call("advice", { state: doc, top: 3, agent });
    if (generation !== app.generation) return;
    $("advice").replaceChildren(...advice.advice.map((a) => el("li", { text: a.text })));
    if (Array.isArray(advice.frequencies) && advice.frequencies.length) $("hint").prepend(frequencyList(advice, ranked));
  } catch (err) {
    if (generation === app.generation) $("advice").replaceChildren(el("li", { text: t("no plain words: {reason}", { reason: reasonOf(err) }) }));
  }
}

// The winner agent's ranking in words: its chance with the best move, and whether the
// move best for points (the highest expected final score beside it) is also best to win.
function toWinWords(ranked) {
  const acts = ranked.actions;
  if (!acts.length) return null;
  const best = acts[0];
  const win = typeof ranked.win_probability === "number" ? ranked.win_probability : best.value;
  let text = t("Chance of winning {chance} with {move} (ties shared), if the others play for points.", { chance: pct(win), move: best.label });
  const scored = acts.filter((a) => a.detail && typeof a.detail[POINTS] === "number");
  if (!scored.length) return text;
  const top = Math.max(...scored.map((a) => a.detail[POINTS]));
  // among moves equally good for points, the one best to win (acts are best to win first)
  const forPoints = scored.find((a) => a.detail[POINTS] >= top - 1e-9);
  if (best.value - forPoints.value <= 1e-9) {
    text += " " + t("The best move for points, {move}, is also the best to win.", { move: forPoints.label });
  } else if (typeof best.detail?.[POINTS] === "number") {
    text += " " + t("To win, {move} rather than {other}, the best for points: {chance} against {other_chance}, and it gives up {points} points on average.",
      { move: best.label, other: forPoints.label, chance: pct(best.value), other_chance: pct(forPoints.value), points: num(top - best.detail[POINTS], 2) });
  } else {
    text += " " + t("To win, {move} rather than {other}, the best for points: {chance} against {other_chance}.",
      { move: best.label, other: forPoints.label, chance: pct(best.value), other_chance: pct(forPoints.value) });
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
      $("chart").replaceChildren(el("p", { class: "note", text: t("no chart: {reason}", { reason: reasonOf(err) }) }));
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
    "aria-label": t("the chance of each final score or more for {player}: on average {mean}, from {first} to {last}",
      { player: who, mean: num(dist.mean, 1), first, last }) });
  const title = svg("title");
  title.textContent = t("the chance that the final score of {player} is at least x, following the hint (on average {mean})",
    { player: who, mean: num(dist.mean, 2) });
  chart.append(title);
  const path = points.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`).join(" ");
  chart.append(svg("path", { class: "area", d: `${path} L${x(last).toFixed(1)},${y(0)} L${x(first).toFixed(1)},${y(0)} Z` }));
  chart.append(svg("path", { class: "curve", d: path }));
  chart.append(svg("line", { class: "axis", x1: L, y1: y(0), x2: W - R, y2: y(0) }));
  chart.append(svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: y(0) }));
  chart.append(svg("line", { class: "mean", x1: x(dist.mean), y1: T, x2: x(dist.mean), y2: y(0) }));
  const label = (text, attrs) => { const t = svg("text", attrs); t.textContent = text; chart.append(t); };
  for (const p of [0, 0.5, 1]) label(pct(p, 0), { x: L - 4, y: y(p) + 4, "text-anchor": "end" });
  label(String(first), { x: x(first), y: H - 8, "text-anchor": "start" });
  label(String(last), { x: x(last), y: H - 8, "text-anchor": "end" });
  label(t("average {mean}", { mean: num(dist.mean, 1) }), { x: x(dist.mean), y: H - 8, "text-anchor": "middle" });
  return chart;
}

// ---------------------------------------------------------------------------------------
// The bluff games: hidden dice, the standing claim, the chips, stakes, the mixed strategy
// ---------------------------------------------------------------------------------------
// The agents that play a game from its exact solution (the page's AI and its hint), the
// first one a game lists: hello says which game each plays, so no game is named here.
const EXACT_AGENTS = ["optimal", "equilibrium"];
// where the exact one has no table here (or no solution for this many players): the bot
// that plays without one, and says its reasons
const STAND_IN_AGENTS = { equilibrium: "bayes" };

function exactAgent(game) {
  return EXACT_AGENTS.find((a) => game.agents.includes(a)) || null;
}

const standIns = new Map();  // game, rules and players -> why the exact agent cannot play there

// A decision request (choose, rank) to the game's exact agent, else to its stand-in once
// the exact one said why it cannot play here: {answer, agent, note}.
async function withAgent(method, fields) {
  const doc = fields.state;
  const exact = exactAgent(app.game);
  const standIn = STAND_IN_AGENTS[exact];
  const key = JSON.stringify([doc.game, doc.rules, doc.players]);
  if (!standIn || !app.game.agents.includes(standIn)) {
    return { answer: await seat.call(method, { ...fields, agent: exact }), agent: exact, note: null };
  }
  if (!standIns.has(key)) {
    try {
      return { answer: await seat.call(method, { ...fields, agent: exact }), agent: exact, note: null };
    } catch (err) {
      if (!err || !["table_missing", "agent_unavailable", "not_supported"].includes(err.code)) throw err;
      standIns.set(key, reasonOf(err));
    }
  }
  const note = t("No exact strategy here ({reason}): the hint and the computer are the Bayesian bot, which reads the claims made so far.",
    { reason: standIns.get(key) });
  return { answer: await seat.call(method, { ...fields, agent: standIn }), agent: standIn, note };
}

// What a roll was, in words: the seating rolls and the open dice for all to see, one's own
// dice to oneself, the computer's as thrown under the cup.
function rollWords(doc, dice) {
  const s = doc.state;
  const shown = [...dice].sort().join(" ");
  if (shape(doc) !== "bluff") return t("{player} threw {dice}", { player: seatName(s.player ?? 0), dice: shown });
  if (s.phase === "seating") {
    const group = (s.seating && s.seating[0]) || [];
    const who = group[(s.seat_rolls || []).length];
    return t("for the seating, {player} threw {dice}", { player: seatName(who ?? 0), dice: shown });
  }
  if (s.phase === "public") return t("the open dice: {dice}", { dice: shown });
  if (canSee(s.active)) return t("{player} threw {dice}", { player: seatName(s.active), dice: shown });
  return t("{player} threw under the cup", { player: seatName(s.active) });
}

// After a move or a roll: the standing claim's words (the page's own record: the state has
// the claim, the words come from the move that made it), and a reveal said in the history.
function bluffAfter(before, pos, action, label) {
  const was = before.state.state, now = pos.state.state;
  if (now.standing) pos.claim = action && action.type === "Claim" ? label : before.claim;
  else pos.claim = null;
  if ((now.rounds || 0) > (was.rounds || 0) && Array.isArray(now.revealed)) {
    const [who, dice] = now.revealed;
    logEvent(t("{player} shows {dice}", { player: seatName(who), dice: (dice || []).join(" ") }));
    logEvent(t("chips: {chips}", { chips: chipsText(pos.state) }));
  }
}

function chipsText(doc) {
  const s = doc.state;
  const text = s.chips.map((c, i) => seatName(i) + " " + String(c)).join(", ");
  return s.bank ? text + ", " + t("bank {n}", { n: s.bank }) : text;
}

function renderBluff(doc) {
  const panel = $("bluff");
  if (shape(doc) !== "bluff") {
    panel.hidden = true;
    return;
  }
  const s = doc.state;
  const anyClaim = t("a claim");  // a claim the page did not see made (a link's position)
  const claim = s.standing
    ? t("standing — {player}: {claim}", { player: seatName(s.active), claim: app.position.claim || anyClaim })
    : t("no claim stands yet this round");
  const lines = [el("p", { id: "standing", text: claim }), el("p", { id: "chips", text: t("chips: {chips}", { chips: chipsText(doc) }) })];
  if (Array.isArray(s.bets) && s.bets.length) {
    lines.push(el("p", { id: "bets", text: t("bets: {bets}", { bets: s.bets.map(([who, n]) => seatName(who) + " " + String(n)).join(", ") }) }));
  }
  panel.replaceChildren(...lines);
  panel.hidden = false;
}

// The dice on the table: the open ones, the claimant's own (to him), or face down (the
// computer's; the one die shown on a re-throw face up).
function renderBluffDice(doc) {
  const box = $("dice");
  const s = doc.state;
  const label = (text) => box.append(el("p", { class: "dice-label", text }));
  if (Array.isArray(s.public) && s.public.length) {
    label(t("open dice"));
    s.public.forEach((v, i) => box.append(dieButton(v, { class: "die", disabled: true, id: `open-${i}` })));
  }
  if (!Array.isArray(s.dice) || !s.dice.length || s.active < 0) return;
  if (canSee(s.active)) {
    label(mySeat() === s.active ? t("your dice") : t("dice of {player}", { player: seatName(s.active) }));
    s.dice.forEach((v, i) => box.append(dieButton(v, { class: "die mine", disabled: true, id: `mine-${i}` })));
    return;
  }
  label(t("dice of {player}, under the cup", { player: seatName(s.active) }));
  let shownLeft = s.shown > 0 ? 1 : 0;  // the die shown on a re-throw (liar's poker) is face up
  s.dice.forEach((v, i) => {
    const up = shownLeft > 0 && v === s.shown;
    if (up) shownLeft = 0;
    box.append(up ? dieButton(v, { class: "die", disabled: true, id: `hidden-${i}`, title: t("shown") })
      : dieButton(0, { class: "die hidden", disabled: true, id: `hidden-${i}`, "aria-label": t("a hidden die") }));
  });
}

// Claims carry a stake from a range (legal lists each claim once): one picker for them all.
function stakeRange(actions) {
  return [Math.min(...actions.map((a) => a.stake.min)), Math.max(...actions.map((a) => a.stake.max))];
}

function stakePicker(doc, ranged) {
  const [lo, hi] = stakeRange(ranged);
  app.stake = Math.min(hi, Math.max(lo, app.stake ?? lo));
  const set = (n) => { app.stake = n; renderControls(doc); };
  return el("p", { class: "wide stake", id: "stake-picker" },
    el("span", { text: t("stake") + " " }),
    el("button", { type: "button", id: "stake-down", text: "−", "aria-label": t("less"), disabled: app.stake <= lo, onclick: () => set(app.stake - 1) }),
    el("strong", { id: "stake", text: String(app.stake) }),
    el("button", { type: "button", id: "stake-up", text: "+", "aria-label": t("more"), disabled: app.stake >= hi, onclick: () => set(app.stake + 1) }),
    el("button", { type: "button", id: "stake-max", text: t("all {n}", { n: hi }), disabled: app.stake >= hi, onclick: () => set(hi) }));
}

// A legal entry as the move a tap makes: a claim with the picked stake (its label's range
// replaced by that stake), anything else as it is.
function withStake(entry) {
  if (!entry.stake || entry.stake.max <= entry.stake.min) return { action: entry.action, label: entry.label };
  const stake = Math.min(entry.stake.max, Math.max(entry.stake.min, app.stake ?? entry.stake.min));
  return { action: { ...entry.action, stake }, label: entry.label.replace(/\d+\.\.\d+/, String(stake)) };
}

// The equilibrium's mixed strategy: every move it plays here with its frequency, and the
// seat's one-line recipe for following it (a die roll); a tap plays that move.
function frequencyList(advice, ranked) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const labelOf = (action) => {
    const r = ranked.actions.find((a) => same(a.action, action));
    if (r) return r.label;
    const { stake, ...rest } = action;
    const entry = app.legal.actions.find((a) => { const { stake: s2, ...other } = a.action; return same(rest, other); });
    if (!entry) return action.type;
    return entry.stake && entry.stake.max > entry.stake.min ? entry.label.replace(/\d+\.\.\d+/, String(stake)) : entry.label;
  };
  const items = advice.frequencies.map((f) => el("li", { class: "frequency", "data-action": JSON.stringify(f.action), title: t("tap to play this"),
    onclick: () => playMove(f.action) }, `${labelOf(f.action)}: ${pct(f.probability, 0)}`));  // a row: the move, its frequency
  return el("div", { id: "frequencies", "data-position": app.generation },
    el("p", { class: "note", text: t("The equilibrium mixes its moves: play each this often.") }),
    el("ul", { class: "frequencies" }, ...items),
    advice.suggestion ? el("p", { id: "suggestion", text: advice.suggestion }) : null);
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
  $("card-title").textContent = t("Card of {player} (tap a box to write it)", { player: seatName(player) });
  const entries = entriesOf(doc, player);
  const dice = app.legal.node === "decision" ? diceShown(doc) : null;
  const generation = app.generation;
  let points = {};
  let later = {};  // at the first throw: what the same dice would score after another throw
  app.points = {};
  if (dice && dice.length === 5) {
    const first = throwsMade(doc) === 1;
    try {
      const asks = [seat.call("score", { game: doc.game, rules: doc.rules, dice, first_throw: first })];
      if (first) asks.push(seat.call("score", { game: doc.game, rules: doc.rules, dice, first_throw: false }));
      const [scored, plain] = await Promise.all(asks);
      points = scored.points;
      later = plain ? plain.points : points;
    } catch (err) {
      points = {};
    }
    if (generation !== app.generation) return;
    app.points = points;
  }
  const declared = doc.state.declared;
  // a box the first throw's dice score more in (from hand: PL-13, SK-7) is marked
  const fromHand = (id) => id in points && id in later && points[id] !== later[id];
  const rows = ids.map((id, i) => {
    const write = writeActionFor(id);
    const open = entries[i] === null || entries[i] === undefined;
    return el("tr", {
      id: `box-${id}`, class: `${open ? "open" : "filled"}${write ? " writable" : ""}${declared === id ? " declared" : ""}`,
      title: write ? t("tap: {move}", { move: write.label }) : null, "data-box": id,
      onclick: write ? () => playMove(write.action) : null,
    }, el("td", { text: boxLabel(id) }), el("td", { class: "num", text: open ? "" : String(entries[i]) }),
       el("td", { class: fromHand(id) ? "num now from-hand" : "num now",
                  text: open && id in points ? String(points[id]) + (fromHand(id) ? " ★" : "") : "" }));
  });
  const sums = totalRows((app.legal.totals || [])[player], ids.some(isFaceBox));
  const notes = [];
  if (typeof declared === "string") notes.push(t("declared: {box}; this turn only this box", { box: boxLabel(declared) }));
  if (ids.some((id, i) => fromHand(id) && (entries[i] === null || entries[i] === undefined))) {
    notes.push(t("★ from hand: written now, after the first throw, these dice score more"));
  }
  $("card").replaceChildren(el("table", { id: "card-table", "data-position": generation },
    el("thead", {}, el("tr", {}, el("th", { text: t("box") }), el("th", { class: "num", text: t("written") }),
                    el("th", { class: "num", text: t("now") }))),
    el("tbody", {}, ...rows), sums.length ? el("tfoot", {}, ...sums.map(([what, value, id]) =>
      el("tr", { class: id === "total" ? "best" : "", id: `sum-${id}` }, el("td", { text: what }), el("td", { class: "num", text: value }), el("td", {})))) : null),
    ...notes.map((text) => el("p", { class: "note card-note", text })));
}

// Face boxes (1s..6s): the upper section (the house, ház, in kockapóker).
const FACE_BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes"];
function isFaceBox(id) {
  return FACE_BOXES.includes(id);
}

function signed(n) {
  return n > 0 ? "+" + String(n) : String(n);
}

// The card's sums from the seat (legal's totals): the upper section's net, what its rule
// adds as it stands (the house's 63, the bonus), and the total: [words, value, id] rows.
function totalRows(sum, faces) {
  if (!sum) return [];
  const rows = [];
  if (faces) {
    rows.push([t("upper section (1-6), net"), signed(sum.upper), "upper"]);
    rows.push([t("upper bonus as it stands"), signed(sum.bonus), "bonus"]);
    rows.push([t("upper section with its bonus"), String(sum.upper + sum.bonus), "house"]);
  }
  rows.push([t("total"), String(sum.total), "total"]);
  return rows;
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
  if (shape(doc) === "bluff") {
    box.replaceChildren(el("table", { id: "chips-table" },
      el("thead", {}, el("tr", {}, el("th", { text: t("player") }), el("th", { class: "num", text: t("chips") }))),
      el("tbody", {}, ...s.chips.map((chips, i) => el("tr", { class: i === s.active ? "best" : "" },
        el("td", { text: seatName(i) }), el("td", { class: "num", text: String(chips) }))))));
    return;
  }
  const ids = boxIds(doc);
  if (!ids.length) {
    box.replaceChildren();
    return;
  }
  const n = doc.players;
  const head = el("tr", {}, el("th", { text: t("box") }), ...Array.from({ length: n }, (_, i) => el("th", { class: "num", text: seatName(i) })));
  const rows = ids.map((id, k) => el("tr", {}, el("td", { text: boxLabel(id) }),
    ...Array.from({ length: n }, (_, i) => { const v = entriesOf(doc, i)[k]; return el("td", { class: "num", text: v === null ? "·" : String(v) }); })));
  const written = el("tr", {}, el("td", { text: t("written") }),
    ...Array.from({ length: n }, (_, i) => el("td", { class: "num", text: String(entriesOf(doc, i).reduce((a, v) => a + (v || 0), 0)) })));
  const extra = [written];
  const sums = app.legal && app.legal.totals;
  if (sums && sums.length === n) {
    if (ids.some(isFaceBox)) {
      extra.push(el("tr", {}, el("td", { text: t("upper section with its bonus") }),
        ...sums.map((x) => el("td", { class: "num", text: String(x.upper + x.bonus) }))));
    }
    extra.push(el("tr", { class: "best" }, el("td", { text: t("total") }),
      ...sums.map((x) => el("td", { class: "num", text: String(x.total) }))));
  } else if (totals) {
    extra.push(el("tr", { class: "best" }, el("td", { text: t("total") }),
      ...totals.map((x) => el("td", { class: "num", text: String(x) }))));
  }
  const stage = typeof s.stage === "number" ? el("p", { class: "note", text: t("stage {n}; fences: {fences}",
    { n: s.stage, fences: s.fences.map((f, i) => seatName(i) + " " + String(f)).join(", ") }) }) : null;
  box.replaceChildren(el("div", { class: "scroll" }, el("table", { id: "cards-table" }, el("thead", {}, head), el("tbody", {}, ...rows, ...extra))));
  if (stage) box.append(stage);
}

// ---------------------------------------------------------------------------------------
// Links: a position as an address that opens straight to its hint
// ---------------------------------------------------------------------------------------
function renderShare(doc) {
  const link = $("share-link");
  // the address the browser used (location.origin: its host, e.g. the one kocka web --lan printed);
  // behind a token (kocka web --token, --lan) the link carries it, as the printed address does, in
  // the fragment, which browsers never send (no log or Referer holds it): a player at the table
  // opens it on his own phone, and without the token the seat refuses (401, said on the page)
  const show = (url) => { link.href = withToken(url); link.textContent = location.origin + withToken(url); };
  const url = shareUrl(doc);
  show(url);
  if (!url.includes("state=")) return;
  // a whole position: the server packs it into a short link (POST /link); the long one stays if it cannot
  shortLink(doc).then((short) => { if (app.position && app.position.state === doc) show(short); }).catch(() => {});
}

function withToken(url) {
  return seat.token ? `${url}#token=${encodeURIComponent(seat.token)}` : url;
}

// kocka web's own requests (POST /link, /link/open): the seat's checks, its token, its error shape
async function pageRequest(path, fields) {
  const headers = { "Content-Type": "application/json" };
  if (seat.token) headers.Authorization = `Bearer ${seat.token}`;
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify({ lang: pageLang(), ...fields }), cache: "no-store" });
  const answer = await response.json();
  if (answer.error) throw answer.error;
  return answer.result;
}

async function shortLink(doc) {
  const p = new URLSearchParams((await pageRequest("/link", { state: doc, names: app.names })).params);
  if (app.lang) p.set("lang", app.lang);
  return `/?${p.toString()}`;
}

function shareUrl(doc) {
  const p = new URLSearchParams();
  p.set("game", doc.game);
  const s = doc.state;
  const defaults = Object.fromEntries(app.game.rules.map((r) => [r.name, r.default]));
  const changed = Object.fromEntries(Object.entries(doc.rules || {}).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(defaults[k])));
  if (Object.keys(changed).length) p.set("rules", JSON.stringify(changed));
  if (app.lang) p.set("lang", app.lang);  // a language picked travels with the link
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
  if (!/^[1-6]+$/.test(digits)) throw new LinkError(t("the link's {field} must be digits 1 to 6, e.g. {field}=33355; it is \"{text}\"", { field: what, text }));
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
    if (!m) throw new LinkError(t("the link's card takes box:points pairs, e.g. card=pair:12,full_house:19; it has \"{text}\"", { text: part }));
    const id = boxNamed(m[1]);
    if (!id) throw new LinkError(t("the link's card names \"{box}\", which is not a box of this game", { box: m[1] }));
    entries[id] = Number(m[2]);
  }
  return entries;
}

function intParam(p, name, fallback) {
  if (!p.has(name)) return fallback;
  const v = p.get(name);
  if (!/^\d+$/.test(v)) throw new LinkError(t("the link's {field} must be a whole number, it is \"{text}\"", { field: name, text: v }));
  return Number(v);
}

// The position a link describes, as a state document built on the game's initial one.
async function positionFromLink(p) {
  const name = p.get("game");
  const game = app.games.get(name);
  if (!game) throw new LinkError(t("the link names the game \"{game}\", which this seat does not know", { game: name }));
  let rules = {};
  if (p.has("rules")) {
    try { rules = JSON.parse(p.get("rules")); } catch (err) { throw new LinkError(t("the link's rules are not JSON: {text}", { text: p.get("rules") })); }
  }
  app.game = game;
  app.rules = rules;
  if (p.has("z")) {  // a short link: the server unpacks and checks it
    let opened;
    try { opened = await pageRequest("/link/open", { game: name, n: p.get("n") || "", z: p.get("z") }); } catch (err) { throw new LinkError(reasonOf(err)); }
    app.rules = opened.state.rules;
    app.names = opened.names;
    return { state: opened.state, node: opened.node, player: opened.player };
  }
  if (p.has("state")) {
    let body;
    try { body = decodeState(p.get("state")); } catch (err) { throw new LinkError(t("the link's state cannot be read (cut short?)")); }
    const players = (p.get("players") || "").split(",").filter((x) => x.trim());
    const template = (await seat.call("new", { game: name, rules, players: Math.max(players.length, 1) })).state;
    app.names = players;  // empty: the seats are named by seatName
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
    if (!dice || dice.length !== 5) throw new LinkError(t("the link's dice must be the five dice showing, e.g. dice=33355; it has \"{text}\"", { text: p.get("dice") || "" }));
    const entries = parseCard(p.get("card"));
    for (const c of s.cards) for (const [k, v] of Object.entries(entries)) {
      if (!(k in c.entries)) throw new LinkError(t("the link's card names {box}, which is not on this card", { box: boxLabel(k) }));
      c.entries[k] = v;
    }
    s.throw = intParam(p, "roll", 1);
    if (s.throw < 1 || s.throw > 3) throw new LinkError(t("the link's roll is the throw the dice come from, 1, 2 or 3; it is {n}", { n: s.throw }));
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
    throw new LinkError(t("for this game a link carries the whole position (state=...); open it from the page's own link"));
  }
  app.names = [];
  app.linkSeats = true;  // named "me" and "opponent" in the page's language
  const legal = await seat.call("legal", { state: doc });
  return { state: doc, node: legal.node, player: legal.player };
}

// ---------------------------------------------------------------------------------------
// Playing against the AI: the page rolls, the seat chooses
// ---------------------------------------------------------------------------------------
async function aiStep(generation) {
  const legal = app.legal;
  if (legal.node === "terminal") return;
  const actor = actorOf(app.position.state);
  if (actor !== null && !app.ai.has(actor)) return;  // null: a roll everybody sees, the page throws it
  await sleep(app.pace);  // a moment to see what the AI does
  if (generation !== app.generation) return;
  try {
    if (legal.node === "chance") {
      await enterRoll(randomDice(rollSize()));
      return;
    }
    const { answer: choice } = await withAgent("choose", { state: app.position.state });
    if (generation !== app.generation) return;
    await applyAction(choice.action, choice.label);
  } catch (err) {
    failure(err);
  }
}

// ---------------------------------------------------------------------------------------
// Setup, saving, starting
// ---------------------------------------------------------------------------------------
const STORE = "kocka-web-game";

function save() {
  try {
    localStorage.setItem(STORE, JSON.stringify({
      game: app.game.name, rules: app.rules, names: app.names, mode: app.mode, ai: [...app.ai], linkSeats: app.linkSeats,
      position: app.position, history: app.history.slice(-200),
    }));
  } catch (err) { /* private mode: nothing kept */ }
}

function saved() {
  try { return JSON.parse(localStorage.getItem(STORE) || "null"); } catch (err) { return null; }
}

function remembered() {
  try { return localStorage.getItem(LANG_STORE); } catch (err) { return null; }
}

// hello, in the page's language (the games' titles): the games the page can play.
async function loadGames() {
  app.hello = await seat.call("hello", { client: "kocka web page" });
  app.games = new Map();
  for (const g of app.hello.games) if (g.available && exactAgent(g)) app.games.set(g.name, g);
  if (app.game) app.game = app.games.get(app.game.name) || app.game;
}

function showSetup() {
  $("loading").hidden = true;
  $("table").hidden = true;
  $("setup").hidden = false;
  $("title").textContent = "";
  const select = $("game-select");
  // a neutral start: the game chosen here before, else the last one played, else none yet
  const chosen = select.value || (app.game && app.game.name) || "";
  select.replaceChildren(el("option", { value: "", text: t("choose a game…") }),
    ...[...app.games.values()].map((g) => el("option", { value: g.name, text: gameTitle(g) })));
  select.value = chosen && app.games.has(chosen) ? chosen : "";
  describeChoice();
  $("continue").hidden = !saved();
}

function describeChoice() {
  const g = app.games.get($("game-select").value);
  $("start").disabled = !g;
  if (!g) {
    $("game-description").textContent = t("Choose the game to play.");
    return;
  }
  // the players only: hello's description is the engine's docstring, English and with rule ids
  $("game-description").textContent = t("Players: {least} to {most}.", { least: g.players.min, most: g.players.max });
  const before = pageLang();
  app.game = g;
  if (pageLang() !== before) applyLanguage().catch(failure);  // the game's own language, nothing picked
}

async function startFromSetup(event) {
  event.preventDefault();
  const g = app.games.get($("game-select").value);
  if (!g) return;
  app.game = g;
  app.mode = $("mode-ai").checked ? "ai" : "table";
  let rules = {};
  const text = $("rules").value.trim();
  if (text) {
    try { rules = JSON.parse(text); } catch (err) { showError(t("the rule options are not JSON: {text}", { text })); return; }
  }
  const humans = $("players").value.split(",").map((x) => x.trim()).filter(Boolean);
  app.names = humans.length ? humans : [""];  // "": named by seatName ("me")
  app.linkSeats = false;
  app.ai = new Set();
  if (app.mode === "ai") {
    const count = Math.max(1, Math.min(5, Number($("ai-count").value) || 1));
    for (let i = 0; i < count; i++) {
      app.ai.add(app.names.length);
      app.names.push("");  // named by seatName ("computer")
    }
  }
  app.rules = rules;
  app.history = [];
  app.position = null;
  app.events = [];
  renderEvents();
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
                       linkSeats: Boolean(s.linkSeats), history: s.history || [] });
  app.position = null;
  await applyLanguage();
  await setPosition(s.position, false);
}

async function undo() {
  if (!app.history.length) return;
  const previous = app.history.pop();
  app.position = null;
  await setPosition(previous, false);
  say(t("undone"));
}

// ?pace=MS: how long the page waits before each move of the computer, so that a player sees
// it (default 300 ms; 0: at once, for a quick game or a test; at most 5 s).
const DEFAULT_PACE = 300;
function pauseBeforeComputerMoves(asked) {
  const ms = asked === null || asked.trim() === "" ? NaN : Number(asked);
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, 5000) : DEFAULT_PACE;
}

async function main() {
  // installable, and the page's own files at hand when the server is away (sw.js; https or localhost only)
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
  const params = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("token")) sessionStorage.setItem("kocka-token", hash.get("token"));
  seat.token = sessionStorage.getItem("kocka-token");
  const known = (code) => Boolean(code) && Object.hasOwn(i18n.languages, code);
  const meta = document.querySelector('meta[name="kocka-lang"]').content;
  app.defaultLang = known(meta) ? meta : null;
  // the language: the link's, else the one picked before on this device, else (pageLang)
  // the server's --lang or the game's own
  const asked = params.get("lang");
  app.lang = known(asked) ? asked : (known(remembered()) ? remembered() : null);
  app.pace = pauseBeforeComputerMoves(params.get("pace"));
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
  $("lang").addEventListener("change", () => { switchLanguage($("lang").value).catch(failure); });
  document.addEventListener("keydown", (e) => {
    if (!app.legal || app.legal.node !== "chance" || e.target.tagName === "INPUT") return;
    if (/^[1-6]$/.test(e.key)) addFace(Number(e.key));
    else if (e.key === "Backspace" && app.entry.length) { app.entry.pop(); renderDice(app.position.state); renderControls(app.position.state); }
    else if (e.key === "Enter" && app.entry.length === rollSize()) enterRoll([...app.entry]);
  });
  try {
    // a language known before the seat answers (picked, remembered, --lang) is loaded first, so
    // that "the seat is not answering" is said in it too (the page itself may come from sw.js)
    if (app.lang || app.defaultLang) await loadLanguage().catch(() => {});
    await loadGames();
    // the game the page opens with decides its language when nothing else does
    app.game = app.games.get(params.get("game")) || app.games.get((saved() || {}).game) || null;
    await applyLanguage();
  } catch (err) {
    $("loading").hidden = true;
    failure(err);
    return;
  }
  if (asked && !known(asked)) showBanner(asked);
  window.kockaReadyAt = performance.now();  // hello answered: the page can be used (scripts/bench_web.py)
  if (params.has("game")) {
    try {
      const pos = await positionFromLink(params);
      app.history = [];
      app.position = null;
      await applyLanguage();  // the link's game: its own language, unless one is picked
      await setPosition(pos, false);
    } catch (err) {
      $("loading").hidden = true;
      showSetup();
      showError(t("This link cannot be opened: {reason}", { reason: reasonOf(err) }));
    }
    return;
  }
  showSetup();
}

main();
