// DiceHost browser table. Speaks docs/protocol.md over one WebSocket. Every text from
// the server (rule scripts, player names) is put on the page with textContent, never
// as HTML.
"use strict";

const PROTOCOL = 2;  // version 2: the acting seat's input is acknowledged in its "events" message (docs/protocol.md)
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

let ws = null;
let rules = [];
let room = params.get("room");       // the room this page is at
let seat = null;                     // {name, token} when seated here
let spectating = false;
let pending = [];                    // messages to send once the server said hello
let timer = { deadline: null, handle: null, text: null };
let lastState = null;
// The dice each player showed (`reveal` events), until the next roll: a call in Liar's
// Dice puts every cup on the table, and the scoreboard draws it there. (A map with no
// prototype: a player may be called "__proto__".)
let shownDice = Object.create(null);

// ---- storage: the reconnect token and the last sequence number, per room ----
const seatKey = (id) => "dicehost.seat." + id;
function savedSeat(id) {
  try { return JSON.parse(localStorage.getItem(seatKey(id)) || "null"); } catch (e) { return null; }
}
function saveSeat(id, value) { localStorage.setItem(seatKey(id), JSON.stringify(value)); }
function nextSeq() {
  const saved = savedSeat(room) || {};
  saved.seq = (saved.seq || 0) + 1;
  saveSeat(room, saved);
  return saved.seq;
}

// ---- the connection ----
function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = scheme + "//" + location.host + "/ws" + (room ? "?room=" + encodeURIComponent(room) : "");
  ws = new WebSocket(url);
  ws.onopen = () => {
    setConnection("connected");
    ws.send(JSON.stringify({ type: "hello", version: PROTOCOL }));
  };
  ws.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (e) { return; }
    handle(message);
  };
  ws.onclose = () => {
    ws = null;
    Reconnect.schedule(() => { if (!ws) { queueRejoin(); connect(); } }, setConnection);
  };
}

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}

/// After a reconnect, take the seat again (or watch again).
function queueRejoin() {
  pending = [];
  if (!room) return;
  const saved = savedSeat(room);
  if (saved && saved.token) pending.push({ type: "join", room, token: saved.token });
  else if (spectating) pending.push({ type: "watch", room });
}

function setConnection(text) { $("connection").textContent = text; }

function notice(text, kind) {
  const box = $("notice");
  box.textContent = text;
  box.className = "notice" + (kind ? " " + kind : "");
  box.hidden = !text;
}

// ---- messages from the server ----
function handle(m) {
  switch (m.type) {
    case "hello":
      // Back in no room: the wait starts short again. A page coming back to a room waits
      // for its seat (joined, watching): a room whose lease has not lapsed yet answers
      // owned-elsewhere, and the next try then waits longer (issue 33).
      if (!room) Reconnect.connected();
      rules = m.rules || [];
      fillRules();
      if (pending.length === 0) queueRejoin();
      for (const message of pending) send(message);
      pending = [];
      if (!room || (!savedSeat(room)?.token && !spectating)) showLobby();
      send({ type: "rooms" });
      break;
    case "rooms": showRooms(m.rooms || []); break;
    case "created":
      room = m.room;
      send({ type: "join", room: m.room, name: myName() });
      break;
    case "joined": {
      room = m.room;
      spectating = false;
      const saved = savedSeat(room) || {};
      seat = { name: m.name, token: m.token };
      saveSeat(room, { name: m.name, token: m.token, seq: Math.max(saved.seq || 0, m.lastSeq || 0) });
      setRoomInURL(room);
      notice(m.rejoined ? "Welcome back, " + m.name + ": you have your seat again." : "", "info");
      Reconnect.connected();
      showTable();
      break;
    }
    case "watching":
      Reconnect.connected();
      spectating = true;
      seat = null;
      setRoomInURL(m.room);
      showTable();
      break;
    case "state":
      if (m.events) { clearLog(); shownDice = Object.create(null); noteShown(m.events); addEvents(m.first, m.events); }
      showState(m.state);
      break;
    case "events":
      if (pixelsTable) pixelsTable.events(m.events, lastState && lastState.current);  // Pixels hook
      noteShown(m.events);
      addEvents(m.first, m.events);
      showState(m.state);
      break;
    case "reloaded":
      notice("The rules were reloaded (" + m.files + "): the game goes on under the new rules.", "info");
      break;
    case "ack": break;  // also "ack" inside "events" (version 2): the page keeps no inputs to resend
    case "left": room = null; seat = null; setRoomInURL(null); showLobby(); send({ type: "rooms" }); break;
    case "error":
      // A seat the server does not know, or a room a restart could not reopen (the message says why).
      if (m.code === "bad-token" || (m.code === "no-room" && room)) { localStorage.removeItem(seatKey(room)); seat = null; showLobby(); }
      // The room is (or was) another server process's: reconnecting reaches its owner, or
      // takes it over once the lease lapses (the server closes the connection on `moved`).
      if (m.code === "owned-elsewhere" && ws) ws.close();
      notice(m.message, "error");
      addLogLine("refused: " + m.message, "error");
      break;
  }
}

// ---- lobby ----
function myName() { return $("name").value.trim(); }

function fillRules() {
  const select = $("create-rules");
  const chosen = select.value;
  select.replaceChildren();
  for (const r of rules) {
    const option = document.createElement("option");
    option.value = r.file;
    option.textContent = r.name + " (" + r.minPlayers + "–" + r.maxPlayers + " players)";
    select.appendChild(option);
  }
  if (chosen) select.value = chosen;
  fillParams();
}

function fillParams() {
  const r = rules.find((x) => x.file === $("create-rules").value);
  const box = $("create-params");
  box.replaceChildren();
  if (!r) return;
  $("create-seats").min = r.minPlayers;
  $("create-seats").max = r.maxPlayers;
  $("create-seats").value = Math.max(r.minPlayers, Math.min(r.maxPlayers, Number($("create-seats").value) || r.minPlayers));
  for (const [key, value] of Object.entries(r.params || {})) {
    const label = document.createElement("label");
    label.textContent = key + " ";
    const input = document.createElement("input");
    input.dataset.param = key;
    input.value = value;
    label.appendChild(input);
    box.appendChild(label);
  }
}

function showRooms(all) {
  // Finished rooms, and rooms nobody is at (no seat taken, or every player gone), are no
  // place to go.
  const list = all.filter((r) => r.room === room
    || (r.phase !== "over" && r.players.length > 0 && (r.connected === undefined || r.connected + r.spectators > 0)));
  const ul = $("rooms");
  ul.replaceChildren();
  if (list.length === 0) { const li = document.createElement("li"); li.textContent = "no rooms yet"; ul.appendChild(li); }
  for (const r of list) {
    const li = document.createElement("li");
    li.dataset.room = r.room;
    const text = document.createElement("span");
    text.textContent = r.name + " · " + (r.phase === "waiting" ? "waiting for players" : "playing") + " · "
      + r.players.length + " of " + r.seats + ": " + r.players.join(", ") + " ";
    li.appendChild(text);
    if (r.phase === "waiting") li.appendChild(button("Join", "join", () => joinRoom(r.room)));
    li.appendChild(button("Watch", "watch", () => { room = r.room; spectating = true; send({ type: "watch", room: r.room }); }));
    ul.appendChild(li);
  }
  if (room && !list.some((r) => r.room === room)) {
    const li = document.createElement("li");
    li.dataset.room = room;
    li.appendChild(button("Join room " + room, "join", () => joinRoom(room)));
    ul.appendChild(li);
  }
}

function joinRoom(id) {
  if (!myName()) { notice("Type your name first.", "error"); $("name").focus(); return; }
  localStorage.setItem("dicehost.name", myName());
  room = id;
  send({ type: "join", room: id, name: myName() });
}

function button(text, cls, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "small " + cls;
  b.textContent = text;
  b.onclick = onclick;
  return b;
}

/// A room's id is chosen here, so a load balancer that routes by room sends this
/// connection to the process that will hold the room (docs/scaling.md).
function createRoom(event) {
  event.preventDefault();
  if (!myName()) { notice("Type your name first.", "error"); $("name").focus(); return; }
  localStorage.setItem("dicehost.name", myName());
  const id = Math.random().toString(36).slice(2, 8);
  const params = {};
  for (const input of document.querySelectorAll("[data-param]")) params[input.dataset.param] = input.value;
  const create = { type: "create", room: id, rules: $("create-rules").value, seats: Number($("create-seats").value), params };
  if ($("create-device-rolls") && $("create-device-rolls").checked) create.deviceRolls = true;  // Pixels hook
  room = id;
  setRoomInURL(id);
  pending = [create];
  if (ws) { ws.onclose = null; ws.close(); ws = null; }
  connect();
}

function setRoomInURL(id) {
  const url = new URL(location.href);
  if (id) url.searchParams.set("room", id); else url.searchParams.delete("room");
  history.replaceState(null, "", url);
}

function showLobby() { $("lobby").hidden = false; $("table").hidden = true; }
function showTable() { $("lobby").hidden = true; $("table").hidden = false; }

// ---- the table ----
function clearLog() { $("log").replaceChildren(); }

function addEvents(first, events) {
  const log = $("log");
  // A seat receives only the events it may see, so `first` (the game's index of the
  // first event sent) does not number them one by one: they are appended in order.
  events.forEach((e) => {
    // The die's LED commands are drawn on the LED strip, not written in the log.
    if (e.type === "led") return;
    const li = document.createElement("li");
    li.dataset.index = log.querySelectorAll("li[data-index]").length;
    // Prefixed: an event's type is no style of the page's (a "led" line is no LED box).
    li.className = "ev-" + e.type + (e.to ? " private" : "") + (e.hidden ? " hidden" : "");
    li.textContent = describe(e);
    log.appendChild(li);
  });
  log.scrollTop = log.scrollHeight;
}

function noteShown(events) {
  for (const e of events) {
    if (e.type === "start" || e.type === "roll") shownDice = Object.create(null);
    else if (e.type === "reveal" && Array.isArray(e.values)) shownDice[e.player] = e.values;
  }
}

function addLogLine(text, cls) {
  const li = document.createElement("li");
  li.className = cls;
  li.textContent = text;
  $("log").appendChild(li);
  $("log").scrollTop = $("log").scrollHeight;
}

function describe(e) {
  const t = "[" + (e.t / 1000).toFixed(1) + "s] ";
  switch (e.type) {
    case "start": return t + "game starts: " + e.players.join(", ");
    case "turn": return t + e.player + "'s turn";
    case "roll":
      if (e.hidden) return t + e.player + " rolls " + e.dice + " dice under the cup";
      return t + (e.to ? "(to you) " : "") + e.player + " rolls " + (e.flag === "ok" ? e.values.join(" ") + " = " + e.total : e.flag);
    case "reveal": return t + e.player + " shows " + e.values.join(" ");
    case "say": return t + (e.to ? "(to you) " : "") + e.text;
    case "led": return t + "die: " + e.command;
    case "emit": return t + e.name + " " + e.data;
    case "win": return t + e.player + " wins!";
    case "lose": return t + e.player + " loses";
    case "draw": return t + "a draw";
    case "eliminate": return t + e.player + " is out";
    case "reload": return t + "rules reloaded: " + e.text;
    case "error": return t + "error: " + e.text;
    default: return t + e.type;
  }
}

function drawDie(value, led) { return DiceTable.die(value, led, false); }

function showState(s) {
  lastState = s;
  $("room-title").textContent = s.rules.name + " · room " + room;
  $("room-link").textContent = "Invite a friend: " + location.origin + "/?room=" + room;
  $("you").textContent = seat ? "You are " + seat.name + "." : "You are watching.";
  $("phase").textContent = s.phase === "waiting"
    ? "Waiting for players: " + s.players.length + " of " + s.seats + " seats taken" : "";
  // The rules' table (the state's `table`): a headline, what just happened, and below
  // its track, balances, cups and cards; without one (or when it failed) the view is
  // drawn field by field.
  const t = s.table && !s.table.error ? s.table : null;
  $("headline").textContent = t && s.phase === "playing" ? t.headline || "" : "";
  $("last").textContent = t && t.last ? t.last : "";
  $("turn").textContent = s.phase === "playing" && s.current
    ? (t && t.turn) || (seat && s.current === seat.name ? "Your turn" : s.current + "'s turn") : "";
  showBanner(s, t);
  $("turn").dataset.current = s.current || "";
  $("status-line").textContent = t ? "" : s.status || "";

  const players = $("players");
  players.replaceChildren();
  for (const p of s.players) {
    const li = document.createElement("li");
    li.dataset.name = p.name;
    li.classList.toggle("current", !!p.current);
    li.classList.toggle("offline", !p.connected);
    li.classList.toggle("out", !!p.out);
    li.textContent = p.name + (p.score !== undefined ? " · " + p.score : "")
      + (seat && p.name === seat.name ? " (you)" : "") + (p.connected ? "" : " (offline)");
    // (p.summary, the designer's `state` line, is not drawn: the scoreboard shows the
    // view's fields without the host's values - timer handles, seats.)
    players.appendChild(li);
  }
  $("spectators").textContent = s.spectators ? s.spectators + " watching" : "";

  // A game without dice (the rules say dice = false) draws none and has no Roll button.
  const hasDice = s.rules.hasDice !== false;
  const dice = $("dice");
  let caption = "";
  dice.replaceChildren();
  dice.hidden = !hasDice;
  // The die's faces only while the rules light one (a game without LEDs shows none).
  $("leds").hidden = !hasDice || !(s.leds || []).some((c) => /^#[0-9a-f]{6}$/.test(c) && c !== "#000000");
  if (hasDice && s.lastRoll && s.lastRoll.hidden) {
    for (let i = 0; i < s.lastRoll.dice; i++) dice.appendChild(DiceTable.dieBack(false));
    dice.title = s.lastRoll.player + " rolled under the cup";
    caption = (seat && s.lastRoll.player === seat.name ? "You" : s.lastRoll.player) + " rolled under the cup";
  } else if (hasDice && s.lastRoll) {
    if (s.lastRoll.flag !== "ok") { const d = drawDie(s.lastRoll.flag, null); dice.appendChild(d); }
    for (const v of s.lastRoll.values) dice.appendChild(drawDie(v, s.leds && s.leds[v - 1]));
    dice.title = s.lastRoll.player + " rolled " + s.lastRoll.total;
    const mine = seat && s.lastRoll.player === seat.name;
    caption = s.lastRoll.flag !== "ok"
      ? (mine ? "Your" : s.lastRoll.player + "'s") + " roll did not count (" + s.lastRoll.flag + ")"
      : (mine ? "You" : s.lastRoll.player) + " rolled " + s.lastRoll.total;
  }
  $("dice-caption").textContent = caption;
  // The rules' view for this seat: a scoreboard of the players' public fields, the
  // other fields by kind; the raw data only behind the details toggle.
  const me = seat ? seat.name : null;
  const view = s.view;
  const hasPlayersView = view && Array.isArray(view.players);
  const drawn = DiceTable.drawTable($("drawn-table"), t);
  DiceTable.scoreboard($("scoreboard"), hasPlayersView && !drawn ? view.players : null, s, me, s.leds, shownDice);
  DiceTable.fields($("table-fields"), drawn ? null : view, s.leds);
  $("raw-view").textContent = view === undefined ? "" : JSON.stringify(view, null, 2);
  const leds = $("leds");
  leds.replaceChildren();
  (s.leds || []).forEach((color, i) => {
    const led = document.createElement("span");
    led.className = "led";
    led.style.background = /^#[0-9a-f]{6}$/.test(color) ? color : "#000";
    led.textContent = String(i + 1);
    leds.appendChild(led);
  });

  const seated = !!seat;
  $("start").hidden = !(seated && s.phase === "waiting" && s.players.length >= s.rules.minPlayers);
  $("restart").hidden = !(seated && s.phase === "over");
  $("die-menu").hidden = !hasDice;
  $("controls").hidden = !seated;
  $("roll").hidden = !hasDice;
  const myTurn = s.phase === "playing" && (!s.current || (seat && s.current === seat.name));
  // The rules' table may name the roll ("Roll your cup") or say none is taken now.
  $("roll").disabled = !myTurn || (t !== null && t.roll === false);
  $("roll").textContent = t && typeof t.roll === "string" ? t.roll : "Roll";
  // The moves this seat may make now (`moves`): a button, a button per value, or a
  // picker per action, disabled when it is not this seat's move; the free-text box only
  // for actions whose moves the rules do not list.
  const playing = s.phase === "playing";
  const sides = hasDice ? Number((s.rules.dice || "").split("d")[1]) || 0 : 0;
  const free = MovePicker.draw($("actions"), s.rules.actions, s.moves, s.rules.choices || {}, playing, sides, act);
  $("action-args").parentElement.hidden = !(playing && free.length > 0);

  // A countdown in the rules' words ("Bob's card turns itself in 4 s"); the host's next
  // timer (a turn pulse as much as a deadline) means nothing to a player by itself.
  if (t && t.countdown && s.phase === "playing") {
    timer.deadline = performance.now() + t.countdown.ms;
    timer.text = t.countdown.text;
  } else {
    timer.deadline = null;
  }
  tickTimer();
}

function tickTimer() {
  clearTimeout(timer.handle);
  if (timer.deadline === null) { $("timer").textContent = ""; return; }
  const left = Math.max(0, timer.deadline - performance.now());
  $("timer").textContent = timer.text + " in " + Math.ceil(left / 1000) + " s";
  if (left > 0) timer.handle = setTimeout(tickTimer, 100);
}

/// The end of the game in this seat's words: the rules' `result`, else who won.
function showBanner(s, t) {
  const over = s.phase === "over";
  $("banner").hidden = !over;
  if (!over) return;
  const me = seat ? seat.name : null;
  let text = t && t.result;
  if (!text) {
    const won = /^(.*) won$/.exec(s.outcome || ""), lost = /^(.*) lost$/.exec(s.outcome || "");
    if (won) text = won[1] === me ? "You won" : won[1] + " won";
    else if (lost) text = lost[1] === me ? "You lost" : lost[1] + " lost";
    else text = s.outcome === "a draw" ? "A draw" : "Game over";
  }
  $("banner-text").textContent = text;
  $("banner").classList.toggle("you-won", /^You (won|reached)/.test(text));
}

function parseArgs(text) {
  return text.trim().split(/\s+/).filter((w) => w.length > 0).map(MovePicker.parseWord);
}

/// Sends an action: `args` from a control, or (null) the words of the free-text box.
function act(name, args) {
  notice("");
  send({ type: "action", seq: nextSeq(), name, args: args || parseArgs($("action-args").value) });
}

// ---- wiring ----
$("name").value = localStorage.getItem("dicehost.name") || "";
$("create-rules").onchange = fillParams;
$("create-form").onsubmit = createRoom;
$("refresh").onclick = () => send({ type: "rooms" });
$("roll").onclick = () => { notice(""); send({ type: "roll", seq: nextSeq() }); };
$("start").onclick = () => send({ type: "start", seq: nextSeq() });
$("restart").onclick = () => send({ type: "restart", seq: nextSeq() });
$("leave").onclick = () => { if (room) localStorage.removeItem(seatKey(room)); send({ type: "leave" }); };

// ---- Pixels hook (pixels.js): a Pixels die for this seat ----
const pixelsTable = window.attachPixelsToTable ? window.attachPixelsToTable({
  button: $("pixels-connect"),
  status: $("pixels-status"),
  sides: () => Number(((lastState && lastState.rules.dice) || "1d6").split("d")[1]) || 6,
  sendRoll: (values, flag) => { notice(""); send(flag ? { type: "roll", seq: nextSeq(), flag } : { type: "roll", seq: nextSeq(), values }); },
  notice,
  seatName: () => (seat ? seat.name : null),
}) : null;
// ---- end of the Pixels hook ----
connect();
