// The play page: shows what the virtual nest reports and sends what the player does.
// It decides nothing about the rules: verdicts, prompts and positions come from the firmware's
// console (relayed by the server), the LEDs and the buzzer are the board's read-back, and the
// eggs and the pole are the simulated world's. Clicks become button presses or hands in the world.
"use strict";

const NAMES = { G: "green", Y: "yellow", R: "red", B: "blue", P: "purple", J: "Gulo junior" };
const KEYS = { r: "REVEAL", g: "GREEN", y: "YELLOW", d: "RED", b: "BLUE", m: "MENU" };
const WORLD_KEYS = { k: "knock_pole", s: "seat_pole", p: "pour_back" };
// The 22 eggs laid in the bowl in a fixed, mixed order: outer ring 14, inner ring 8.
const EGG_ORDER = "GYRBGPYRBGYRBGYRBPGYRB";

const $ = (id) => document.getElementById(id);
let ws = null;
let layout = null;
let status = null;
let world = null;
let audio = null;
let soundOn = false;
let lastMenu = null;

// ---- connection ---------------------------------------------------------------------------------

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onopen = () => setConn("connected to the virtual nest", "ok");
  ws.onclose = () => { setConn("connection lost: retrying\u2026", "bad"); setTimeout(connect, 1000); };
  ws.onmessage = (m) => receive(JSON.parse(m.data));
}

function setConn(text, cls) {
  const c = $("conn");
  c.textContent = text;
  c.className = "conn " + cls;
}

function send(req) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(req));
}

function receive(msg) {
  if (msg.type === "hello") {
    layout = msg.layout;
    buildLeds();
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
  } else if (msg.type === "done" && !msg.ok) {
    addLine(`Not done (${msg.op}): ${msg.error}`, "error");
  }
}

// ---- the LEDs and the buzzer ------------------------------------------------------------------------

function buildLeds() {
  const path = $("path-leds");
  path.replaceChildren();
  for (let k = 1; k <= layout.path_count; k++) {
    const led = document.createElement("span");
    led.className = "led";
    led.id = `led-${layout.path_first + k - 1}`;
    led.title = `path tile ${k}`;
    path.append(led);
  }
  $("led-deck").id = `led-${layout.deck}`;
  $("led-status").id = `led-${layout.status}`;
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
  leds.forEach((rgb, i) => paintLed(document.getElementById(`led-${i}`), rgb));
  const on = buzzer && buzzer.freq > 0 && buzzer.duty_u16 > 0;
  const bz = $("buzzer");
  bz.dataset.freq = on ? buzzer.freq : 0;
  bz.textContent = on ? `\u266a ${buzzer.freq} Hz` : "\u266a silent";
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

function toggleSound() {
  // Browsers allow sound only after a user gesture: the AudioContext is made here.
  if (!audio) {
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
  }
  soundOn = !soundOn;
  audio.ctx.resume();
  $("sound").textContent = soundOn ? "sound on" : "sound off";
  $("sound").setAttribute("aria-pressed", String(soundOn));
  const bz = $("buzzer").dataset;
  playTone(Number(bz.freq), 32768);
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
    egg.style.left = `${50 + r * Math.cos(a)}%`;
    egg.style.top = `${50 + r * Math.sin(a)}%`;
    egg.setAttribute("aria-label", `take a ${NAMES[c]} egg`);
    egg.addEventListener("click", () => takeEgg(c));
    bowl.append(egg);
  });
}

function showWorld(w) {
  world = w;
  const out = [];
  for (const egg of document.querySelectorAll("#bowl .egg")) {
    const c = egg.dataset.colour;
    const inNest = Number(egg.dataset.n) <= (w.nest[c] || 0);
    egg.hidden = !inNest;
    if (!inNest) out.push(c);
  }
  const tray = $("out-eggs");
  tray.replaceChildren(...out.map((c) => {
    const e = document.createElement("span");
    e.className = `egg-out c-${c}`;
    e.title = `${NAMES[c]} egg`;
    return e;
  }));
  if (!out.length) tray.textContent = "none";
  $("pole").dataset.seated = String(w.pole_seated);
  $("pole-down").hidden = w.pole_seated;
  $("app").dataset.nest = Object.values(w.nest).reduce((a, b) => a + b, 0);
  $("app").dataset.pole = w.pole_seated ? "seated" : "down";
}

function takeEgg(colour) {
  const hand = document.querySelector("input[name=hand]:checked").value;
  send({ op: "take", colour, hand, chance: Number($("chance").value) / 100 });
}

// ---- what the board says ------------------------------------------------------------------------------

function gulo(p) {
  return `Gulo ${p + 1}`;
}

function showStatus(st) {
  status = st;
  const s = st.state;
  const app = $("app").dataset;
  app.phase = st.phase;
  app.turn = s.turn;
  app.winner = s.winner === null ? "" : s.winner;
  app.demand = s.demand || "";
  app.positions = s.positions.join(",");
  app.prompt = st.prompt || "";
  let text;
  if (s.winner !== null) text = `${gulo(s.winner)} has freed Gulo junior and wins! (new game below)`;
  else if (st.phase === "menu") text = menuText();
  else if (st.prompt) text = `The nest asks: ${st.prompt}.`;
  else if (st.phase === "pick") {
    const onLast = s.positions[s.turn] === s.path.length;
    text = `${gulo(s.turn)}: press ${onLast ? "Reveal to turn over the deck" : "Reveal or a colour ahead"}.`;
  } else if (st.phase === "attempt" || st.phase === "confirm") {
    text = `${gulo(s.turn)}: take a ${NAMES[s.demand]} egg.`;
  } else text = "The nest is settling\u2026";
  if (st.fault) text = `Fault: ${st.fault}. ${text}`;
  const prompt = $("prompt");
  prompt.textContent = text;
  prompt.className = `prompt ${s.demand ? "c-" + s.demand : ""} ${s.winner !== null ? "won" : ""}`;
  $("players-n").value = String(s.players);
  $("variant").value = s.variant;
  showPath(s);
}

function menuText() {
  const m = lastMenu || {};
  return `Menu: ${m.players || "?"} players, ${m.variant || "?"} game. G fewer, Y more players, ` +
    "R variant, Reveal starts it, Menu closes.";
}

function showPath(s) {
  const tiles = $("tiles");
  tiles.replaceChildren();
  for (let k = 1; k <= s.path.length; k++) {
    const li = document.createElement("li");
    const up = k <= s.revealed;
    li.className = up ? `tile c-${s.path[k - 1]}` : "tile hidden";
    li.textContent = up ? s.path[k - 1] : "?";
    li.title = `tile ${k}${up ? ": " + NAMES[s.path[k - 1]] : ", face down"}`;
    s.positions.forEach((pos, p) => {
      if (pos === k) li.append(marker(p, s.turn));
    });
    tiles.append(li);
  }
  const players = $("players");
  players.replaceChildren(...s.positions.map((pos, p) => {
    const li = document.createElement("li");
    li.append(marker(p, s.turn), ` ${gulo(p)}: ${pos === 0 ? "at the start" : "tile " + pos}`);
    if (p === s.turn) li.className = "to-act";
    return li;
  }));
  const drawn = s.drawn ? ` Turned over: ${NAMES[s.drawn]}.` : "";
  $("deck-info").textContent = `Deck: ${s.deck.length} tile(s) face down.${drawn} ${s.variant} game.`;
}

function marker(p, turn) {
  const m = document.createElement("span");
  m.className = "gulo" + (p === turn ? " acting" : "");
  const c = layout ? layout.gulos[p] : [200, 200, 200];
  m.style.background = `rgb(${c.join(",")})`;
  m.textContent = p + 1;
  m.title = gulo(p);
  return m;
}

function describe(ev) {
  // -> [text, kind] or null (not worth a line)
  if (ev.world) {
    const what = { knock_pole: "You knock the pole over.", seat_pole: "You seat the pole.",
      pour_back: "You pour the eggs back into the nest." }[ev.world];
    if (what) return [what, "world"];
    let t = `You take a ${NAMES[ev.colour]} egg (${ev.hand} hand)`;
    if (ev.mishap && ev.mishap.what === "drop") t += ` and push a ${NAMES[ev.mishap.colour]} egg out!`;
    else if (ev.mishap) t += " and topple the pole!";
    return [t + (ev.mishap ? "" : "."), "world"];
  }
  if (ev.ev === "action") {
    const o = ev.outcome;
    const p = gulo(o.player);
    switch (o.event) {
      case "reveal": return [`${p} reveals tile ${o.tile}: ${NAMES[o.demand]}.`, "reveal"];
      case "choose": return [`${p} chooses ${NAMES[o.demand]}.`, "choose"];
      case "draw": return [`${p} turns over the deck: ${NAMES[o.tile]}.`, "draw"];
      case "junior": return [`${p} turns over Gulo junior and wins!`, "win"];
      case "success": {
        let t = `${p} takes a ${NAMES[o.egg]} egg: ${o.from} \u2192 ${o.to}.`;
        if (o.last_egg) t += ` The last ${NAMES[o.egg]} egg: all eggs go back, ${p} plays again.`;
        if (o.winner !== undefined) return [t + ` ${p} frees Gulo junior and wins!`, "win"];
        return [t, o.last_egg ? "last-egg" : "success"];
      }
      case "alarm": {
        const why = o.cause === "wrong egg" ? `wrong egg (${NAMES[o.egg]})` : o.cause;
        return [`EGG ALARM (${why})! ${p} goes back ${o.from} \u2192 ${o.to}.`, "alarm"];
      }
      default: return [`${p}: ${o.event}`, "action"];
    }
  }
  if (ev.ev === "note") {
    const n = ev.note;
    if (n.prompt) return [`The nest asks: ${n.prompt}.`, "prompt"];
    if (n.refused) {
      const what = typeof n.refused === "string" ? n.refused : n.refused.do;
      return [`Refused: ${what}${n.why ? " (" + n.why + ")" : ""}.`, "refused"];
    }
    if (n.started) return [`New game: ${n.started.players} players, ${n.started.variant}.`, "new"];
    if (n.menu) {
      if (n.menu === "closed") return ["Menu closed.", "menu"];
      lastMenu = n.menu;
      return [`Menu: ${n.menu.players} players, ${n.menu.variant}.`, "menu"];
    }
    return null;
  }
  if (ev.ev === "fault") return [`Fault (${ev.what}): ${ev.detail}`, "fault"];
  if (ev.ev === "fault_cleared") return [`Fault cleared (${ev.what}).`, "fault"];
  if (ev.ev === "ready") return [ev.resumed ? "The nest started and resumed its game." : "The nest started.", "new"];
  if (ev.ev === "crash") return [`The firmware crashed: ${ev.error}`, "error"];
  if (ev.re && ev.ok === false) return [`The board refused ${ev.re}: ${ev.error}`, "error"];
  return null;
}

function addEvent(ev) {
  const d = describe(ev);
  if (d) addLine(d[0], d[1], ev.t);
}

function addLine(text, kind, t) {
  const li = document.createElement("li");
  li.className = `ev ev-${kind}`;
  li.dataset.kind = kind;
  const time = new Date(t || Date.now()).toLocaleTimeString();
  li.innerHTML = `<time></time> `;
  li.querySelector("time").textContent = time;
  li.append(text);
  const list = $("events");
  list.prepend(li);
  while (list.children.length > 200) list.lastChild.remove();
}

// ---- input ------------------------------------------------------------------------------------------

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

function onKey(e) {
  if (e.ctrlKey || e.altKey || e.metaKey) return;
  const tag = e.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const k = e.key.toLowerCase();
  if (document.activeElement && document.activeElement.classList.contains("egg")) {
    if (e.key === "ArrowRight" || e.key === "ArrowDown") { moveEggFocus(1); e.preventDefault(); return; }
    if (e.key === "ArrowLeft" || e.key === "ArrowUp") { moveEggFocus(-1); e.preventDefault(); return; }
  }
  if (KEYS[k]) send({ op: "button", button: KEYS[k] });
  else if (WORLD_KEYS[k]) send({ op: WORLD_KEYS[k] });
  else if (k === "h") {
    const shaky = document.querySelector("input[value=shaky]");
    (shaky.checked ? document.querySelector("input[value=steady]") : shaky).checked = true;
  } else if (k === "n") newGame();
  else return;
  e.preventDefault();
}

function init() {
  buildBowl();
  for (const b of document.querySelectorAll("button[data-button]")) {
    b.addEventListener("click", () => send({ op: "button", button: b.dataset.button }));
  }
  for (const b of document.querySelectorAll("button[data-world]")) {
    b.addEventListener("click", () => send({ op: b.dataset.world }));
  }
  $("chance").addEventListener("input", () => { $("chance-out").textContent = `${$("chance").value} %`; });
  $("new-game").addEventListener("submit", (e) => { e.preventDefault(); newGame(); });
  $("sound").addEventListener("click", toggleSound);
  document.addEventListener("keydown", onKey);
  connect();
}

init();
