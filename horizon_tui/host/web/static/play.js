// The page that plays (or, at /watch/GAME, watches): xterm.js on a websocket to the host (host/web/server.py).
// Binary frames carry the terminal's bytes both ways; text frames carry JSON: {"resize": [c, r]}
// from here; {"game": id, "redraw": true when resumed} (to resume after a reconnect), {"message": …}, {"exit": code},
// {"refused": …} and {"watching": name, "size": [c, r]} from the host.
(function () {
  "use strict";
  const body = document.body;
  const watching = location.pathname.startsWith("/watch/");  // /watch/GAME: read-only
  if (watching) {
    body.dataset.watching = "1";
    document.title = "Horizon — watching";
  }
  const banner = document.getElementById("banner");
  const encoder = new TextEncoder();
  // Numpad keys by KeyboardEvent.code, whatever NumLock says: the application keypad's
  // sequences (ESC O p … ESC O y), which Textual reads as the digits 0-9, the app's numpad
  // directions (horizon_tui/play/keymap.py). Without this, NumLock off sends arrows, Home, End,
  // PageUp/PageDown and, for 5, ESC [ E, which Textual ignores.
  const NUMPAD = {};
  for (let digit = 0; digit <= 9; digit++) {
    NUMPAD["Numpad" + digit] = "\x1bO" + String.fromCharCode("p".charCodeAt(0) + digit);
  }
  // made at the size early.js estimated (the size the game started at): fitting it is then no
  // resize; opened once the font is there (`start`), so that its cell is measured once, right
  const estimated = window.horizonEarlySocket ? window.horizonEarlySocket.size : [80, 24];
  const term = new Terminal({
    fontFamily: '"DejaVu Sans Mono", monospace', fontSize: 16, scrollback: 0,
    cursorBlink: false, disableStdin: watching, cols: estimated[0], rows: estimated[1],
  });
  const Fit = window.FitAddon && window.FitAddon.FitAddon ? window.FitAddon.FitAddon : window.FitAddon;
  const fit = new Fit();
  term.loadAddon(fit);

  let socket = null;
  // The game this tab plays, kept for the tab's life (a reload or a trip to /watch resumes it).
  const RESUME = "horizon-game";
  let resumeId = watching ? null : sessionStorage.getItem(RESUME);
  let ended = false;
  let failures = 0;
  let playerSize = null;

  function showBanner(text) {
    banner.textContent = text;
    banner.hidden = false;
  }
  function hideBanner() {
    banner.hidden = true;
  }
  function send(data) {
    if (!watching && socket && socket.readyState === WebSocket.OPEN) {
      socket.send(typeof data === "string" ? encoder.encode(data) : data);
    }
  }
  function sendSize() {
    if (!watching && socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ resize: [term.cols, term.rows] }));
    }
  }
  // DejaVu Sans Mono's cell per pixel of font size (as early.js estimates the size with)
  const CELL_WIDTH_EM = 0.602;
  const CELL_HEIGHT_EM = 19 / 16;
  function layout() {
    if (playerSize) {  // a watcher sees the player's whole screen as it is, smaller if need be
      const area = document.getElementById("terminal");
      const size = Math.max(6, Math.min(16, Math.floor(Math.min(
        area.clientWidth / (playerSize[0] * CELL_WIDTH_EM),
        area.clientHeight / (playerSize[1] * CELL_HEIGHT_EM)))));
      if (term.options.fontSize !== size) {
        term.options.fontSize = size;
      }
      term.resize(playerSize[0], playerSize[1]);
    } else {
      fit.fit();
    }
  }

  term.attachCustomKeyEventHandler(function (event) {
    const sequence = NUMPAD[event.code];
    if (sequence === undefined || event.ctrlKey || event.altKey || event.metaKey || event.shiftKey) {
      return true;
    }
    if (event.type === "keydown") {
      send(sequence);
    }
    event.preventDefault();
    return false;  // keydown and keypress alike: xterm.js sends nothing of its own
  });
  term.onData(function (data) { send(data); });
  term.onBinary(function (data) {
    send(Uint8Array.from(data, (ch) => ch.charCodeAt(0) & 0xff));
  });
  let resizeTimer = null;
  term.onResize(function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(sendSize, 100);
  });
  window.addEventListener("resize", layout);
  window.addEventListener("focus", function () { term.focus(); });

  function socketUrl() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const path = watching ? "/ws/watch/" + encodeURIComponent(location.pathname.split("/").pop()) : "/ws";
    const query = new URLSearchParams({ cols: term.cols, rows: term.rows });
    if (resumeId) {
      query.set("resume", resumeId);
    }
    return scheme + "//" + location.host + path + "?" + query.toString();
  }

  function control(message) {
    if (message.game) {
      resumeId = message.game;
      sessionStorage.setItem(RESUME, resumeId);
    }
    if (message.redraw) {  // the app draws its screen again: it hid its cursor before this page came
      term.write("\x1b[?25l");
    }
    if (message.watching) {
      showBanner("Watching " + message.watching + " (read-only). Esc or Back: the list of games.");
      playerSize = message.size;
      layout();
      term.write("\x1b[?25l");  // the app hid its cursor before this watcher came; it shows it again if it wants
    }
    if (message.message && message.exit === undefined) {
      term.write("\r\n" + message.message + "\r\n");
    }
    if (message.refused) {
      ended = true;
      term.write("\r\n" + message.refused + "\r\n");
      showBanner(message.refused);
    }
    if (message.exit !== undefined) {
      ended = true;
      if (!watching) {
        sessionStorage.removeItem(RESUME);
      }
      showBanner(message.message || (watching ? "The game ended." :
        "Your game ended and was saved. Reload the page to play again."));
    }
  }

  function connect() {
    const early = window.horizonEarlySocket;
    window.horizonEarlySocket = null;
    socket = early ? early.socket : new WebSocket(socketUrl());
    socket.binaryType = "arraybuffer";
    socket.onopen = function () {
      failures = 0;
      if (!watching) {
        hideBanner();
      }
      term.focus();
      sendSize();
    };
    socket.onmessage = function (event) {
      if (typeof event.data === "string") {
        try {
          control(JSON.parse(event.data));
        } catch (error) {
          // not one of ours: ignored
        }
      } else {
        if (bytesToMeasure > 0) {
          measureAhead(event.data);
        }
        term.write(new Uint8Array(event.data));
      }
    };
    socket.onclose = function (event) {
      socket = null;
      if (ended || event.code === 4000 || event.code === 4003) {
        ended = true;
        return;
      }
      failures += 1;
      if (failures > 3) {
        location.reload();  // logged out, or the server is gone: the page says which
        return;
      }
      showBanner("Connection lost — reconnecting to your game…");
      setTimeout(connect, Math.min(500 * 2 ** failures, 4000));
    };
    if (early) {  // what early.js's socket got before this page's terminal was there
      if (socket.readyState === WebSocket.OPEN) {
        socket.onopen();
      }
      for (const event of early.queue) {
        socket.onmessage(event);
      }
      if (early.closed) {
        socket.onclose(early.closed);
      }
    }
  }

  if (watching) {
    term.attachCustomKeyEventHandler(function (event) {
      if (event.type === "keydown" && event.key === "Escape") {
        location.href = "/watch";
      }
      return false;  // read-only: nothing typed goes anywhere
    });
  }
  // xterm.js's DOM renderer measures each character (and its bold) the first time it draws it,
  // one forced layout each (WidthCache): 86 on the main menu, half of its first frame (43 of 85 ms
  // in a Chrome trace, bench/bench_web.py --trace). The characters of the first 64 KiB the app sends
  // (its first screens, about 13 KiB each: in one message when the game started before the page's
  // socket, else in 20 or 30 as the app writes them) are measured before they are drawn instead,
  // each message's new ones in one layout, the way it does (its measuring span, the character 32
  // times, in its own container), and put in its cache; later ones are few and measured as drawn.
  // This reaches into xterm.js 6.0.0's internals (vendored, pinned): when they are not there,
  // nothing is measured here and xterm.js measures as it draws, as before.
  let bytesToMeasure = 64 * 1024;
  const decoder = new TextDecoder();
  function measureAhead(bytes) {
    bytesToMeasure -= bytes.byteLength;
    const core = term._core;
    const renderer = core && core._renderService && core._renderService._renderer
      && core._renderService._renderer.value;
    const cache = renderer && renderer._widthCache;
    if (!cache || !(cache._flat instanceof Float32Array) || !(cache._holey instanceof Map)
        || !cache._container || !cache._measureElements || cache._measureElements.length < 2) {
      return;
    }
    const spans = [];
    for (const character of new Set(decoder.decode(bytes))) {
      const code = character.codePointAt(0);
      if (code < 0x20 || (code >= 0x7f && code < 0xa0)) {
        continue;  // control characters are never drawn
      }
      for (const bold of [false, true]) {
        const flat = !bold && character.length === 1 && code < 256;  // as WidthCache.get keeps it
        const key = character + (bold ? "B" : "");
        if (flat ? cache._flat[code] !== -9999 : cache._holey.has(key)) {
          continue;
        }
        const span = cache._measureElements[bold ? 1 : 0].cloneNode(false);
        span.textContent = character.repeat(32);
        cache._container.appendChild(span);
        spans.push([span, flat, code, key]);
      }
    }
    for (const [span, flat, code, key] of spans) {  // the first read lays out, the others read it
      const width = span.offsetWidth / 32;
      if (width > 0 && flat) {
        cache._flat[code] = width;
      } else if (width > 0) {
        cache._holey.set(key, width);
      }
    }
    for (const [span] of spans) {
      span.remove();
    }
  }

  const start = function () {
    term.open(document.getElementById("terminal"));
    layout();
    term.focus();
    connect();
  };
  if (document.fonts && document.fonts.load) {
    document.fonts.load('16px "DejaVu Sans Mono"').then(start, start);
  } else {
    start();
  }
})();
