// Live board: reads /layout.json once, then the Server-Sent-Events stream /stream (public channel).
// No external resources. Every message is a kiosk stream message (see docs/stream.md).
"use strict";
(function () {
  const PREMIUM = { T: "TWS", D: "DWS", t: "TLS", d: "DLS" };
  const live = document.getElementById("live");
  const boardEl = document.getElementById("board");
  let layout = "";
  let values = {};
  let clock = null;          // last clock {running, remaining_ms, at_ms}
  let clockRecvd = 0;        // performance.now() when it arrived
  let frozenAt = null;       // performance.now() when the stream was lost: the clocks stand still from then on
  let players = [];
  // Reconnecting: the browser's EventSource retries by itself after a network error, but gives up for good when a
  // reconnection is answered with an HTTP error (503 while the live page is full, 429), so the page closes it and
  // opens a new one itself: after 1 s, doubling to 15 s, each wait drawn from 75-125 % of it (pages reloaded
  // together do not come back together). A stream silent for longer than SILENT_MS (the kiosk sends a ping every
  // 15 s) is taken as lost too (a network that dropped without a reset).
  const RETRY_MIN_MS = 1000, RETRY_MAX_MS = 15000, SILENT_MS = 40000;
  let source = null;         // the EventSource in use (null while waiting to reconnect)
  let retryMs = 0;           // the last back-off (0: connected, or never failed)
  let retryTimer = null;
  let lastHeard = 0;         // performance.now() of the last message on the stream

  if (new URLSearchParams(location.search).get("transparent") === "1") document.body.classList.add("transparent");

  function text(id, value) { document.getElementById(id).textContent = value; }

  function fmtClock(ms) {
    if (ms === null || ms === undefined) return "";
    const neg = ms < 0;
    const s = Math.floor(Math.abs(ms) / 1000);
    return (neg ? "-" : "") + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function buildBoard() {
    boardEl.innerHTML = "";
    for (let sq = 0; sq < 225; sq++) {
      const c = document.createElement("div");
      c.className = "cell";
      c.dataset.sq = String(sq);
      const prem = PREMIUM[layout[sq]];
      if (prem) { c.classList.add(prem); c.dataset.premium = prem; }
      boardEl.appendChild(c);
    }
    resetCells();
  }

  function emptyCell(c) {
    c.className = "cell" + (c.dataset.premium ? " " + c.dataset.premium : "");
    c.dataset.tile = "";
    c.textContent = c.dataset.premium || "";
  }

  function resetCells() {
    for (const c of boardEl.children) emptyCell(c);
  }

  function renderBoard(rows, lastSquares) {
    const last = new Set(lastSquares || []);
    for (let r = 0; r < 15; r++) {
      for (let col = 0; col < 15; col++) {
        const sq = r * 15 + col;
        const ch = rows[r][col];
        const c = boardEl.children[sq];
        if (ch === ".") {
          if (c.dataset.tile) emptyCell(c);
          continue;
        }
        c.dataset.tile = ch;
        c.className = "cell tile" + (ch !== ch.toUpperCase() ? " blank" : "") + (last.has(sq) ? " last" : "");
        c.textContent = ch.toUpperCase();
        const v = ch === ch.toUpperCase() ? values[ch] : 0;
        if (v !== undefined) { const s = document.createElement("span"); s.className = "val"; s.textContent = String(v); c.appendChild(s); }
      }
    }
  }

  function renderPlayers(st) {
    const head = document.getElementById("players");
    if (players.join("\n") !== st.players.join("\n")) {
      players = st.players.slice();
      head.innerHTML = "";
      players.forEach(function (name, i) {
        const d = document.createElement("div");
        d.className = "player"; d.id = "player-" + i;
        d.innerHTML = '<span class="name"></span><span class="score" id="score-' + i + '"></span><span class="clock" id="clock-' + i + '"></span>';
        d.querySelector(".name").textContent = name;
        head.appendChild(d);
      });
    }
    st.scores.forEach(function (s, i) { text("score-" + i, String(s)); });
    players.forEach(function (_, i) {
      document.getElementById("player-" + i).classList.toggle("on-move", st.on_move === i);
    });
  }

  function statusText(st) {
    if (st.result) {
      const w = st.result.final;
      return "Game over (" + st.result.reason.replace(/_/g, " ") + "): " + st.players.map(function (p, i) { return p + " " + w[i]; }).join(", ");
    }
    if (st.phase === "challenged" && st.challenge) return "Challenge: " + st.challenge.words.join(", ");
    if (st.phase === "designating") return "Blank being designated";
    if (st.phase === "removing") return "Phony coming off the board" + (st.ruling ? " (" + st.ruling + ")" : "");
    if (st.neutralised) return "Clock stopped: " + st.neutralised;
    if (st.on_move !== null) return st.players[st.on_move] + " to play";
    return st.phase.replace(/_/g, " ");
  }

  function renderSnapshot(msg) {
    const st = msg.state;
    live.dataset.seq = String(msg.seq);
    live.dataset.game = msg.game_id;
    live.dataset.phase = st.phase;
    renderPlayers(st);
    const lp = st.last_play;
    renderBoard(st.board, lp && !lp.withdrawn ? lp.tiles.map(function (t) { return t[0]; }) : []);
    const lm = document.getElementById("last-move");
    if (lm.textContent !== (st.last_move || "-")) {
      lm.textContent = st.last_move || "-";
      lm.classList.remove("fresh"); void lm.offsetWidth; lm.classList.add("fresh");
    }
    text("unseen", st.unseen.tiles.split("").sort(function (a, b) { return (a === "?") - (b === "?") || (a < b ? -1 : a > b ? 1 : 0); }).join(" "));
    text("unseen-count", String(st.unseen.count));
    text("bag-count", String(st.bag));
    text("blanks", st.blanks.length ? st.blanks.map(function (b) { return b.square + "=" + b.letter; }).join("  ") : "-");
    text("status", statusText(st));
    setClock(st.clock);
  }

  function setClock(c) { clock = c; clockRecvd = performance.now(); drawClocks(); }

  function drawClocks() {
    if (!clock || !clock.remaining_ms) {
      players.forEach(function (_, i) { const e = document.getElementById("clock-" + i); if (e) e.textContent = ""; });
      return;
    }
    // disconnected, the clocks stand where they were when the stream was lost: a clock counting down here would
    // look live while the table's real one may be stopped or pressed
    const elapsed = (frozenAt !== null ? frozenAt : performance.now()) - clockRecvd;
    clock.remaining_ms.forEach(function (ms, i) {
      const e = document.getElementById("clock-" + i);
      if (!e) return;
      const now = clock.running === i ? ms - elapsed : ms;
      e.textContent = fmtClock(now);
      e.classList.toggle("overtime", now < 0);
      e.classList.toggle("stale", frozenAt !== null);
    });
  }

  function showConnection(on, text) {
    live.dataset.connected = on ? "true" : "false";
    const c = document.getElementById("conn");
    c.textContent = text;
    c.hidden = on;
  }

  function heard() {
    lastHeard = performance.now();
    frozenAt = null;   // fresh state follows (its clock is set by the caller): the clocks run again
  }

  function lost(why) {
    if (source) { source.close(); source = null; }
    if (frozenAt === null) frozenAt = performance.now();
    drawClocks();
    retryMs = retryMs ? Math.min(RETRY_MAX_MS, retryMs * 2) : RETRY_MIN_MS;
    const wait = Math.round(retryMs * (0.75 + Math.random() * 0.5));
    showConnection(false, "Disconnected from the kiosk (" + why + "): the scores and clocks shown may be out of " +
      "date. Reconnecting in " + Math.max(1, Math.round(wait / 1000)) + " s.");
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, wait);
  }

  function connect() {
    retryTimer = null;
    const es = new EventSource("/stream");
    source = es;
    es.onopen = function () {
      if (source !== es) return;
      retryMs = 0;
      lastHeard = performance.now();
      showConnection(true, "");
    };
    es.onerror = function () {
      if (source !== es) return;
      lost(es.readyState === EventSource.CLOSED ? "the kiosk refused the connection" : "the connection was lost");
    };
    es.addEventListener("snapshot", function (e) { if (source === es) { heard(); renderSnapshot(JSON.parse(e.data)); } });
    es.addEventListener("tick", function (e) { if (source === es) { heard(); setClock(JSON.parse(e.data).clock); } });
    es.addEventListener("ping", function () { if (source === es) lastHeard = performance.now(); });
  }

  function watch() {
    if (source && source.readyState === EventSource.OPEN && performance.now() - lastHeard > SILENT_MS) {
      lost("nothing heard for " + Math.round(SILENT_MS / 1000) + " s");
    }
  }

  function start() {
    fetch("/layout.json").then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    }).then(function (l) {
      layout = l.layout; values = l.values || {};
      buildBoard();
      retryMs = 0;
      connect();
      setInterval(drawClocks, 250);
      setInterval(watch, 1000);
    }).catch(function (err) {
      retryMs = retryMs ? Math.min(RETRY_MAX_MS, retryMs * 2) : RETRY_MIN_MS;
      const wait = Math.round(retryMs * (0.75 + Math.random() * 0.5));
      showConnection(false, "Disconnected: the board layout could not be loaded from the kiosk (" + err +
        "). Trying again in " + Math.max(1, Math.round(wait / 1000)) + " s.");
      setTimeout(start, wait);
    });
  }

  start();
})();
