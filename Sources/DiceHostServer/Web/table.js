// Drawing a seat's view (docs/protocol.md, "Per-seat messages") as a table: host values
// by their kind - rolls as dice faces (in the LED colours the rules set), cards as cards,
// hidden things as backs with a count - and the players as a scoreboard of their public
// fields. Only what the server sent for this seat is drawn; every text goes in with
// textContent, never as HTML.
"use strict";

const DiceTable = (() => {
  const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
  const RED_SUITS = new Set(["♥", "♦"]);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // `mark`: "counted" (a die that counted at a reveal) or "wild" (one that counted as wild).
  function die(value, led, small, mark) {
    const d = el("div", "die" + (small ? " small" : "") + (mark ? " " + mark : ""));
    d.dataset.value = value;
    d.setAttribute("role", "img");
    d.setAttribute("aria-label", (PIPS[value] ? "die showing " + value : String(value)) + (mark === "wild" ? ", wild, counted" : mark ? ", counted" : ""));
    if (led && /^#[0-9a-f]{6}$/.test(led) && led !== "#000000") d.style.setProperty("--led", led);
    if (PIPS[value]) {
      for (let cell = 0; cell < 9; cell++) d.appendChild(el("span", PIPS[value].includes(cell) ? "pip" : ""));
    } else {
      d.classList.add("big");
      d.textContent = String(value);
    }
    return d;
  }

  function dieBack(small) {
    const d = el("div", "die back" + (small ? " small" : ""));
    d.dataset.hidden = "true";
    d.setAttribute("role", "img");
    d.setAttribute("aria-label", "a hidden die");
    return d;
  }

  function card(c) {
    const e = el("span", "card" + (RED_SUITS.has(c.suit) ? " red" : ""), c.text || "?");
    e.dataset.card = c.text || "";
    return e;
  }

  const isKind = (v, kind) => v !== null && typeof v === "object" && !Array.isArray(v) && v.kind === kind;

  // A value of the view as elements: dice, cards, backs, or text.
  function value(v, leds) {
    if (v === null || v === undefined) return el("span", "muted", "–");
    if (isKind(v, "roll")) {
      const g = el("span", "group roll");
      if (v.flag && v.flag !== "ok") { g.appendChild(el("span", "", v.flag)); return g; }
      for (const x of v.values || []) g.appendChild(die(x, leds && leds[x - 1], true));
      return g;
    }
    if (isKind(v, "card")) return card(v);
    if (isKind(v, "hidden")) {
      const g = el("span", "group hidden");
      g.dataset.hiddenCount = v.count;
      const shown = Math.min(v.count, 6);
      for (let i = 0; i < shown; i++) g.appendChild(v.what === "cards" ? el("span", "card back", "") : dieBack(true));
      g.appendChild(el("span", "count", v.count + " " + v.what + " hidden"));
      return g;
    }
    if (Array.isArray(v)) {
      if (v.length > 0 && v.every((x) => isKind(x, "card"))) {
        const g = el("span", "group cards");
        for (const c of v) g.appendChild(card(c));
        return g;
      }
      const g = el("span", "group");
      v.forEach((x, i) => { if (i > 0) g.appendChild(document.createTextNode(", ")); g.appendChild(value(x, leds)); });
      return g;
    }
    if (typeof v === "object") {
      const g = el("span", "group");
      for (const [k, x] of Object.entries(v)) {
        if (!shownField(k, x)) continue;
        const f = el("span", "field");
        f.appendChild(el("span", "key", k));
        f.appendChild(value(x, leds));
        g.appendChild(f);
      }
      return g;
    }
    if (typeof v === "boolean") return el("span", "", v ? "yes" : "no");
    return el("span", "", String(v));
  }

  // The players of a view (v.players, a list of tables with a name) as a scoreboard:
  // one column per field any of them has, and a "shown" column with the dice players
  // revealed (`shown`: values by name, from the reveal events) until the next roll.
  function scoreboard(table, players, state, me, leds, shown) {
    table.replaceChildren();
    if (!Array.isArray(players) || players.length === 0 || !players.every((p) => p && typeof p === "object" && "name" in p)) {
      table.hidden = true;
      return;
    }
    table.hidden = false;
    const columns = [];
    for (const p of players) {
      for (const [k, v] of Object.entries(p)) if (k !== "name" && k !== "out" && shownField(k, v) && !columns.includes(k)) columns.push(k);
    }
    const showing = shown && players.some((p) => Array.isArray(shown[p.name]));
    const head = el("tr");
    head.appendChild(el("th", "", "player"));
    for (const c of columns) head.appendChild(el("th", "", c));
    if (showing) head.appendChild(el("th", "", "shown"));
    table.appendChild(head);
    for (const p of players) {
      const tr = el("tr");
      tr.dataset.name = p.name;
      tr.classList.toggle("current", state.current === p.name && state.phase === "playing");
      tr.classList.toggle("you", p.name === me);
      tr.classList.toggle("out", !!p.out);
      tr.appendChild(el("td", "", p.name));
      for (const c of columns) {
        const td = el("td");
        td.dataset.field = c;
        td.appendChild(value(p[c], leds));
        tr.appendChild(td);
      }
      if (showing) {
        const td = el("td");
        td.dataset.field = "shown";
        const values = shown[p.name];
        const g = value(Array.isArray(values) ? { kind: "roll", values, flag: "ok" } : null, leds);
        if (Array.isArray(values)) {
          g.classList.add("shown");
          g.title = p.name + " showed these; they go back under the cup at the next roll";
        }
        td.appendChild(g);
        tr.appendChild(td);
      }
      table.appendChild(tr);
    }
  }

  // The other fields of the view (not players, not who it is for) as labelled values.
  function fields(box, view, leds) {
    box.replaceChildren();
    if (!view || typeof view !== "object" || Array.isArray(view)) return;
    // A game without a view sends {state, players}: g.state's fields are the game's.
    const entries = Object.entries(view).flatMap(([k, v]) =>
      k === "state" && v && typeof v === "object" && !Array.isArray(v) ? Object.entries(v) : [[k, v]]);
    for (const [k, v] of entries) {
      if (!shownField(k, v)) continue;
      // An object all of whose fields are the host's (timer handles) says nothing.
      if (v && typeof v === "object" && !Array.isArray(v) && !v.kind && !Object.entries(v).some(([a, b]) => shownField(a, b))) continue;
      const f = el("div", "field");
      f.dataset.field = k;
      f.appendChild(el("span", "key", k));
      f.appendChild(value(v, leds));
      box.appendChild(f);
    }
  }

  // ---- the rules' table (the state's `table`, docs/scripting.md "The table") ----

  // A host value that is no part of the game a player would name: a timer handle
  // ({id: 14}), a seat number, a flag that is off.
  const isTimerHandle = (v) => v !== null && typeof v === "object" && !Array.isArray(v)
    && Object.keys(v).length === 1 && Number.isInteger(v.id);
  const HOST_KEYS = new Set(["seat", "players", "you", "params", "last_roll", "eliminated"]);
  function shownField(k, v) {
    return !HOST_KEYS.has(k) && v !== null && v !== false && !isTimerHandle(v);
  }

  function row(name, note) {
    const r = el("div", "row");
    r.appendChild(el("span", "who", name));
    if (note) r.appendChild(el("span", "note", note));
    return r;
  }

  function diceOf(d, counted, wild) {
    const g = el("span", "group");
    const counts = (x) => Array.isArray(counted) && counted.includes(x);
    const isWild = (x) => Array.isArray(wild) && wild.includes(x);
    if (d && Number.isInteger(d.hidden)) {
      g.classList.add("hidden");
      g.dataset.hiddenCount = d.hidden;
      for (let i = 0; i < Math.min(d.hidden, 6); i++) g.appendChild(dieBack(true));
      if (d.hidden > 6) g.appendChild(el("span", "count", "+" + (d.hidden - 6)));
    } else if (d && Array.isArray(d.values)) {
      for (const x of d.values) g.appendChild(die(x, null, true, isWild(x) ? "wild" : counts(x) ? "counted" : null));
    }
    return g;
  }

  // The row names of a table are the players' ("Ann (you)" for the seat's own).
  const seatOf = (label, names) => {
    const name = String(label).replace(/ \(you\)$/, "");
    return names && names.includes(name) ? name : null;
  };

  // The table as elements: what belongs to a player (their balance, cup, cards, place on
  // the track) in `seats[name]`, to be drawn at their seat; the pot in `potBox`; any
  // other row in `box`. Returns whether there was a table to draw.
  function drawTable(box, t, names, seats, potBox) {
    box.replaceChildren();
    if (potBox) potBox.replaceChildren();
    if (!t || typeof t !== "object" || t.error) return false;
    const put = (label, element) => {
      const name = seatOf(label, names);
      if (!name || !seats) return false;
      // At the seat, its name is already said.
      const who = element.querySelector(":scope > .who");
      if (who) who.remove();
      (seats[name] = seats[name] || []).push(element);
      return true;
    };
    if (t.pot && t.pot.value !== undefined) {
      const pot = el("div", "pot");
      pot.appendChild(el("span", "key", t.pot.label || "Pot"));
      pot.appendChild(el("span", "amount", String(t.pot.value)));
      (potBox || box).appendChild(pot);
    }
    if (t.track && Array.isArray(t.track.marks) && t.track.target > 0) {
      const track = el("div", "track");
      const label = el("div", "key", (t.track.label || "Target") + ": " + t.track.target);
      for (const m of t.track.marks) {
        const at = Number(m.at);
        const r = row(m.name, at >= t.track.target ? "reached " + t.track.target : at + " of " + t.track.target);
        r.classList.add("track");
        const bar = el("div", "bar");
        bar.setAttribute("role", "progressbar");
        bar.setAttribute("aria-label", m.name + "'s progress");
        bar.setAttribute("aria-valuemin", "0");
        bar.setAttribute("aria-valuemax", String(t.track.target));
        bar.setAttribute("aria-valuenow", String(Math.min(at, t.track.target)));
        const fill = el("div", "fill");
        fill.style.width = Math.max(0, Math.min(100, (100 * at) / t.track.target)) + "%";
        bar.appendChild(fill);
        r.insertBefore(bar, r.lastChild);
        if (!put(m.name, r)) track.appendChild(r);
      }
      // The marks at the seats: the target in the middle of the table.
      if (track.childElementCount === 0 && potBox) potBox.appendChild(label);
      else { track.prepend(label); box.appendChild(track); }
    }
    // Balances, cups and card stacks: a row per player, its name, what the row shows, a note.
    function rows(items, kind, middle) {
      if (!Array.isArray(items) || items.length === 0) return;
      const list = el("div", kind);
      for (const item of items) {
        const r = row(item.name, item.note);
        r.classList.add(kind);
        r.insertBefore(middle(item), r.children[1] || null);
        if (!put(item.name, r)) list.appendChild(r);
      }
      if (list.childElementCount > 0) box.appendChild(list);
    }
    rows(t.balances, "balances", (b) => el("span", "amount", String(b.value)));
    rows(t.cups, "cups", (c) => diceOf(c.dice, c.counted, c.wild));
    rows(t.cards, "stacks", (c) => {
      const g = el("span", "group cards");
      if (c.facedown > 0) {
        const back = el("span", "card back", "");
        back.title = c.facedown + " face down";
        back.setAttribute("aria-label", c.facedown + " cards face down");
        g.appendChild(back);
      }
      for (const x of c.open || []) g.appendChild(card(x));
      return g;
    });
    return true;
  }

  // The seats around the table: this seat at the bottom, the others clockwise from its
  // left (left, across, right); each with its name, how the player is (whose turn, left
  // the table, the bot playing, offline, ready for another game) and the rules' rows for
  // that player (`parts`). Each seat says in words what its marks show.
  function seats(ul, state, me, parts) {
    ul.replaceChildren();
    const players = state.players || [];
    const mine = players.findIndex((p) => p.name === me);
    const first = mine >= 0 ? mine : 0;
    const ordered = players.slice(first).concat(players.slice(0, first));
    const others = ordered.slice(1);
    const n = others.length;
    const place = (i) => {
      if (n <= 2) return "top";
      if (i === 0) return "left";
      if (i === n - 1) return "right";
      return "top";
    };
    const across = others.filter((_, i) => place(i) === "top").length;
    const columns = { 1: ["2"], 2: ["1", "3"], 3: ["1", "2", "3"] }[across] || [];
    let top = 0;
    ordered.forEach((p, index) => {
      const li = el("li", "seat");
      li.dataset.name = p.name;
      li.dataset.place = index === 0 ? "bottom" : place(index - 1);
      if (li.dataset.place === "top") li.style.gridColumn = columns[top++] || "auto";
      const current = state.phase === "playing" && state.current === p.name;
      li.classList.toggle("current", current);
      li.classList.toggle("you", p.name === me);
      li.classList.toggle("offline", !p.connected && !p.left);
      li.classList.toggle("left", !!p.left);
      li.classList.toggle("out", !!p.out);
      const head = el("div", "seat-name");
      head.appendChild(el("span", "who", p.name));
      if (p.name === me) head.appendChild(el("span", "badge", "you"));
      if (current) head.appendChild(el("span", "badge turn", p.name === me ? "your turn" : "to play"));
      li.appendChild(head);
      const marks = [];
      if (p.left) marks.push("left the table");
      else if (!p.connected) marks.push("offline");
      if (p.botPlaying) marks.push("the bot plays for " + p.name);
      if (state.phase === "over" && p.ready) marks.push("ready for another game");
      const own = (parts && parts[p.name]) || [];
      // Out: the rules' own row says so where there is one.
      if (p.out && own.length === 0) marks.push("out");
      if (marks.length) li.appendChild(el("div", "seat-status", marks.join(" · ")));
      for (const part of (parts && parts[p.name]) || []) li.appendChild(part);
      ul.appendChild(li);
    });
  }

  return { die, dieBack, value, scoreboard, fields, drawTable, seats, shownField };
})();
