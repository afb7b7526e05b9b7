// The play page: shows what the virtual nest reports and sends what the player does.
// It decides nothing about the rules: verdicts, prompts and positions come from the firmware's
// console (relayed by the server), the LEDs and the buzzer are the board's read-back, and the
// eggs and the pole are the simulated world's. Clicks become button presses or hands in the world.
// Words come from i18n.js (German, English, French); the board's codes are worded here.
"use strict";

const KEYS = { r: "REVEAL", g: "GREEN", y: "YELLOW", d: "RED", b: "BLUE", m: "MENU" };
const WORLD_KEYS = { k: "knock_pole", s: "seat_pole", p: "pour_back" };
const BUTTON_COLOUR = { GREEN: "G", YELLOW: "Y", RED: "R", BLUE: "B" };
const EGG_COLOURS = "GYRBP";
// The 22 eggs laid in the bowl in a fixed, mixed order: outer ring 14, inner ring 8.
const EGG_ORDER = "GYRBGPYRBGYRBGYRBPGYRB";

const $ = (id) => document.getElementById(id);
let T = LANGS[pickLanguage()];
let ws = null;
let layout = null;
let status = null;
let world = null;
let history = [];
let audio = null;
let soundOn = true;          // on by default; browsers start it at the first click or key (a gesture)
let soundChosen = false;     // the player switched it themselves
let lastMenu = null;
// The history line's class for each kind of note the page words (i18n.js, notes).
const NOTE_CLASS = { refused: "refused", prompt: "prompt", started: "new", menu: "menu", error: "error", unchecked: "fault" };
let takeBusyUntil = 0;       // a hand is in the bowl: a second click is not a second take
// From the click on an egg asked for to the nest's verdict, the page says "judging" and takes no
// second egg: on the page a second click in that gap is a mistake, not a hand's slip (the device
// still judges a real hand's second egg as an alarm). The board ends an attempt at most
// AFTER_HAND_MS + MOVING_MAX_MS (gulo.turnflow: 1 + 3 s) after the hand left, the hand stays at
// most ~1.5 s (nest.world's hand): past JUDGE_MAX_MS without a verdict the page stops waiting.
const JUDGE_MAX_MS = 8000;
let judging = null;          // {until: ms} while the nest judges a take the page sent
let earlyTake = false;       // an egg was taken before a colour was picked (the prompt says so)
const picked = {};           // colour -> the egg element last clicked, the one that leaves the bowl

// ---- connection ---------------------------------------------------------------------------------

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onopen = () => setConn("ok");
  ws.onclose = () => { setConn("lost"); setTimeout(connect, 1000); };
  ws.onmessage = (m) => receive(JSON.parse(m.data));
}

function setConn(which) {
  const c = $("conn");
  c.dataset.state = which;
  c.textContent = T.conn[which];
  c.className = "conn " + (which === "ok" ? "ok" : which === "lost" ? "bad" : "");
}

function send(req) {
  if (ws && ws.readyState === WebSocket.OPEN) {
    ws.send(JSON.stringify(req));
    return true;
  }
  addLine(T.conn.notSent, "error");  // never drop a press silently
  return false;
}

function receive(msg) {
  if (msg.type === "hello") {
    // A (re)connection: everything is drawn again from the server's snapshot.
    layout = msg.layout;
    buildLeds();
    history = [];
    $("events").replaceChildren();
    for (const ev of msg.events) addEvent(ev);
    if (msg.world) showWorld(msg.world);
    if (msg.leds) showLeds(msg.leds, msg.buzzer);
    if (msg.status) showStatus(msg.status);
  } else if (msg.type === "event") {
    addEvent(msg.event);
  } else if (msg.type === "status") {
    showStatus(msg.status);
  } else if (msg.type === "leds") {
    showLeds(msg.leds, msg.buzzer);
  } else if (msg.type === "world") {
    showWorld(msg.world);
  } else if (msg.type === "done") {
    if (msg.op === "take") takeBusyUntil = msg.ok && msg.hand_ms ? Date.now() + msg.hand_ms : 0;
    if (msg.op === "take" && !msg.ok) endJudging();
    // The server's refusals come as codes, worded here; the board's own refusal of an undo or a
    // call is its own history line (describe), so it is not said twice.
    if (!msg.ok && !["undo", "call"].includes(msg.op)) {
      console.warn(`${msg.op}: ${msg.error}`);
      addLine(T.refusedCode[msg.code] || T.notDone(T.op[msg.op] || T.op.other), "refused");
    }
  }
}

// ---- the LEDs and the buzzer ------------------------------------------------------------------------

function buildLeds() {
  // LEDs are found by their strip index (data-led), never by renaming elements: a second hello
  // (a reconnect) builds the same thing again.
  const path = $("path-leds");
  path.replaceChildren();
  for (let k = 1; k <= layout.path_count; k++) {
    const led = document.createElement("span");
    led.className = "led";
    led.dataset.led = layout.path_first + k - 1;
    led.title = T.tile(k, null).split(":")[0];
    path.append(led);
  }
  $("led-deck").dataset.led = layout.deck;
  $("led-status").dataset.led = layout.status;
}

function paintLed(el, rgb) {
  if (!el) return;
  // The board caps every channel (power budget); scale back to full range so it is visible,
  // keeping the ratio between a faint glow and a lit tile.
  const s = 255 / layout.cap;
  const [r, g, b] = rgb.map((v) => Math.min(255, Math.round(v * s)));
  el.style.background = `rgb(${r}, ${g}, ${b})`;
  el.style.boxShadow = r + g + b > 120 ? `0 0 8px rgb(${r}, ${g}, ${b})` : "none";
  el.dataset.rgb = rgb.join(",");
}

function showLeds(leds, buzzer) {
  if (!layout) return;
  leds.forEach((rgb, i) => paintLed(document.querySelector(`[data-led="${i}"]`), rgb));
  const on = buzzer && buzzer.freq > 0 && buzzer.duty_u16 > 0;
  const bz = $("buzzer");
  bz.dataset.freq = on ? buzzer.freq : 0;
  bz.textContent = T.buzzer(on ? buzzer.freq : 0);
  bz.classList.toggle("on", on);
  playTone(on ? buzzer.freq : 0, on ? buzzer.duty_u16 : 0);
}

function playTone(freq, duty) {
  if (!audio) return;
  const t = audio.ctx.currentTime;
  if (freq && soundOn) {
    audio.osc.frequency.setTargetAtTime(freq, t, 0.005);
    audio.gain.gain.setTargetAtTime(0.08 * Math.min(1, duty / 32768), t, 0.005);
  } else {
    audio.gain.gain.setTargetAtTime(0, t, 0.005);
  }
}

function startAudio() {
  // Browsers allow sound only after a user gesture: the AudioContext is made at the first one.
  if (audio) return;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  const ctx = new Ctx();
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "square";
  gain.gain.value = 0;
  osc.connect(gain).connect(ctx.destination);
  osc.start();
  audio = { ctx, osc, gain };
  audio.ctx.resume();
}

function toggleSound() {
  startAudio();
  soundOn = !soundOn;
  soundChosen = true;
  showSound();
  playTone(Number($("buzzer").dataset.freq), 32768);
}

function showSound() {
  $("sound").textContent = T.sound(soundOn);
  $("sound").setAttribute("aria-pressed", String(soundOn));
}

// ---- the bowl (the world) -----------------------------------------------------------------------------

function buildBowl() {
  const bowl = $("bowl");
  const count = {};
  [...EGG_ORDER].forEach((c, i) => {
    const n = (count[c] = (count[c] || 0) + 1);
    const outer = i < 14;
    const k = outer ? i : i - 14;
    const a = (2 * Math.PI * k) / (outer ? 14 : 8) + (outer ? 0 : 0.4);
    const r = outer ? 38 : 23;
    const egg = document.createElement("button");
    egg.type = "button";
    egg.className = `egg c-${c}`;
    egg.dataset.colour = c;
    egg.dataset.n = n;
    egg.id = `egg-${c}-${n}`;
    egg.textContent = SYMBOLS[c];
    egg.style.left = `${50 + r * Math.cos(a)}%`;
    egg.style.top = `${50 + r * Math.sin(a)}%`;
    egg.addEventListener("click", () => takeEgg(egg));
    bowl.append(egg);
  });
}

function showWorld(w) {
  world = w;
  // The eggs of each colour on the page follow the world's count; the egg that was clicked is the
  // one that leaves, and eggs come back in the order they left.
  for (const c of EGG_COLOURS) {
    const eggs = [...document.querySelectorAll(`#bowl .egg[data-colour="${c}"]`)];
    const want = w.nest[c] || 0;
    let shown = eggs.filter((e) => !e.hidden);
    while (shown.length > want) {
      const chosen = picked[c] && !picked[c].hidden ? picked[c] : shown[shown.length - 1];
      chosen.hidden = true;
      chosen.dataset.left = String(Date.now() + Math.random());
      picked[c] = null;
      shown = shown.filter((e) => e !== chosen);
    }
    const gone = eggs.filter((e) => e.hidden).sort((a, b) => Number(a.dataset.left || 0) - Number(b.dataset.left || 0));
    while (shown.length < want && gone.length) {
      const back = gone.shift();
      back.hidden = false;
      shown.push(back);
    }
  }
  showTray();
  $("pole").dataset.seated = String(w.pole_seated);
  $("pole").setAttribute("aria-label", T.pole(w.pole_seated));
  $("pole-down").hidden = w.pole_seated;
  $("app").dataset.nest = Object.values(w.nest).reduce((a, b) => a + b, 0);
  $("app").dataset.pole = w.pole_seated ? "seated" : "down";
  if (status) showPrompt();
}

function showTray() {
  const out = [...document.querySelectorAll("#bowl .egg[hidden]")].map((e) => e.dataset.colour);
  const tray = $("out-eggs");
  tray.replaceChildren(...out.map((c) => {
    const e = document.createElement("span");
    e.className = `egg-out c-${c}`;
    e.textContent = SYMBOLS[c];
    e.setAttribute("role", "img");
    e.setAttribute("aria-label", T.eggName(c));
    return e;
  }));
  if (!out.length) tray.textContent = T.none;
}

function takeEgg(egg) {
  if (judging && Date.now() < judging.until) {
    // One take at a time until the verdict: a word, never a second egg out of the bowl.
    addLine(T.oneAtATime, "refused");
    $("prompt").classList.remove("nudge");
    void $("prompt").offsetWidth;  // restart the nudge animation
    $("prompt").classList.add("nudge");
    return;
  }
  if (Date.now() < takeBusyUntil) return;  // a double click is one take: the hand is still in the bowl
  const hand = document.querySelector("input[name=hand]:checked").value;
  picked[egg.dataset.colour] = egg;
  takeBusyUntil = Date.now() + 1500;  // until the server says how long the hand stays
  const attempt = status && (status.phase === "attempt") && !status.prompt;
  if (status && status.phase === "pick") earlyTake = true;   // until the next action (addEvent)
  if (!send({ op: "take", colour: egg.dataset.colour, hand, chance: Number($("chance").value) / 100 })) {
    takeBusyUntil = 0;
    return;
  }
  if (attempt) {
    judging = { until: Date.now() + JUDGE_MAX_MS };
    setTimeout(() => { if (judging && Date.now() >= judging.until) endJudging(); }, JUDGE_MAX_MS + 50);
    if (status) showPrompt();
  }
}

function endJudging() {
  if (!judging) return;
  judging = null;
  if (status) showPrompt();
}

// What differs between the nest the game expects (the firmware's state) and the bowl (the world):
// {back: {colour: n}, out: {colour: n}}. Only for wording the prompt and pouring back exactly the
// eggs that belong in the nest.
function nestDiff() {
  // The page knows the table exactly (the world's eggs) and the game's nest (the firmware's state):
  // the prompt names what differs between them, never the firmware's guess from a weight, which
  // may name eggs that are not on the table or lag behind the bowl by a few seconds.
  const back = {};
  const out = {};
  if (!status || !world) return { back, out };
  const want = status.state.nest;
  for (const c of EGG_COLOURS) {
    const d = (want[c] || 0) - (world.nest[c] || 0);
    if (d > 0) back[c] = d;
    if (d < 0) out[c] = -d;
  }
  return { back, out };
}

function eggsText(counts) {
  return T.list(Object.entries(counts).map(([c, n]) => T.eggs(c, n)));
}

function pourBack() {
  // Only the eggs that belong in the nest go back: an egg taken this round stays out. Every egg
  // goes back only when the game is over or the nest asks for all of them (its word on a full
  // nest, without a calibration); with nothing that belongs in the nest on the table, nothing.
  if (!status) return;
  const all = status.state.winner !== null || Boolean(status.prompt && /Reveal/.test(status.prompt));
  const { back } = nestDiff();
  if (all) send({ op: "pour_back" });
  else if (Object.keys(back).length) send({ op: "pour_back", eggs: back });
  else addLine(T.nothingToPour, "refused");
}

// ---- what the board says ------------------------------------------------------------------------------

function aheadColours(s) {
  // The face-up colours ahead of the player to act (what Choose may offer), by the state's path.
  const pos = s.positions[s.turn];
  const out = new Set();
  for (let k = pos + 1; k <= s.revealed; k++) out.add(s.path[k - 1]);
  return [...out];
}

function legalButtons(st) {
  // Buttons that can do something now; the others are greyed out (the board still judges a press).
  const s = st.state;
  if (st.phase === "menu") return new Set(["MENU", "REVEAL", "GREEN", "YELLOW", "RED"]);
  if (st.phase !== "pick" || s.winner !== null) return new Set(["MENU"]);
  const ok = new Set(["MENU"]);
  const onLast = s.positions[s.turn] === s.path.length;
  if (onLast || s.revealed < s.path.length) ok.add("REVEAL");
  if (!onLast) for (const c of aheadColours(s)) ok.add(Object.keys(BUTTON_COLOUR).find((b) => BUTTON_COLOUR[b] === c));
  return ok;
}

function showStatus(st) {
  status = st;
  const s = st.state;
  if (!["attempt", "confirm"].includes(st.phase) || st.prompt) endJudging();
  if (st.phase === "attempt") earlyTake = false;
  const app = $("app").dataset;
  app.phase = st.phase;
  app.turn = s.turn;
  app.winner = s.winner === null ? "" : s.winner;
  app.demand = s.demand || "";
  app.positions = s.positions.join(",");
  app.prompt = st.prompt || "";
  const ok = legalButtons(st);
  for (const b of document.querySelectorAll("button[data-button]")) b.disabled = !ok.has(b.dataset.button);
  // The players' appeal: legal only when the board says so (its status's "appeal").
  const appeal = st.appeal || {};
  for (const b of document.querySelectorAll("button[data-appeal]")) b.disabled = !appeal[b.dataset.appeal];
  $("players-n").value = String(s.players);
  $("variant").value = s.variant;
  showPrompt();
  showPath(s);
  showSummary(s);
}

function promptText() {
  const st = status;
  const s = st.state;
  if (s.winner !== null) return T.won(s.winner);
  if (st.phase === "menu") return T.menu(lastMenu || {});
  if (judging) return T.judging;
  if (st.prompt) {
    if (/pole/.test(st.prompt)) return T.polePrompt;
    // An uncalibrated nest after a restart: the family's word on the full bowl (Reveal) first.
    if (/Reveal/.test(st.prompt)) return `${T.pourAll} ${T.pressReveal}`;
    const { back, out } = nestDiff();
    const parts = [];
    if (Object.keys(back).length) parts.push(T.putBack(eggsText(back)));
    const nOut = Object.values(out).reduce((a, b) => a + b, 0);
    if (nOut) parts.push(T.staysOut(eggsText(out), nOut));
    // The bowl holds the game's nest already: the nest is weighing it (never a stale request).
    if (!parts.length) return T.settling;
    if (earlyTake && s.demand === null && s.winner === null) parts.push(T.tooEarly);
    return parts.join(" ");
  }
  if (st.phase === "pick") {
    const onLast = s.positions[s.turn] === s.path.length;
    if (onLast) return T.pickDeck(s.turn);
    const cs = aheadColours(s).map((c) => T.colour[c]).join(", ");
    const canReveal = s.revealed < s.path.length;
    if (cs && canReveal) return T.pickBoth(s.turn, cs);
    return cs ? T.pickColour(s.turn, cs) : T.pickReveal(s.turn);
  }
  if (st.phase === "attempt" || st.phase === "confirm") return T.takeDemand(s.turn, s.demand);
  return T.settling;
}

function showPrompt() {
  const st = status;
  const s = st.state;
  let text = promptText();
  if (st.fault) text = `${T.fault(faultText(st.fault))} ${text}`;
  const prompt = $("prompt");
  // The badge shows the egg the prompt asks to take, and only then: beside a request to put eggs
  // back or take others out, the asked colour's badge would be a second, contradicting instruction.
  const asks = s.demand && s.winner === null && !st.prompt && !judging && ["attempt", "confirm"].includes(st.phase);
  const badge = document.createElement("span");
  badge.className = asks ? `badge c-${s.demand}` : "badge";
  badge.textContent = asks ? SYMBOLS[s.demand] : "";
  badge.hidden = !asks;
  badge.setAttribute("aria-hidden", "true");
  const words = document.createElement("span");
  words.textContent = text;
  prompt.replaceChildren(badge, words);
  prompt.classList.toggle("won", s.winner !== null);
  $("app").dataset.judging = judging ? "yes" : "";
}

function showPath(s) {
  const tiles = $("tiles");
  const was = gulosAt(tiles);
  tiles.replaceChildren();
  const cell = (cls, label, text) => {
    const li = document.createElement("li");
    li.className = cls;
    li.setAttribute("aria-label", label);
    const face = document.createElement("span");
    face.className = "face";
    face.setAttribute("aria-hidden", "true");
    face.textContent = text;
    li.append(face);
    return li;
  };
  const here = (k) => s.positions.map((pos, p) => (pos === k ? p : -1)).filter((p) => p >= 0);
  const withGulos = (li, k) => {
    const ps = here(k);
    if (ps.length) {
      li.setAttribute("aria-label", li.getAttribute("aria-label") + T.here(T.list(ps.map(T.gulo))));
      const box = document.createElement("span");
      box.className = "on-tile";
      for (const p of ps) box.append(Object.assign(marker(p, s.turn), { tile: k }));
      li.append(box);
    }
    return li;
  };
  tiles.append(withGulos(cell("tile start", T.start, T.start), 0));
  for (let k = 1; k <= s.path.length; k++) {
    const up = k <= s.revealed;
    const c = s.path[k - 1];
    tiles.append(withGulos(cell(up ? `tile c-${c}` : "tile hidden", T.tile(k, up ? c : null),
      up ? SYMBOLS[c] : "?"), k));
  }
  tiles.append(cell("tile junior", T.junior, SYMBOLS.J));
  wind(tiles);
  glide(tiles, was);
  const players = $("players");
  players.replaceChildren(...s.positions.map((pos, p) => {
    const li = document.createElement("li");
    li.append(marker(p, s.turn), ` ${T.at(p, pos)}`);
    if (p === s.turn) li.className = "to-act";
    return li;
  }));
  $("deck-info").textContent = T.deck(s.deck.length, s.drawn, s.variant);
}

function wind(tiles) {
  // The path winds as on the box's board: rows of PATH_COLS tiles, every other row walked back,
  // so the next tile is always beside the last one (the start top left, Gulo junior at the end).
  const cols = Number(getComputedStyle(tiles).getPropertyValue("--cols")) || 7;
  [...tiles.children].forEach((li, i) => {
    const row = Math.floor(i / cols);
    const col = row % 2 === 0 ? i % cols : cols - 1 - (i % cols);
    li.style.gridRow = String(row + 1);
    li.style.gridColumn = String(col + 1);
    // Where the path goes on from here: along the row, or down at its end.
    const last = i === tiles.children.length - 1;
    li.dataset.turn = last ? "" : (i % cols === cols - 1 ? "down" : row % 2 === 0 ? "right" : "left");
  });
}

function gulosAt(tiles) {
  // Where each Gulo stands: its tile, and its place on the board (not in the window: a layout
  // that moved the whole board between two drawings is no move of a Gulo).
  const at = {};
  const board = tiles.getBoundingClientRect();
  for (const m of tiles.querySelectorAll(".gulo")) {
    const r = m.getBoundingClientRect();
    at[m.dataset.p] = { tile: m.tile, left: r.left - board.left, top: r.top - board.top };
  }
  return at;
}

function glide(tiles, was) {
  // A Gulo that changed tile slides from where it stood to its new tile (drawn first at the new
  // place, shifted back, then let go), so a child sees where it went; nothing moves for those who
  // ask for reduced motion.
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const now = gulosAt(tiles);
  for (const m of tiles.querySelectorAll(".gulo")) {
    const old = was[m.dataset.p];
    if (!old || old.tile === m.tile) continue;   // only a Gulo that changed tile moves
    const dx = old.left - now[m.dataset.p].left;
    const dy = old.top - now[m.dataset.p].top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    m.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
      { duration: 600, easing: "ease-in-out" });
  }
}

function textOn(rgb) {
  // Black or white text on a Gulo's colour, whichever contrasts more (WCAG 2 relative luminance).
  const lum = rgb.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const L = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? "#000" : "#fff";
}

function marker(p, turn) {
  const m = document.createElement("span");
  m.className = "gulo" + (p === turn ? " acting" : "");
  m.dataset.p = p;
  const c = layout ? layout.gulos[p] : [200, 200, 200];
  m.style.background = `rgb(${c.join(",")})`;
  m.style.color = textOn(c);
  // A Gulo figure (a head with two ears, in its colour) with its number, as the box's wooden Gulos
  // carry their colour; the number tells them apart without colour.
  const n = document.createElement("span");
  n.className = "n";
  n.textContent = p + 1;
  m.append(n);
  m.title = T.gulo(p);
  return m;
}

// ---- the end of a game: who won, in how many turns, the alarms and the eggs -----------------------------

function showSummary(s) {
  const box = $("summary");
  if (s.winner === null) {
    box.hidden = true;
    return;
  }
  const actions = history.filter((ev) => ev.ev === "action").map((ev) => ev.outcome);
  // Only this game's actions: those after the last "started" note.
  const startIdx = history.map((ev) => Boolean(ev.note && ev.note.started)).lastIndexOf(true);
  const mine = (startIdx >= 0 ? history.slice(startIdx) : history).filter((ev) => ev.ev === "action").map((ev) => ev.outcome);
  const list = mine.length ? mine : actions;
  const turns = list.filter((o) => ["reveal", "choose", "draw", "junior"].includes(o.event)).length;
  const alarms = list.filter((o) => o.event === "alarm").length;
  const eggs = s.positions.map(() => ({}));
  for (const o of list) if (o.event === "success") eggs[o.player][o.egg] = (eggs[o.player][o.egg] || 0) + 1;
  $("summary-title").textContent = T.summaryTitle(s.winner);
  $("summary-text").textContent = T.summary(turns, alarms);
  const table = $("summary-eggs");
  table.replaceChildren();
  const head = document.createElement("tr");
  head.append(th(T.summaryPlayer), ...["G", "Y", "R", "B", "P"].map((c) => th(`${SYMBOLS[c]} ${T.colour[c]}`)));
  table.append(head);
  eggs.forEach((e, p) => {
    const tr = document.createElement("tr");
    tr.append(th(T.gulo(p)), ...["G", "Y", "R", "B", "P"].map((c) => td(String(e[c] || 0))));
    table.append(tr);
  });
  box.hidden = false;
}

function th(text) { const e = document.createElement("th"); e.textContent = text; return e; }
function td(text) { const e = document.createElement("td"); e.textContent = text; return e; }

// ---- the history --------------------------------------------------------------------------------------

// The firmware's faults are English sentences for the console (gulo.nestfault, gulo.hx711,
// gulo.gamestore); the page says each in the family's language, by what it is about.
const FAULTS = [[/keeps moving/, "unsettled"], [/too noisy/, "noisy"], [/no answer/, "silent"],
  [/saturated/, "saturated"], [/flash full/, "full"], [/damaged/, "damaged"], [/cannot write/, "write"]];

function faultText(detail) {
  const hit = FAULTS.find(([re]) => re.test(String(detail || "")));
  if (!hit) console.warn(`fault: ${detail}`);
  return T.faults[hit ? hit[1] : "other"];
}

function refusalWhy(n) {
  // The firmware's reasons are codes (a phase) or the rule engine's English sentence; worded here.
  if (n.phase) return T.why[n.phase] || n.why || "";
  const w = n.why || "";
  let m;
  if ((m = /no face-up (\w) tile/.exec(w))) return T.why.notAhead(m[1]);
  if (/no face-down path tile/.test(w)) return T.why.noFaceDown;
  if (/on the last tile/.test(w)) return T.why.lastTile;
  if (/already demanded/.test(w)) return T.why.demanded;
  if (/game is over/.test(w)) return T.why.won;
  if (/calibrating/.test(w)) return T.why.calibrate;
  if (/being judged/.test(w)) return T.why.confirm;
  return T.why.settle;
}

function appealWhy(n) {
  const w = n.why || "";
  if (/no verdict to undo/.test(w)) return T.noUndo;
  if (/no attempt is under way/.test(w)) return T.noAttempt;
  if (/being judged/.test(w)) return T.why.confirm;
  if (/game is over/.test(w)) return T.why.won;
  return T.why[n.phase] || T.why.settle;
}

function describe(ev) {
  // -> [text, kind] or null (not worth a line)
  if (ev.world) {
    if (ev.world === "knock_pole") return [T.youKnock, "world"];
    if (ev.world === "seat_pole") return [T.youSeat, "world"];
    if (ev.world === "pour_back") return [T.youPour(ev.eggs ? eggsText(ev.eggs) : null), "world"];
    let t = T.youTake(ev.colour, ev.hand);
    if (ev.mishap && ev.mishap.what === "drop") t += T.mishapDrop(ev.mishap.colour);
    else if (ev.mishap) t += T.mishapPole;
    return [t + (ev.mishap ? "" : "."), "world"];
  }
  if (ev.ev === "action") {
    const o = ev.outcome;
    const p = o.player;
    switch (o.event) {
      case "reveal": return [T.reveal(p, o.tile, o.demand), "reveal"];
      case "choose": return [T.choose(p, o.demand), "choose"];
      case "draw": return [T.draw(p, o.tile), "draw"];
      case "junior": return [T.juniorWin(p), "win"];
      case "success": {
        let t = T.success(p, o.egg, o.from, o.to);
        if (o.last_egg) t += T.lastEgg(p, o.egg);
        if (o.winner !== undefined) return [t + T.winsToo(p), "win"];
        return [t, o.last_egg ? "last-egg" : "success"];
      }
      case "alarm": {
        const why = o.cause === "wrong egg" ? T.wrongEgg(o.demand, o.egg) : (T.alarmWhy[o.cause] || T.alarmWhy.alarm);
        return [T.alarm(p, why, o.demand, o.from, o.to), "alarm"];
      }
      default: return [`${T.gulo(p)}: ${o.event}`, "action"];
    }
  }
  if (ev.ev === "note") {
    // Its kind is the first of the board's note kinds (layout.notes, gulo.vocab.NOTES) it has.
    const n = ev.note;
    if (n.refused === "undo" || n.refused === "call") return [T.appealRefused(n.refused, appealWhy(n)), "refused"];
    const kind = ((layout && layout.notes) || []).find((k) => k in n);
    if (kind === "menu" && n.menu !== "closed") lastMenu = n.menu;
    const word = kind && T.notes[kind];
    return word ? [word(n, refusalWhy(n)), NOTE_CLASS[kind]] : null;
  }
  // A call right after a success replaces it: the called alarm's own line says what happened.
  if (ev.ev === "undo") return ev.outcome.replaced ? null : [T.undone(ev.outcome.player, ev.outcome.demand), "undo"];
  if (ev.ev === "fault") return [T.faultLine(ev.what, faultText(ev.detail)), "fault"];
  if (ev.ev === "fault_cleared") return [T.faultCleared(ev.what), "fault"];
  if (ev.ev === "ready") return [T.started(ev.resumed), "new"];
  if (ev.ev === "crash") return [T.crash(), "error"];
  if (ev.re && ev.ok === false && ["undo", "call"].includes(ev.re)) return [T.appealRefused(ev.re, appealWhy({ why: ev.error })), "refused"];
  if (ev.re && ev.ok === false) return [T.boardRefused(), "error"];
  return null;
}

function addEvent(ev) {
  history.push(ev);
  if (ev.ev === "action" || ev.ev === "undo" || (ev.ev === "note" && ev.note && ev.note.prompt)) endJudging();
  if (ev.ev === "action" || ev.ev === "undo" || ev.ev === "ready") earlyTake = false;
  if (history.length > 2000) history = history.slice(-2000);
  const d = describe(ev);
  if (d) addLine(d[0], d[1], ev.t);
}

function addLine(text, kind, t) {
  const li = document.createElement("li");
  li.className = `ev ev-${kind}`;
  li.dataset.kind = kind;
  const time = document.createElement("time");
  time.textContent = new Date(t || Date.now()).toLocaleTimeString(document.documentElement.lang);
  li.append(time, " ", text);
  const list = $("events");
  list.prepend(li);
  while (list.children.length > 200) list.lastChild.remove();
}

// ---- the page's fixed words ---------------------------------------------------------------------------

function applyLanguage(code) {
  T = LANGS[code];
  document.documentElement.lang = code;
  localStorage.setItem("gulo-lang", code);
  $("lang").value = code;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = T[el.dataset.t];
  for (const el of document.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", T[el.dataset.tLabel]);
  for (const b of document.querySelectorAll("button[data-button]")) {
    const c = BUTTON_COLOUR[b.dataset.button];
    b.querySelector(".name").textContent = (c ? SYMBOLS[c] + " " : "") + T.button[b.dataset.button];
  }
  for (const egg of document.querySelectorAll("#bowl .egg")) egg.setAttribute("aria-label", T.eggName(egg.dataset.colour));
  $("seed").placeholder = T.random;
  $("variant").options[0].textContent = T.standard;
  $("variant").options[1].textContent = T.fast;
  setConn($("conn").dataset.state || "connecting");
  showSound();
  if (world) showWorld(world);
  for (const led of document.querySelectorAll("#path-leds .led")) {
    led.title = T.tile(led.dataset.led - layout.path_first + 1, null).split(":")[0];
  }
  if (status) showStatus(status);
  // The history is worded again from the events themselves.
  $("events").replaceChildren();
  const evs = history;
  history = [];
  for (const ev of evs) addEvent(ev);
}

// ---- input ------------------------------------------------------------------------------------------

function gameUnderWay() {
  if (!status) return false;
  const s = status.state;
  return s.winner === null && (s.revealed > 0 || s.positions.some((p) => p > 0) || s.demand !== null);
}

function askNewGame() {
  // A running game is not ended by a stray key or click: the page asks first.
  if (gameUnderWay()) $("confirm-new").showModal();
  else newGame();
}

function newGame() {
  const seed = $("seed").value;
  send({ op: "new", players: Number($("players-n").value), variant: $("variant").value,
         seed: seed === "" ? null : Number(seed) });
}

function moveEggFocus(step) {
  const eggs = [...document.querySelectorAll("#bowl .egg:not([hidden])")];
  if (!eggs.length) return;
  const i = eggs.indexOf(document.activeElement);
  eggs[(i + step + eggs.length) % eggs.length].focus();
}

function pressButton(name) {
  const b = document.querySelector(`button[data-button="${name}"]`);
  if (b && !b.disabled) send({ op: "button", button: name });
}

function askAppeal(what) {
  // The players overrule the nest (undo the last verdict, call the EGG ALARM): asked first, as a
  // new game is, and only while the board says it is legal (the button is enabled).
  const b = document.querySelector(`button[data-appeal="${what}"]`);
  if (!b || b.disabled) return;
  const d = $("confirm-appeal");
  d.dataset.appeal = what;
  $("appeal-text").textContent = what === "undo" ? T.confirmUndo : T.confirmCall;
  $("appeal-yes").textContent = what === "undo" ? T.yesUndo : T.yesCall;
  d.showModal();
}

function onKey(e) {
  if (!soundChosen) startAudio();
  if (e.ctrlKey || e.altKey || e.metaKey) return;
  // Single-key shortcuts only when no form field has focus and no dialog is open.
  const el = e.target;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) || el.isContentEditable) return;
  if ($("confirm-new").open || $("confirm-appeal").open) return;
  const k = e.key.toLowerCase();
  if (document.activeElement && document.activeElement.classList.contains("egg")) {
    if (e.key === "ArrowRight" || e.key === "ArrowDown") { moveEggFocus(1); e.preventDefault(); return; }
    if (e.key === "ArrowLeft" || e.key === "ArrowUp") { moveEggFocus(-1); e.preventDefault(); return; }
  }
  if (KEYS[k]) pressButton(KEYS[k]);
  else if (k === "p") pourBack();
  else if (WORLD_KEYS[k]) send({ op: WORLD_KEYS[k] });
  else if (k === "h") {
    const shaky = document.querySelector("input[value=shaky]");
    (shaky.checked ? document.querySelector("input[value=steady]") : shaky).checked = true;
  } else if (k === "n") askNewGame();
  else if (k === "u") askAppeal("undo");
  else if (k === "a") askAppeal("call");
  else return;
  e.preventDefault();
}

function init() {
  buildBowl();
  for (const b of document.querySelectorAll("button[data-button]")) {
    b.addEventListener("click", () => pressButton(b.dataset.button));
  }
  for (const b of document.querySelectorAll("button[data-world]")) {
    b.addEventListener("click", () => (b.dataset.world === "pour_back" ? pourBack() : send({ op: b.dataset.world })));
  }
  $("chance").addEventListener("input", () => { $("chance-out").textContent = `${$("chance").value} %`; });
  $("new-game").addEventListener("submit", (e) => { e.preventDefault(); askNewGame(); });
  $("confirm-yes").addEventListener("click", () => { $("confirm-new").close(); newGame(); });
  $("confirm-no").addEventListener("click", () => $("confirm-new").close());
  $("again").addEventListener("click", () => newGame());
  for (const b of document.querySelectorAll("button[data-appeal]")) {
    b.addEventListener("click", () => askAppeal(b.dataset.appeal));
  }
  $("appeal-yes").addEventListener("click", () => {
    const d = $("confirm-appeal");
    d.close();
    send({ op: d.dataset.appeal });
  });
  $("appeal-no").addEventListener("click", () => $("confirm-appeal").close());
  $("sound").addEventListener("click", toggleSound);
  // The maker's view (seed, mishap chance, the board's LEDs and buzzer, times in the history):
  // off for a family, kept across reloads for a maker.
  $("maker").checked = localStorage.getItem("gulo-maker") === "on";
  document.body.dataset.maker = $("maker").checked ? "on" : "";
  $("maker").addEventListener("change", () => {
    document.body.dataset.maker = $("maker").checked ? "on" : "";
    localStorage.setItem("gulo-maker", $("maker").checked ? "on" : "");
  });
  $("lang").addEventListener("change", () => applyLanguage($("lang").value));
  // The path's rows change with the width (play.css --cols): wound again when they do.
  window.matchMedia("(max-width: 560px)").addEventListener("change", () => { if (status) showPath(status.state); });
  document.addEventListener("pointerdown", () => { if (!soundChosen) startAudio(); }, { capture: true });
  document.addEventListener("keydown", onKey);
  applyLanguage(pickLanguage());
  connect();
}

init();
