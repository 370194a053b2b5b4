// A Pixels die (GameWithPixels) in the browser, over Chromium's Web Bluetooth: a small
// codec for the messages the table needs and a connection object.
//
//   const die = new PixelsDie({ sides: 6, minimumRollMs: 300 });
//   die.onRoll = (face, flag) => …        // face 1…6 and "ok", or null and "tilt"/"too_short"
//   die.onRollState = (state) => …        // "handling", "rolling", "rolled", "crooked", "on_face"
//   die.onBattery = (percent, charging) => …
//   die.onDisconnect = (reason) => …
//   die.onSignal = (dBm) => …
//   await die.connect();                  // asks the user to pick a die; resolves after IAmADie
//   await die.blink({ count: 5, duration: 750, color: 0x00ff00, faceMask: 0x08 });
//   await die.ledEvent({ command: "blink 4 green on=100ms cycle=50ms count=5 priority=0", … });
//
// The layouts are those of the "Pixels Communications Protocol" (GameWithPixels) and the
// firmware's bluetooth_messages.h, as DiceHost's Swift PixelsMessage reads them: first
// byte the id, then the fields in order, little-endian. See docs/embedding.md.
"use strict";

const PixelsProtocol = (() => {
  const SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e";
  const NOTIFY = "6e400001-b5a3-f393-e0a9-e50e24dcca9e";
  const WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e";
  const ID = {
    whoAreYou: 1, iAmADie: 2, rollState: 3, blink: 29, blinkAck: 30,
    requestBatteryLevel: 33, batteryLevel: 34, requestRssi: 35, rssi: 36, stopAllAnimations: 59,
  };
  const SIZE = { 1: 1, 2: 22, 3: 3, 29: 14, 30: 1, 33: 1, 34: 3, 35: 4, 36: 2, 59: 1 };
  const NAME = {
    1: "WhoAreYou", 2: "IAmADie", 3: "RollState", 29: "Blink", 30: "BlinkAck",
    33: "RequestBatteryLevel", 34: "BatteryLevel", 35: "RequestRssi", 36: "Rssi", 59: "StopAllAnimations",
  };
  const ROLL_STATES = ["unknown", "rolled", "handling", "rolling", "crooked", "on_face"];
  const BATTERY_STATES = ["ok", "low", "charging", "done", "bad_charging", "error"];
  const FACES = { 1: 4, 2: 6, 3: 8, 4: 10, 5: 10, 6: 12, 7: 20, 8: 6 };  // die type → numbered faces

  function fail(text) { throw new Error("Pixels message" + (text.startsWith(":") ? "" : " ") + text); }

  function checkSize(bytes, id) {
    const name = NAME[id];
    if (bytes.length < SIZE[id]) fail(`${name}: ${bytes.length} byte${bytes.length === 1 ? "" : "s"}, too short (expected ${SIZE[id]})`);
    if (bytes.length > SIZE[id]) fail(`${name}: ${bytes.length} bytes, too long (expected ${SIZE[id]})`);
  }

  function u16(b, i) { return b[i] | (b[i + 1] << 8); }
  function u32(b, i) { return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0; }

  function rollState(value, name) {
    if (value >= ROLL_STATES.length) fail(`${name}: roll state ${value}, expected 0…5`);
    return ROLL_STATES[value];
  }
  function battery(level, state, name) {
    if (level > 100) fail(`${name}: battery level ${level}, expected 0…100 percent`);
    if (state >= BATTERY_STATES.length) fail(`${name}: battery state ${state}, expected 0…5`);
    return { percent: level, state: BATTERY_STATES[state], charging: state === 2 || state === 3 };
  }

  // Current firmware's IAmADie: six chunks, each led by its own size (that byte included).
  function chunkedIdentity(b) {
    const chunks = [];
    let at = 1;
    for (let n = 0; n < 6; n++) {
      if (at >= b.length || b[at] < 1 || at + b[at] > b.length) fail(`IAmADie: chunk ${n + 1} cut short at byte ${at}`);
      chunks.push(b.subarray(at, at + b[at]));
      at += b[at];
    }
    const [, die, , , , status] = chunks;
    if (die.length < 9 || status.length < 5) fail("IAmADie: die or status chunk too short");
    const bat = battery(status[1], status[2], "IAmADie");
    return { type: "iAmADie", pixelId: u32(die, 1), dieType: die[6], ledCount: die[7],
             rollState: rollState(status[3], "IAmADie"), faceIndex: status[4], battery: bat };
  }

  // One notification → { type, … }; throws an Error naming the message and field.
  function decode(data) {
    const b = data instanceof Uint8Array ? data : new Uint8Array(data.buffer ? data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) : data);
    if (b.length === 0) fail(": no bytes (expected at least the message id)");
    const id = b[0];
    if (!(id in SIZE)) fail(`: unknown message id ${id}`);
    if (id === ID.iAmADie && b.length !== SIZE[id]) return chunkedIdentity(b);
    checkSize(b, id);
    switch (id) {
      case ID.iAmADie:
        return { type: "iAmADie", ledCount: b[1], dieType: b[3], pixelId: u32(b, 8),
                 rollState: rollState(b[18], "IAmADie"), faceIndex: b[19], battery: battery(b[20], b[21], "IAmADie") };
      case ID.rollState: return { type: "rollState", state: rollState(b[1], "RollState"), faceIndex: b[2] };
      case ID.batteryLevel: return { type: "batteryLevel", ...battery(b[1], b[2], "BatteryLevel") };
      case ID.rssi: return { type: "rssi", dBm: b[1] > 127 ? b[1] - 256 : b[1] };
      case ID.blinkAck: return { type: "blinkAck" };
      case ID.blink:
        return { type: "blink", count: b[1], duration: u16(b, 2), color: u32(b, 4), faceMask: u32(b, 8), fade: b[12], loop: b[13] };
      default: return { type: NAME[id] };
    }
  }

  function checkRange(value, limit, field, name) {
    if (!Number.isInteger(value) || value < 0 || value > limit) fail(`${name}: ${field} ${value}, expected 0…${limit}`);
    return value;
  }

  // Blink: id 29, count, duration (ms, u16), colour 0xAARRGGBB (u32), face mask (u32), fade, loop.
  function encodeBlink({ count, duration, color, faceMask, fade = 0, loop = 0 }) {
    const b = new Uint8Array(14);
    const view = new DataView(b.buffer);
    b[0] = ID.blink;
    b[1] = checkRange(count, 255, "count", "Blink");
    view.setUint16(2, checkRange(duration, 0xffff, "duration", "Blink"), true);
    view.setUint32(4, color >>> 0, true);
    view.setUint32(8, faceMask >>> 0, true);
    b[12] = checkRange(fade, 255, "fade", "Blink");
    b[13] = checkRange(loop, 255, "loop", "Blink");
    return b;
  }

  return {
    SERVICE, NOTIFY, WRITE, ID, FACES, decode, encodeBlink,
    whoAreYou: () => new Uint8Array([ID.whoAreYou]),
    stopAllAnimations: () => new Uint8Array([ID.stopAllAnimations]),
    requestRssiOnce: () => new Uint8Array([ID.requestRssi, 1, 0, 0]),
  };
})();

// The colours the scripting API names (LEDColor.named).
const PIXELS_COLOURS = {
  off: 0, black: 0, red: 0xff0000, green: 0x00ff00, blue: 0x0000ff, yellow: 0xffff00, orange: 0xff8000,
  purple: 0x8000ff, cyan: 0x00ffff, magenta: 0xff00ff, white: 0xffffff,
};

class PixelsDie {
  constructor({ sides = 6, minimumRollMs = 300, bluetooth = navigator.bluetooth } = {}) {
    this.sides = sides;
    this.minimumRollMs = minimumRollMs;
    this.bluetooth = bluetooth;
    this.onRoll = null;
    this.onRollState = null;
    this.onBattery = null;
    this.onDisconnect = null;
    this.onSignal = null;
    this.onError = null;
    this.identity = null;
    this.connected = false;
    this.rollStartedAt = null;
    this.busyUntil = [0, 0, 0, 0, 0, 0];   // per face: an animation's end and priority,
    this.busyPriority = [0, 0, 0, 0, 0, 0]; // so a lower priority does not cut it short
    this.writes = Promise.resolve();
  }

  // Asks the user to pick a die, subscribes, and says WhoAreYou; resolves with the
  // IAmADie once the die is the game's kind, rejects otherwise.
  async connect() {
    if (!this.bluetooth) throw new Error("this browser has no Web Bluetooth (use Chromium)");
    this.device = await this.bluetooth.requestDevice({ filters: [{ services: [PixelsProtocol.SERVICE] }] });
    this.device.addEventListener("gattserverdisconnected", () => this.dropped("the die disconnected"));
    const server = await this.device.gatt.connect();
    const service = await server.getPrimaryService(PixelsProtocol.SERVICE);
    this.notify = await service.getCharacteristic(PixelsProtocol.NOTIFY);
    this.write = await service.getCharacteristic(PixelsProtocol.WRITE);
    const identified = new Promise((resolve, reject) => { this.identifying = { resolve, reject }; });
    this.notify.addEventListener("characteristicvaluechanged", (event) => this.heard(event.target.value));
    await this.notify.startNotifications();
    await this.send(PixelsProtocol.whoAreYou());
    return identified;
  }

  disconnect() {
    if (this.device && this.device.gatt.connected) this.device.gatt.disconnect();
    else this.dropped("disconnected");
  }

  send(bytes) {
    // One write at a time, in order (GATT allows one operation in flight).
    this.writes = this.writes.then(() => this.write.writeValueWithResponse(bytes)).catch((e) => this.error(String(e)));
    return this.writes;
  }

  blink(fields) { return this.send(PixelsProtocol.encodeBlink(fields)); }

  // A room's `led` event (command text as the log prints it, mask, priority) → Blink or
  // StopAllAnimations on the faces no higher-priority animation holds.
  ledEvent(event) {
    const words = String(event.command || "").split(" ");
    const kind = words[0];
    const now = performance.now();
    const priority = event.priority || 0;
    let mask = 0;
    for (let face = 0; face < 6; face++) {
      if (!(event.mask & (1 << face))) continue;
      if (now < this.busyUntil[face] && this.busyPriority[face] > priority) continue;
      mask |= 1 << face;
    }
    if (!mask) return Promise.resolve();
    if (kind === "off") return this.send(PixelsProtocol.stopAllAnimations());
    const colourWord = words[2] || "off";
    const color = colourWord.startsWith("#") ? parseInt(colourWord.slice(1), 16) : (PIXELS_COLOURS[colourWord] || 0);
    const number = (name) => { const m = String(event.command).match(new RegExp(name + "=(\\d+)")); return m ? Number(m[1]) : 0; };
    let fields;
    if (kind === "blink") {
      const on = number("on"), cycle = number("cycle"), count = Math.min(Math.max(number("count"), 1), 255);
      const period = Math.max(cycle > on ? cycle : on + cycle, 1);
      fields = { count, duration: Math.min(count * period, 0xffff), color, faceMask: mask };
    } else if (kind === "fade") {
      const ms = Number((words[3] || "0").replace("ms", "")) || 1;
      fields = { count: 1, duration: Math.min(ms * 2, 0xffff), color, faceMask: mask, fade: 255 };
    } else {
      fields = { count: 1, duration: 0xffff, color, faceMask: mask };
    }
    for (let face = 0; face < 6; face++) {
      if (mask & (1 << face)) { this.busyUntil[face] = now + fields.duration; this.busyPriority[face] = priority; }
    }
    return this.blink(fields);
  }

  heard(value) {
    let message;
    try { message = PixelsProtocol.decode(value); } catch (e) { this.error(e.message); return; }
    switch (message.type) {
      case "iAmADie": return this.identified(message);
      case "rollState": return this.connected && this.rollState(message.state, message.faceIndex);
      case "batteryLevel": return this.connected && this.onBattery && this.onBattery(message.percent, message.charging);
      case "rssi": return this.connected && this.onSignal && this.onSignal(message.dBm);
      default: return undefined;  // BlinkAck
    }
  }

  identified(identity) {
    if (!this.identifying) { this.identity = identity; return; }
    const { resolve, reject } = this.identifying;
    this.identifying = null;
    const faces = PixelsProtocol.FACES[identity.dieType] || (identity.dieType === 0 ? identity.ledCount : null);
    if (faces !== this.sides) {
      reject(new Error(`this Pixel is ${faces ? "a d" + faces : "not a numbered die"}; this game needs a ${this.sides}-sided die`));
      this.disconnect();
      return;
    }
    this.identity = identity;
    this.connected = true;
    if (this.onBattery) this.onBattery(identity.battery.percent, identity.battery.charging);
    this.send(PixelsProtocol.requestRssiOnce());
    resolve(identity);
  }

  rollState(state, faceIndex) {
    const now = performance.now();
    if (this.onRollState && state !== "unknown") this.onRollState(state);
    if (state === "handling" || state === "rolling") {
      if (this.rollStartedAt === null) this.rollStartedAt = now;
    } else if (state === "on_face") {
      this.rollStartedAt = null;
    } else if (state === "crooked") {
      const wasRolling = this.rollStartedAt !== null;
      this.rollStartedAt = null;
      if (wasRolling && this.onRoll) this.onRoll(null, "tilt");
    } else if (state === "rolled") {
      const started = this.rollStartedAt === null ? now : this.rollStartedAt;
      this.rollStartedAt = null;
      if (faceIndex >= this.sides) { this.error(`Pixels message RollState: face index ${faceIndex}, expected 0…${this.sides - 1}`); return; }
      if (!this.onRoll) return;
      if (now - started < this.minimumRollMs) this.onRoll(null, "too_short"); else this.onRoll(faceIndex + 1, "ok");
    }
  }

  dropped(reason) {
    const was = this.connected;
    this.connected = false;
    this.rollStartedAt = null;
    if (this.identifying) { this.identifying.reject(new Error(reason)); this.identifying = null; }
    if (was && this.onDisconnect) this.onDisconnect(reason);
  }

  error(text) { if (this.onError) this.onError(text); }
}

// The table's hook (app.js calls it once): the button connects a Pixels die for this
// seat; the die's rolls become the seat's smart-die rolls (`sendRoll([face])`; a tilt or
// too short a roll goes as a flagged roll, `sendRoll(null, "tilt")`, for the rules), and
// the LED events of this seat's turns are written to it as Blink messages.
//   events(list, current): a room's new events, `current` whose turn it was before them.
function attachPixelsToTable({ button, status, sides, sendRoll, notice, seatName, bluetooth }) {
  let die = null;
  const show = (text) => { status.textContent = text; };
  button.addEventListener("click", async () => {
    if (die && die.connected) { die.disconnect(); return; }
    die = new PixelsDie({ sides: sides(), bluetooth: bluetooth || navigator.bluetooth });
    die.onRoll = (face, flag) => {
      if (flag === "ok") { show("Pixels die: rolled " + face); sendRoll([face]); return; }
      show("Pixels die: " + flag);
      sendRoll(null, flag);
      notice("Your Pixels die says " + flag + ": roll again.", "info");
    };
    die.onRollState = (state) => show("Pixels die: " + state.replace("_", " "));
    die.onBattery = (percent, charging) => { button.title = "battery " + percent + "%" + (charging ? " (charging)" : ""); };
    die.onDisconnect = (reason) => { show("Pixels die: " + reason); button.textContent = "Connect a Pixels die"; };
    die.onError = (text) => show("Pixels die: " + text);
    show("Pixels die: connecting…");
    try {
      const identity = await die.connect();
      show("Pixels die connected (battery " + identity.battery.percent + "%)");
      button.textContent = "Disconnect the Pixels die";
    } catch (e) {
      show("Pixels die: " + e.message);
      notice("Could not use the Pixels die: " + e.message, "error");
    }
  });
  return {
    get die() { return die; },
    events(list, current) {
      let turn = current;
      for (const e of list) {
        if (e.type === "turn") turn = e.player;
        if (e.type === "led" && die && die.connected && turn && turn === seatName()) die.ledEvent(e);
      }
    },
  };
}

window.PixelsProtocol = PixelsProtocol;
window.PixelsDie = PixelsDie;
window.attachPixelsToTable = attachPixelsToTable;
