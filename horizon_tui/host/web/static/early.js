// Loaded first, before xterm.js: opens the game's socket at once, so the app starts and draws
// while the page's scripts and font load; play.js takes the socket over with whatever arrived.
// The size is estimated from the window and DejaVu Sans Mono's cell at 16 px (0.602 em wide,
// 19 px high, as play.js draws it); play.js sends the measured size once the terminal is there.
(function () {
  "use strict";
  if (location.pathname.startsWith("/watch/")) {
    return;  // a watcher's page: play.js opens its read-only socket
  }
  const CELL_WIDTH = 16 * 0.602;
  const CELL_HEIGHT = 19;
  const early = { socket: null, queue: [], closed: null };
  const query = new URLSearchParams({
    cols: Math.max(20, Math.floor(window.innerWidth / CELL_WIDTH)),
    rows: Math.max(10, Math.floor(window.innerHeight / CELL_HEIGHT)),
  });
  const resume = sessionStorage.getItem("horizon-game");
  if (resume) {
    query.set("resume", resume);
  }
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  early.socket = new WebSocket(scheme + "//" + location.host + "/ws?" + query.toString());
  early.socket.binaryType = "arraybuffer";
  early.socket.onmessage = function (event) { early.queue.push(event); };
  early.socket.onclose = function (event) { early.closed = event; };
  window.horizonEarlySocket = early;
})();
