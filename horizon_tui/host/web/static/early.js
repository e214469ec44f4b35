// The first part of the page's script (play-bundle.js, assets.py), run before xterm.js: opens the
// game's socket at once, so that it opens while xterm.js is compiled and the font loads; play.js
// takes the socket over with whatever arrived. The host may have started the game already, as it
// served this page (its id in <meta name="horizon-game">): the socket carries it, unless this tab
// has a game of its own to go back to (a reload), which wins ("fresh" names the page's game so that
// the host ends it).
// The size is estimated from the window and DejaVu Sans Mono's cell at 16 px (0.602 em wide,
// 19 px high, as play.js draws it; server.py's CELL_WIDTH and CELL_HEIGHT); play.js makes its
// terminal that size and sends the size it measured once the terminal is there.
(function () {
  "use strict";
  if (location.pathname.startsWith("/watch/")) {
    return;  // a watcher's page: play.js opens its read-only socket
  }
  const CELL_WIDTH = 16 * 0.602;
  const CELL_HEIGHT = 19;
  const size = [Math.max(20, Math.floor(window.innerWidth / CELL_WIDTH)),
    Math.max(10, Math.floor(window.innerHeight / CELL_HEIGHT))];
  const early = { socket: null, queue: [], closed: null, size: size };
  const query = new URLSearchParams({ cols: size[0], rows: size[1] });
  const own = sessionStorage.getItem("horizon-game");
  const fresh = document.querySelector('meta[name="horizon-game"]').content;
  if (own || fresh) {
    query.set("resume", own || fresh);
  }
  if (own && fresh && own !== fresh) {
    query.set("fresh", fresh);
  }
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  early.socket = new WebSocket(scheme + "//" + location.host + "/ws?" + query.toString());
  early.socket.binaryType = "arraybuffer";
  early.socket.onmessage = function (event) { early.queue.push(event); };
  early.socket.onclose = function (event) { early.closed = event; };
  window.horizonEarlySocket = early;
})();
