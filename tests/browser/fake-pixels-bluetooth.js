// A stand-in navigator.bluetooth for the browser test (injected before the page's own
// scripts): one Pixels d6 that answers in the protocol's bytes, the same vectors as
// Tests/DiceHostTests/PixelsMessageTests.swift. window.__fakePixel lets the test throw it,
// tilt it, drop it, and read every message the page wrote.
(() => {
  const SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e";
  const WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e";
  // IAmADie, legacy layout: 6 LEDs, d6, id 0xDEADBEEF, rolled face index 2, battery 87%.
  const I_AM_A_DIE = [0x02, 6, 0, 2, 0x78, 0x56, 0x34, 0x12, 0xef, 0xbe, 0xad, 0xde, 0x00, 0x10,
                      0x00, 0xf1, 0x53, 0x65, 5, 2, 87, 0];
  const written = [];
  const requests = [];
  let onValue = null;
  let onDisconnect = null;

  function notify(bytes) {
    if (!device.gatt.connected || !onValue) return;
    onValue({ target: { value: new DataView(new Uint8Array(bytes).buffer) } });
  }
  function later(ms, bytes) { setTimeout(() => notify(bytes), ms); }

  const notifyCharacteristic = {
    addEventListener(type, listener) { if (type === "characteristicvaluechanged") onValue = listener; },
    startNotifications: async () => notifyCharacteristic,
  };
  const writeCharacteristic = {
    writeValueWithResponse: async (data) => {
      const bytes = Array.from(data instanceof Uint8Array ? data : new Uint8Array(data));
      written.push(bytes);
      if (bytes.length === 1 && bytes[0] === 0x01) later(5, I_AM_A_DIE);  // WhoAreYou
      if (bytes[0] === 0x1d) later(5, [0x1e]);                             // Blink → BlinkAck
      if (bytes[0] === 0x23) later(5, [0x24, 0xc6]);                       // RequestRssi → -58 dBm
    },
  };
  const service = { getCharacteristic: async (uuid) => (uuid === WRITE ? writeCharacteristic : notifyCharacteristic) };
  const server = { getPrimaryService: async (uuid) => { if (uuid !== SERVICE) throw new Error("no service " + uuid); return service; } };
  const device = {
    name: "Pixel DEADBEEF",
    addEventListener(type, listener) { if (type === "gattserverdisconnected") onDisconnect = listener; },
    gatt: {
      connected: false,
      connect: async () => { device.gatt.connected = true; return server; },
      disconnect() { device.gatt.connected = false; if (onDisconnect) onDisconnect(); },
    },
  };
  Object.defineProperty(navigator, "bluetooth", {
    configurable: true,
    value: { requestDevice: async (options) => { requests.push(options); return device; } },
  });

  window.__fakePixel = {
    written, requests,
    // Picked up, rolling, landed on face index `face` 600 ms later (RollState 3 state face).
    roll(face) { notify([0x03, 2, 0]); later(200, [0x03, 3, 1]); later(600, [0x03, 1, face]); },
    // Lands 50 ms after it was picked up: too short.
    flick(face) { notify([0x03, 2, 0]); later(50, [0x03, 1, face]); },
    // Comes to rest crooked.
    tilt() { notify([0x03, 2, 0]); later(200, [0x03, 3, 1]); later(600, [0x03, 4, 1]); },
    battery(percent) { notify([0x22, percent, percent < 10 ? 1 : 0]); },
    drop() { device.gatt.disconnect(); },
  };
})();
