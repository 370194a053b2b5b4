// Reconnecting after the connection drops (a restart, a deploy, a lost machine): waits
// with back-off (0.5 s doubling to 10 s, each wait jittered so a restarted server is not
// met by every page at once), shows "reconnecting…" meanwhile, and starts again from
// the short wait once the seat is back (joined, watching), or the server says hello to
// a page in no room; so a room whose owner's lease is still running (owned-elsewhere)
// is asked ever less often, not twice a second. The seat comes back with its token
// (app.js's queueRejoin); a room the restart could not reopen answers `no-room` with why.
"use strict";

const Reconnect = (() => {
  const FIRST_MS = 500, MOST_MS = 10000;
  let delay = FIRST_MS, attempt = 0, handle = null;

  /// The connection closed: try `reconnect` after the next wait; `show` gets the text.
  function schedule(reconnect, show) {
    if (handle !== null) return;
    attempt += 1;
    const wait = Math.round(delay * (0.5 + Math.random() / 2));
    delay = Math.min(delay * 2, MOST_MS);
    show(attempt === 1 ? "reconnecting…" : "reconnecting… (attempt " + attempt + ", next in " + Math.ceil(wait / 1000) + " s)");
    handle = setTimeout(() => { handle = null; reconnect(); }, wait);
  }

  /// Back in the room (or connected in none): the next drop starts from the short wait again.
  function connected() { delay = FIRST_MS; attempt = 0; }

  return { schedule, connected };
})();
