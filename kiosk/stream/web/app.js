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
  // Reconnecting (back-off, a silent stream taken as lost): kioskStream, /static/reconnect.js (shared with the desk).

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
    frozenAt = null;   // fresh state follows (its clock is set by the caller): the clocks run again
  }

  function lost(why, waitS) {
    if (frozenAt === null) frozenAt = performance.now();
    drawClocks();
    showConnection(false, "Disconnected from the kiosk (" + why + "): the scores and clocks shown may be out of " +
      "date. Reconnecting in " + waitS + " s.");
  }

  function start() {
    kioskStream.retrying(function () {
      return kioskStream.json("/layout.json").then(function (l) {
        layout = l.layout; values = l.values || {};
        buildBoard();
        kioskStream.keep("/stream", {
          who: "the kiosk",
          opened: function () { showConnection(true, ""); },
          lost: lost,
          events: {
            snapshot: function (m) { heard(); renderSnapshot(m); },
            tick: function (m) { heard(); setClock(m.clock); },
          },
        });
        setInterval(drawClocks, 250);
      });
    }, function (err, waitS) {
      showConnection(false, "Disconnected: the board layout could not be loaded from the kiosk (" + err +
        "). Trying again in " + waitS + " s.");
    });
  }

  start();
})();
