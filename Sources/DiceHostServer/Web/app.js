// DiceHost browser table. Speaks docs/protocol.md over one WebSocket. Every text from
// the server (rule scripts, player names) is put on the page with textContent, never
// as HTML.
"use strict";

const PROTOCOL = 2;  // version 2: the acting seat's input is acknowledged in its "events" message (docs/protocol.md)
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// ?dev=1: the designer's page - the raw view, the die's LED faces, the rules' designer
// actions and the host's events (emits) in the log. Players see the game only.
const DEV = params.get("dev") === "1";

let ws = null;
let rules = [];
let room = params.get("room");       // the room this page is at
let seat = null;                     // {name, token} when seated here
let spectating = false;
let pending = [];                    // messages to send once the server said hello
// The countdowns shown: the rules' own (`countdown`) and the room's turn clock.
let timer = { deadline: null, handle: null, parts: [] };
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
      // owned-elsewhere, and the next try then waits longer.
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
      if (m.cause) addCause(m.cause);
      addEvents(m.first, m.events);
      showState(m.state, m.events);
      break;
    case "reloaded":
      notice("The rules were reloaded (" + m.files + "): the game goes on under the new rules.", "info");
      break;
    case "ack": break;  // also "ack" inside "events" (version 2): the page keeps no inputs to resend
    // Left the table: the seat and its token stay (the bot plays it): this room's card in
    // the lobby offers the seat back.
    case "left": seat = null; spectating = false; showLobby(); send({ type: "rooms" }); break;
    case "error":
      // A seat the server does not know, or a room a restart could not reopen (the message says why).
      if (m.code === "bad-token" || (m.code === "no-room" && room)) { localStorage.removeItem(seatKey(room)); seat = null; showLobby(); }
      // The room is (or was) another server process's: reconnecting reaches its owner, or
      // takes it over once the lease lapses (the server closes the connection on `moved`).
      if (m.code === "owned-elsewhere" && ws) ws.close();
      // A seat nobody can play for blocks the game: everyone is told, and may abandon it.
      if (m.code === "seat-blocked") { notice(m.message, "info"); addLogLine(m.message, "ev-cause"); break; }
      notice(m.message, "error");
      addLogLine("Refused: " + m.message, "error");
      break;
  }
}

// ---- lobby ----
function myName() { return $("name").value.trim(); }

const playersText = (r) => r.minPlayers === r.maxPlayers
  ? r.minPlayers + (r.minPlayers === 1 ? " player" : " players")
  : r.minPlayers + "–" + r.maxPlayers + " players";

function fillRules() {
  const select = $("create-rules");
  const chosen = select.value;
  select.replaceChildren();
  for (const r of rules) {
    const option = document.createElement("option");
    option.value = r.file;
    option.textContent = r.name + " (" + playersText(r) + ")";
    select.appendChild(option);
  }
  if (chosen) select.value = chosen;
  fillParams();
  showJoinCard();
}

/// The chosen game's params in its own words (`paramInfo`): a checkbox for on/off, a menu
/// for a choice, a slider for a range, a box otherwise; the bots' knobs are not offered.
function fillParams() {
  const r = rules.find((x) => x.file === $("create-rules").value);
  const box = $("create-params");
  box.replaceChildren();
  if (!r) return;
  const seats = $("create-seats");
  seats.min = r.minPlayers;
  seats.max = r.maxPlayers;
  seats.value = Math.max(r.minPlayers, Math.min(r.maxPlayers, Number(seats.value) || r.minPlayers));
  // A game for a fixed number of players asks nothing.
  $("create-seats-label").hidden = r.minPlayers === r.maxPlayers;
  const info = r.paramInfo || {};
  for (const [key, value] of Object.entries(r.params || {})) {
    const about = info[key] || { label: key, kind: value === "true" || value === "false" ? "toggle" : "text" };
    if (about.bot) continue;
    box.appendChild(paramControl(key, String(value), about));
  }
}

function paramControl(key, value, about) {
  const label = document.createElement("label");
  label.className = "param param-" + about.kind;
  const id = "param-" + key;
  const text = document.createElement("span");
  text.className = "param-label";
  text.textContent = about.label || key;
  let input;
  if (about.kind === "toggle") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value === "true";
    label.classList.add("check");
    label.append(input, " ", text);
  } else if (about.kind === "choice") {
    input = document.createElement("select");
    for (const choice of about.choices || []) {
      const option = document.createElement("option");
      option.value = option.textContent = String(choice);
      input.appendChild(option);
    }
    input.value = value;
    label.append(text, " ", input);
  } else if (about.kind === "range") {
    input = document.createElement("input");
    input.type = "range";
    input.min = about.min; input.max = about.max; input.step = about.step;
    input.value = value;
    const shown = document.createElement("output");
    shown.className = "param-value";
    shown.htmlFor = id;
    shown.textContent = value;
    input.oninput = () => { shown.textContent = input.value; };
    label.append(text, " ", shown, input);
  } else {
    input = document.createElement("input");
    input.value = value;
    label.append(text, " ", input);
  }
  input.id = id;
  input.dataset.param = key;
  if (about.description) {
    const note = document.createElement("span");
    note.className = "param-about";
    note.id = id + "-about";
    note.textContent = about.description;
    input.setAttribute("aria-describedby", note.id);
    label.appendChild(note);
  }
  return label;
}

/// A param's value as the server takes it (`--set` text): a checkbox says true or false.
function paramValue(input) { return input.type === "checkbox" ? (input.checked ? "true" : "false") : input.value; }

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
    if (savedSeat(r.room)?.token && r.phase !== "waiting") li.appendChild(button("Back to your seat", "join rejoin", () => rejoin(r.room)));
    else if (r.phase === "waiting") li.appendChild(button("Join", "join", () => joinRoom(r.room)));
    li.appendChild(button("Watch", "watch", () => { room = r.room; spectating = true; send({ type: "watch", room: r.room }); }));
    ul.appendChild(li);
  }
  if (room && !list.some((r) => r.room === room)) {
    const li = document.createElement("li");
    li.dataset.room = room;
    li.appendChild(button("Join room " + room, "join", () => joinRoom(room)));
    ul.appendChild(li);
  }
  roomsSeen = all;
  showJoinCard();
}

let roomsSeen = [];

/// The room this page's link names, as a card at the top of the lobby: join it (or take
/// the seat back), or watch.
function showJoinCard() {
  const card = $("join-card");
  if (!room || seat || spectating || $("lobby").hidden) { card.hidden = true; return; }
  const r = roomsSeen.find((x) => x.room === room);
  const mine = savedSeat(room)?.token;
  card.hidden = false;
  const game = r ? r.name : "a game";
  $("join-title").textContent = mine ? "Your seat at " + game : "Join " + game;
  $("join-about").textContent = r
    ? "Room " + room + " · " + (r.phase === "waiting" ? "waiting for players" : r.phase === "over" ? "finished" : "playing")
      + " · " + r.players.length + " of " + r.seats + " seats taken" + (r.players.length ? ": " + r.players.join(", ") : "")
    : "Room " + room;
  $("join-here").textContent = mine ? "Take my seat back" : "Join";
  $("join-here").hidden = !mine && r !== undefined && r.phase !== "waiting";
}

function rejoin(id) {
  const saved = savedSeat(id);
  if (!saved || !saved.token) return joinRoom(id);
  room = id;
  send({ type: "join", room: id, token: saved.token });
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
  for (const input of document.querySelectorAll("[data-param]")) params[input.dataset.param] = paramValue(input);
  const create = { type: "create", room: id, rules: $("create-rules").value, seats: Number($("create-seats").value), params };
  if ($("create-turn").value !== "") create.turnSeconds = Number($("create-turn").value);
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

function showLobby() {
  $("lobby").hidden = false; $("table").hidden = true;
  $("leave-confirm").hidden = true;
  document.title = "DiceHost";
  showJoinCard();
}
function showTable() { $("lobby").hidden = true; $("table").hidden = false; }

// ---- the table ----
function clearLog() { $("log").replaceChildren(); }

// The log reads newest first, in sentences; a new game (a `start` event) starts a fresh one.
function addEvents(first, events) {
  const log = $("log");
  // A seat receives only the events it may see, so `first` (the game's index of the
  // first event sent) does not number them one by one: they are counted in order.
  events.forEach((e) => {
    if (e.type === "start") clearLog();
    // The die's LED commands are drawn on the LED faces (designer mode), not written here.
    if (e.type === "led" || (e.type === "emit" && !DEV)) return;
    const li = document.createElement("li");
    li.dataset.index = log.querySelectorAll("li[data-index]").length;
    // Prefixed: an event's type is no style of the page's (a "led" line is no LED box).
    li.className = "ev-" + e.type + (e.to ? " private" : "") + (e.hidden ? " hidden" : "");
    li.textContent = describe(e);
    log.prepend(li);
  });
  log.scrollTop = 0;
}

/// A move the server made for a seat (its clock ran out, or its player left).
function addCause(cause) {
  // Every events message names its cause (a player's input, the clock); only a move the
  // server made for a seat (`by`) is news to the log.
  if (!cause || !cause.player || (cause.by !== "bot" && cause.by !== "skip")) return;
  const who = seat && cause.player === seat.name ? "you" : cause.player;
  addLogLine(cause.by === "skip" ? (who === "you" ? "Your" : who + "'s") + " turn was skipped"
    : "The bot plays for " + who, "ev-cause");
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
  $("log").prepend(li);
  $("log").scrollTop = 0;
}

const GLYPHS = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const faces = (values) => values.map((v) => GLYPHS[v - 1] || String(v)).join(" ");
const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

/// An event as a sentence for this seat. A sum is the rules' to say (in their own lines):
/// the page shows the dice.
function describe(e) {
  const me = seat ? seat.name : null;
  const who = (p) => (p === me ? "You" : p);
  switch (e.type) {
    case "start": return "A new game: " + e.players.join(", ");
    case "turn": return e.player === me ? "Your turn" : e.player + "'s turn";
    case "roll":
      if (e.hidden) return who(e.player) + " rolled " + plural(e.dice, "die", "dice") + " under the cup";
      return who(e.player) + " rolled " + (e.flag === "ok" ? faces(e.values) : "— it did not count (" + e.flag + ")");
    case "reveal": return who(e.player) + " showed " + faces(e.values);
    case "say": return e.text;
    case "led": return "die: " + e.command;
    case "emit": return e.name + " " + e.data;
    case "win": return e.player === me ? "You won!" : e.player + " won!";
    case "lose": return e.player === me ? "You lost" : e.player + " lost";
    case "draw": return "A draw";
    case "eliminate": return e.player === me ? "You are out" : e.player + " is out";
    case "abandoned": return "The game was abandoned";
    case "reload": return "The rules were reloaded: " + e.text;
    case "error": return "Error: " + e.text;
    default: return e.type;
  }
}

function drawDie(value, led) { return DiceTable.die(value, led, false); }

/// Whose turn it is, in the tab's title: a player in another tab sees "Your turn".
function showTitle(s) {
  const name = s.rules && s.rules.name ? s.rules.name : "DiceHost";
  let title = name + " · DiceHost";
  if (s.phase === "playing" && seat && s.current === seat.name) title = "▶ Your turn · " + name;
  else if (s.phase === "playing" && s.current) title = s.current + "'s turn · " + name;
  else if (s.phase === "over") title = "Game over · " + name;
  document.title = title;
}

function showState(s, events) {
  lastState = s;
  const me = seat ? seat.name : null;
  $("room-title").textContent = s.rules.name + " · room " + room;
  $("you").textContent = seat ? "You are " + seat.name + "." : "You are watching.";
  $("phase").textContent = s.phase === "waiting"
    ? "Waiting for players: " + s.players.length + " of " + s.seats + " seats taken" : "";
  showTitle(s);
  // The rules' table (the state's `table`): a headline, what just happened, and at each
  // seat its balance, cup, cards or place on the track; without one (or when it failed)
  // the view is drawn field by field below the table.
  const t = s.table && !s.table.error ? s.table : null;
  $("headline").textContent = t && s.phase === "playing" ? t.headline || "" : "";
  $("last").textContent = t && t.last ? t.last : "";
  $("turn").textContent = s.phase === "playing" && s.current
    ? (t && t.turn) || (seat && s.current === seat.name ? "Your turn" : s.current + "'s turn") : "";
  showBanner(s, t);
  $("turn").dataset.current = s.current || "";
  $("status-line").textContent = t ? "" : s.status || "";

  const names = s.players.map((p) => p.name);
  const parts = Object.create(null);
  const drawn = DiceTable.drawTable($("drawn-table"), t, names, parts, $("pot"));
  DiceTable.seats($("players"), s, me, parts);
  $("spectators").textContent = s.spectators ? plural(s.spectators, "person", "people") + " watching" : "";

  // A game without dice (the rules say dice = false) draws none and has no Roll button.
  const hasDice = s.rules.hasDice !== false;
  const dice = $("dice");
  let caption = "";
  dice.replaceChildren();
  // The last roll in the middle of the table, unless the rules' table draws the cups
  // (a secret roll's dice are at their seat, face down, and a reveal's face up).
  const cups = t && Array.isArray(t.cups) && t.cups.length > 0;
  dice.hidden = !hasDice || cups;
  // The die's faces only in designer mode, and only while the rules light one.
  $("leds").hidden = !DEV || !hasDice || !(s.leds || []).some((c) => /^#[0-9a-f]{6}$/.test(c) && c !== "#000000");
  const lastRoll = hasDice && !cups && s.phase === "playing" ? s.lastRoll : null;
  if (lastRoll && lastRoll.hidden) {
    for (let i = 0; i < lastRoll.dice; i++) dice.appendChild(DiceTable.dieBack(false));
    caption = (lastRoll.player === me ? "You" : lastRoll.player) + " rolled under the cup";
  } else if (lastRoll) {
    if (lastRoll.flag !== "ok") { const d = drawDie(lastRoll.flag, null); dice.appendChild(d); }
    for (const v of lastRoll.values) dice.appendChild(drawDie(v, DEV && s.leds && s.leds[v - 1]));
    const mine = lastRoll.player === me;
    caption = lastRoll.flag !== "ok"
      ? (mine ? "Your" : lastRoll.player + "'s") + " roll did not count (" + lastRoll.flag + ")"
      : (mine ? "You" : lastRoll.player) + " rolled";
  }
  $("dice-caption").textContent = caption;
  // A roll that just happened tumbles a moment (not under prefers-reduced-motion: style.css).
  const rolled = (events || []).filter((e) => e.type === "roll").map((e) => e.player);
  if (rolled.length) {
    for (const d of dice.querySelectorAll(".die")) d.classList.add("rolling");
    for (const name of rolled) {
      const place = Array.from($("players").children).find((li) => li.dataset.name === name);
      if (place) for (const d of place.querySelectorAll(".die")) d.classList.add("rolling");
    }
  }
  // Without the rules' table: the view's players as a scoreboard, its other fields by
  // kind; the raw data only in designer mode.
  const view = s.view;
  const hasPlayersView = view && Array.isArray(view.players);
  DiceTable.scoreboard($("scoreboard"), hasPlayersView && !drawn ? view.players : null, s, me, DEV ? s.leds : null, shownDice);
  DiceTable.fields($("table-fields"), drawn ? null : view, DEV ? s.leds : null);
  $("raw-details").hidden = !DEV;
  $("raw-view").textContent = !DEV || view === undefined ? "" : JSON.stringify(view, null, 2);
  const leds = $("leds");
  leds.replaceChildren();
  if (DEV) {
    (s.leds || []).forEach((color, i) => {
      const led = document.createElement("span");
      led.className = "led";
      led.style.background = /^#[0-9a-f]{6}$/.test(color) ? color : "#000";
      led.textContent = String(i + 1);
      leds.appendChild(led);
    });
  }

  const seated = !!seat;
  const mySeat = seated ? s.players.find((p) => p.name === me) : null;
  $("start").hidden = !(seated && s.phase === "waiting" && s.players.length >= s.rules.minPlayers);
  $("restart").hidden = !(seated && s.phase === "over");
  const ready = !!(mySeat && mySeat.ready);
  $("restart").disabled = ready;
  $("restart").textContent = ready ? "You are ready" : "Ready for another game";
  showReady(s);
  $("die-menu").hidden = !hasDice;
  $("controls").hidden = !seated;
  $("roll").hidden = !hasDice;
  const myTurn = s.phase === "playing" && (!s.current || (seat && s.current === seat.name));
  // The rules' table may name the roll ("Roll your cup") or say none is taken now.
  $("roll").disabled = !myTurn || (t !== null && t.roll === false);
  $("roll").textContent = t && typeof t.roll === "string" ? t.roll : "Roll";
  // The moves this seat may make now (`moves`): a button, a button per value, or a
  // picker per action, disabled when it is not this seat's move; the free-text box only
  // for actions whose moves the rules do not list. The rules' designer actions (a debug
  // print) only in designer mode.
  const playing = s.phase === "playing";
  const sides = hasDice ? Number((s.rules.dice || "").split("d")[1]) || 0 : 0;
  const designer = designerActions(s);
  const actions = DEV ? s.rules.actions : s.rules.actions.filter((a) => !designer.includes(a));
  const free = MovePicker.draw($("actions"), actions, s.moves, s.rules.choices || {}, playing, sides, act);
  for (const b of $("actions").querySelectorAll("[data-action]")) {
    if (designer.includes(b.dataset.action)) b.classList.add("designer");
  }
  $("action-args").parentElement.hidden = !(playing && free.length > 0);

  // A seat that blocks the game (left, or gone and its clock out) whose move nobody can
  // play: the server offers to end the game (`canAbandon`).
  $("abandon").hidden = !(seated && s.canAbandon);

  // A countdown: the room's turn clock ("Ann: 23 s, then the bot plays"), else the
  // rules' own ("Bob's card turns itself in 4 s"); the host's next timer (a turn pulse as
  // much as a deadline) means nothing to a player by itself.
  const clock = s.turnClock;
  timer.deadline = null;
  timer.parts = [];
  if (t && t.countdown && s.phase === "playing") {
    timer.parts.push({ deadline: performance.now() + t.countdown.ms, format: (n) => t.countdown.text + " in " + n + " s" });
  }
  if (clock && typeof clock.deadline === "number" && typeof s.clock === "number") {
    let format;
    if (s.phase === "over") format = (n) => "The next game starts in " + n + " s if enough players are ready";
    else if (clock.player && clock.player === me) format = (n) => "Your move: " + n + " s left";
    else if (clock.player) format = (n) => clock.player + " has " + n + " s to move";
    else format = (n) => n + " s left";
    timer.parts.push({ deadline: performance.now() + (clock.deadline - s.clock), format });
  }
  if (timer.parts.length) timer.deadline = Math.max(...timer.parts.map((p) => p.deadline));
  tickTimer();
}

/// The rules' designer-only actions (`designer_actions`, in the lobby's rules list).
function designerActions(s) {
  const r = rules.find((x) => x.file === s.rules.file);
  return r && Array.isArray(r.designerActions) ? r.designerActions : [];
}

/// Play again: who is ready, who is awaited.
function showReady(s) {
  const box = $("ready-status");
  if (s.phase !== "over") { box.textContent = ""; return; }
  const present = s.players.filter((p) => !p.left);
  const ready = present.filter((p) => p.ready).map((p) => p.name);
  const waiting = present.filter((p) => !p.ready).map((p) => p.name);
  box.textContent = ready.length === 0 ? "Another game starts when everyone is ready."
    : waiting.length === 0 ? "Everyone is ready." : "Ready: " + ready.join(", ") + " · waiting for " + waiting.join(", ");
}

function tickTimer() {
  clearTimeout(timer.handle);
  if (timer.deadline === null) { $("timer").textContent = ""; return; }
  const now = performance.now();
  $("timer").textContent = timer.parts.map((p) => p.format(Math.ceil(Math.max(0, p.deadline - now) / 1000))).join(" · ");
  if (timer.deadline > now) timer.handle = setTimeout(tickTimer, 250);
}

/// The end of the game in this seat's words: the rules' `result`, else who won.
function showBanner(s, t) {
  const over = s.phase === "over";
  $("banner").hidden = !over;
  if (!over) return;
  const me = seat ? seat.name : null;
  let text = s.outcome === "abandoned" ? "The game was abandoned" : t && t.result;
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
$("restart").onclick = () => send({ type: "ready", seq: nextSeq() });
$("abandon").onclick = () => send({ type: "abandon", seq: nextSeq() });
// Leaving asks first; the seat's token stays in this browser, so the player can come back.
$("leave").onclick = () => {
  if (!seat || !lastState || lastState.phase === "waiting") {
    // Before the game the seat is freed: its token is of no more use.
    if (room) localStorage.removeItem(seatKey(room));
    send({ type: "leave" });
    return;
  }
  $("leave-confirm").hidden = false;
  $("leave-no").focus();
};
$("leave-no").onclick = () => { $("leave-confirm").hidden = true; $("leave").focus(); };
$("leave-yes").onclick = () => { $("leave-confirm").hidden = true; send({ type: "leave" }); };
$("join-here").onclick = () => (savedSeat(room)?.token ? rejoin(room) : joinRoom(room));
$("watch-here").onclick = () => { spectating = true; send({ type: "watch", room }); };
// The invite: a link that opens this room's card in the lobby.
$("invite").onclick = async () => {
  const link = location.origin + "/?room=" + encodeURIComponent(room);
  let copied = false;
  try { await navigator.clipboard.writeText(link); copied = true; } catch (e) { copied = false; }
  $("invite-status").textContent = copied ? "Link copied" : link;
};
$("dev-badge").hidden = !DEV;

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
