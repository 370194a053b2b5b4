// The moves a seat may make now (the state's `moves`, docs/protocol.md) as controls:
// an action without arguments is one button; an action of one argument a button per
// value; an action of several (Liar's Dice's bid: quantity, face) a picker - one choice
// per argument, only the values that make a legal move with the ones chosen before
// selectable - and one button that sends the move. An action with no move for this seat
// (another seat's turn) is drawn disabled. Every text goes in with textContent.
"use strict";

const MovePicker = (() => {
  // The argument values picked per action, kept across redraws (a state arrives with
  // every event) while they still make a legal move.
  const picked = Object.create(null);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // An action's name as a button's word: "call" reads "Call".
  const word = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  function actionButton(name, text, enabled, onclick) {
    const b = el("button", "move", word(text));
    b.type = "button";
    b.dataset.action = name;
    b.disabled = !enabled;
    b.onclick = onclick;
    return b;
  }

  const DIE_FACES = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
  const same = (a, b) => a === b;
  // Values by identity in Sets (a list may hold up to 10,000 moves): 2 and "2" differ.
  const key = (v) => typeof v + ":" + String(v);
  const keys = (values) => new Set(values.map(key));
  const distinct = (values) => Array.from(new Map(values.map((v) => [key(v), v])).values());
  const sorted = (values) => values.slice().sort((a, b) =>
    typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b)));

  // The moves that agree with `chosen` on its first `k` arguments.
  const agreeing = (moves, chosen, k) => moves.filter((m) => chosen.slice(0, k).every((v, i) => same(m[i], v)));

  // An argument is drawn as die faces when the game has dice and it is the last of
  // several whose values are all faces of the die (the face of a bid, after its quantity).
  function isFaceArgument(moves, k, width, sides) {
    return sides > 0 && width > 1 && k === width - 1
      && moves.every((m) => Number.isInteger(m[k]) && m[k] >= 1 && m[k] <= sides);
  }

  // `chosen` made legal: each argument kept when some move still agrees, else the first
  // value that does.
  function settle(moves, chosen, width) {
    const out = [];
    for (let k = 0; k < width; k++) {
      const options = agreeing(moves, out, k).map((m) => m[k]);
      out.push(options.some((v) => same(v, chosen[k])) ? chosen[k] : options[0]);
    }
    return out;
  }

  // A picker for an action whose moves have `width` arguments each.
  function picker(name, moves, width, sides, send) {
    const group = el("span", "choices picker");
    group.dataset.action = name;
    let chosen = settle(moves, picked[name] || [], width);
    const rows = [];
    const go = actionButton(name, name, true, () => send(name, chosen.slice()));
    const faceArguments = new Set();
    // The button names the move it sends: "bid 3 ⚄".
    const redraw = () => {
      chosen = settle(moves, chosen, width);
      picked[name] = chosen.slice();
      rows.forEach((draw) => draw());
      go.textContent = [word(name)].concat(chosen.map((v, k) => faceArguments.has(k) ? DIE_FACES[v - 1] : String(v))).join(" ");
    };
    for (let k = 0; k < width; k++) {
      const domain = sorted(distinct(moves.map((m) => m[k])));
      if (isFaceArgument(moves, k, width, sides) && sides <= 6) {
        faceArguments.add(k);
        const faces = el("span", "faces");
        faces.dataset.argument = String(k + 1);
        const buttons = domain.map((v) => {
          const b = el("button", "face");
          b.type = "button";
          b.dataset.value = String(v);
          b.setAttribute("aria-label", "face " + v);
          b.appendChild(DiceTable.die(v, null, true));
          b.onclick = () => { chosen[k] = v; redraw(); };
          faces.appendChild(b);
          return b;
        });
        rows.push(() => {
          const legal = keys(agreeing(moves, chosen, k).map((m) => m[k]));
          buttons.forEach((b, i) => {
            b.disabled = !legal.has(key(domain[i]));
            b.classList.toggle("chosen", same(domain[i], chosen[k]));
            b.setAttribute("aria-pressed", same(domain[i], chosen[k]) ? "true" : "false");
          });
        });
        group.appendChild(faces);
      } else {
        const select = el("select", "argument");
        select.dataset.argument = String(k + 1);
        select.setAttribute("aria-label", name + " argument " + (k + 1));
        domain.forEach((v, i) => {
          const option = el("option", "", String(v));
          option.value = String(i);
          select.appendChild(option);
        });
        select.onchange = () => { chosen[k] = domain[Number(select.value)]; redraw(); };
        rows.push(() => {
          const legal = keys(agreeing(moves, chosen, k).map((m) => m[k]));
          Array.from(select.options).forEach((o, i) => { o.disabled = !legal.has(key(domain[i])); });
          select.value = String(domain.findIndex((v) => same(v, chosen[k])));
        });
        group.appendChild(select);
      }
    }
    group.appendChild(go);
    redraw();
    return group;
  }

  // Draws the controls of `actions` into `box`. `moves` is the state's (undefined: the
  // server listed none, e.g. before the game); `staticChoices` the rules' fixed values
  // (drawn disabled off-turn so the row keeps its shape). Returns the actions whose
  // moves cannot be listed: they take their arguments from the free-text box.
  function draw(box, actions, moves, staticChoices, playing, sides, send) {
    box.replaceChildren();
    const free = [];
    for (const name of actions) {
      const listed = moves && Array.isArray(moves[name]) ? moves[name] : null;
      const values = Array.isArray(staticChoices[name]) ? staticChoices[name] : [];
      if (!listed) {
        if (values.length > 0) {
          box.appendChild(valueButtons(name, values.slice(0, 60).map((v) => [parseWord(String(v))]), false, playing, send));
        } else {
          free.push(name);
          box.appendChild(actionButton(name, name, playing, () => send(name, null)));
        }
        continue;
      }
      const width = listed.length > 0 ? Math.max(...listed.map((m) => m.length)) : null;
      if (listed.length === 0 && values.length > 0 && !values.some((v) => /\s/.test(String(v)))) {
        // Not this seat's move now: the fixed values, disabled.
        box.appendChild(valueButtons(name, values.slice(0, 60).map((v) => [parseWord(String(v))]), true, false, send));
      } else if (listed.length === 0 || width === 0) {
        box.appendChild(actionButton(name, name, playing && listed.length > 0, () => send(name, [])));
      } else if (width === 1 && listed.length <= 60) {
        box.appendChild(valueButtons(name, listed, true, playing, send));
      } else {
        box.appendChild(picker(name, listed.filter((m) => m.length === width), width, sides, send));
      }
    }
    return free;
  }

  // A button per one-argument move (the rules' fixed choices, or the listed moves).
  function valueButtons(name, moves, listed, enabled, send) {
    const group = el("span", "choices");
    group.dataset.action = name;
    group.appendChild(el("span", "label", word(name)));
    for (const m of moves) {
      const b = el("button", "small choice", String(m[0]));
      b.type = "button";
      b.dataset.choice = String(m[0]);
      b.disabled = !enabled;
      b.onclick = () => send(name, m.slice());
      group.appendChild(b);
    }
    if (listed) group.dataset.listed = "true";
    return group;
  }

  // A word typed as the prompt types it (docs/scripting.md, "Action arguments").
  function parseWord(w) {
    if (/^-?\d+(\.\d+)?$/.test(w)) return Number(w);
    if (w === "true") return true;
    if (w === "false") return false;
    return w;
  }

  return { draw, parseWord };
})();
