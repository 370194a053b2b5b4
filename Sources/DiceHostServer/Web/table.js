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

  function die(value, led, small) {
    const d = el("div", "die" + (small ? " small" : ""));
    d.dataset.value = value;
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
    for (const p of players) for (const k of Object.keys(p)) if (k !== "name" && k !== "out" && !columns.includes(k)) columns.push(k);
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
    for (const [k, v] of Object.entries(view)) {
      if (k === "players" || k === "you" || k === "params" || v === null) continue;
      const f = el("div", "field");
      f.dataset.field = k;
      f.appendChild(el("span", "key", k));
      f.appendChild(value(v, leds));
      box.appendChild(f);
    }
  }

  return { die, dieBack, value, scoreboard, fields };
})();
