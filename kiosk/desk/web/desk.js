// The tournament desk page: reads /layout.json once, then the SSE stream /stream ("state", then "tiles").
// Every update's delay from the kiosk's event to this page is kept in window.deskLatency (ms) for the tests.
(function () {
  "use strict";
  const PREMIUM = { T: "#c0392b", D: "#e59aa6", t: "#2e6fb7", d: "#9cc8ec" };
  const tilesEl = document.getElementById("tiles");
  const tiles = {};        // board -> tile data
  const els = {};          // board -> element
  let layout = "";
  let offset = 0;          // desk wall clock minus this browser's clock (ms)
  let openBoard = null;
  let frozenAt = null;     // Date.now() when the stream was lost: the clocks stand still from then on
  // Reconnecting (back-off, a silent stream taken as lost): kioskStream, /static/reconnect.js (shared with the
  // kiosk's live page).
  window.deskLatency = [];      // kiosk event -> this page (ms)
  window.deskLatencyDesk = [];  // the desk's receipt of that event -> this page (ms)
  window.deskUpdates = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // A count and its noun as the kiosk writes them (kiosk.rules.counts.counted): "1 game", "2 games", "0 games".
  function counted(n, noun, plural) {
    return n + " " + (Math.abs(n) === 1 ? noun : plural === undefined ? noun + "s" : plural);
  }

  function drawBoard(canvas, rows, big) {
    const n = 15, px = canvas.width / n, g = canvas.getContext("2d");
    g.fillStyle = "#0a3d2e"; g.fillRect(0, 0, canvas.width, canvas.height);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const ch = rows ? rows[r][c] : ".";
        const prem = PREMIUM[layout[r * n + c]];
        g.fillStyle = ch !== "." ? "#f3dcae" : (prem || "#0d6b4f");
        g.fillRect(c * px + 0.5, r * px + 0.5, px - 1, px - 1);
        if (ch !== "." && px >= 9) {
          g.fillStyle = ch === ch.toLowerCase() ? "#b02a2a" : "#222";
          g.font = "bold " + Math.floor(px * 0.7) + "px DejaVu Sans, Arial, sans-serif";
          g.textAlign = "center"; g.textBaseline = "middle";
          g.fillText(ch.toUpperCase(), c * px + px / 2, r * px + px / 2 + 1);
        }
      }
    }
    if (big) { g.strokeStyle = "#0a3d2e"; }
  }

  // A desk wall time (ms) as this browser's time of day.
  function timeText(ms) {
    return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  }

  function clockText(ms) {
    const neg = ms < 0, s = Math.floor(Math.abs(ms) / 1000);
    return (neg ? "-" : "") + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function remaining(t, i) {
    const ck = t.clock;
    if (!ck || !ck.remaining_ms || ck.remaining_ms[i] === null || ck.remaining_ms[i] === undefined) return null;
    let ms = ck.remaining_ms[i];
    // disconnected, a running clock stands where it was when the stream was lost: counting down here would look
    // live while the table's real clock may be stopped or pressed
    const now = frozenAt !== null ? frozenAt : Date.now();
    if (ck.running === i && t.phase !== "over" && t.clock_wall) ms -= (now + offset) - t.clock_wall;
    return ms;
  }

  function flagList(t) {
    const f = t.flags || {}, out = [];
    if (f.judge_called) out.push(["judge", "judge called"]);
    if (f.challenge) out.push(["challenge", t.phase === "challenged" ? "challenge" : "hold"]);
    if (f.offline) out.push(["offline", "kiosk offline"]);
    (f.degraded || []).forEach(function (d) { out.push(["degraded", d + " degraded"]); });
    if (f.journal) out.push(["journal", "journal: " + f.journal]);
    if (f.waiting) out.push(["waiting", "waiting for events"]);
    if (f.unpaired) out.push(["unpaired", "not paired"]);
    if (f.other_version) out.push(["version", "other version"]);
    if (t.replaced_at) out.push(["replaced", "replaced by the director at " + timeText(t.replaced_at)]);
    else if (t.corrected) out.push(["corrected", "corrected"]);
    return out;
  }

  function renderTile(t) {
    let e = els[t.board];
    if (!e) {
      e = els[t.board] = el("div", "tile");
      e.dataset.board = t.board;
      e.addEventListener("click", function () { openDetail(t.board); });
      const keys = Object.keys(els).map(Number).sort(function (a, b) { return a - b; });
      const next = keys.find(function (b) { return b > t.board; });
      tilesEl.insertBefore(e, next !== undefined ? els[next] : null);
    }
    e.textContent = "";
    const over = t.phase === "over";
    e.className = "tile" + (over ? " over" : "") + (t.flags && t.flags.judge_called ? " judge" : "") +
      (t.flags && t.flags.offline && !over ? " offline" : "") + (!t.players || !t.players.length ? " idle" : "");
    const head = el("div", "head");
    head.appendChild(el("b", "", "Table " + t.board));
    const where = [];
    if (t.division) where.push(t.division);
    if (t.round) where.push("R" + t.round);
    if (t.move !== undefined && t.players.length) where.push("move " + t.move);
    head.appendChild(el("span", "", where.join(" · ")));
    e.appendChild(head);
    const cv = el("canvas"); cv.width = 150; cv.height = 150;
    drawBoard(cv, t.rows);
    e.appendChild(cv);
    (t.players || []).forEach(function (name, i) {
      const p = el("div", "p" + (t.on_move === i && !over ? " on" : ""));
      p.appendChild(el("span", "n", name));
      p.appendChild(el("span", "s", String((over && t.final ? t.final : t.scores)[i])));
      const ms = remaining(t, i);
      const c = el("span", "c" + (ms !== null && ms < 0 ? " ot" : ""), ms === null || over ? "" : clockText(ms));
      c.dataset.player = i;
      p.appendChild(c);
      e.appendChild(p);
    });
    if (over && t.final) e.appendChild(el("div", "final", "Final " + t.final.join(" - ")));
    else if (t.last_move) e.appendChild(el("div", "last", t.last_move));
    else if (!t.players || !t.players.length) e.appendChild(el("div", "last", "no game yet"));
    const fl = el("div", "flags");
    flagList(t).forEach(function (f) { fl.appendChild(el("span", "flag " + f[0], f[1])); });
    e.appendChild(fl);
  }

  function tickClocks() {
    Object.keys(tiles).forEach(function (b) {
      const t = tiles[b], e = els[b];
      if (!e || t.phase === "over" || !t.clock || t.clock.running === null || t.clock.running === undefined) return;
      const c = e.querySelector('.c[data-player="' + t.clock.running + '"]');
      const ms = remaining(t, t.clock.running);
      if (c && ms !== null) { c.textContent = clockText(ms); c.classList.toggle("ot", ms < 0); }
    });
  }

  function renderStandings(st) {
    const box = document.getElementById("standings");
    box.textContent = "";
    Object.keys(st || {}).forEach(function (div) {
      const d = st[div];
      box.appendChild(el("h2", "", "Division " + div));
      box.appendChild(el("p", "running", counted(d.running, "game") + " still running"));
      const tb = el("table"), hr = el("tr");
      ["#", "Player", "W", "L", "Spread"].forEach(function (h) { hr.appendChild(el("th", "", h)); });
      tb.appendChild(hr);
      d.players.forEach(function (p, i) {
        const tr = el("tr");
        [String(i + 1), p.name, String(p.wins), String(p.losses), (p.spread > 0 ? "+" : "") + p.spread]
          .forEach(function (v) { tr.appendChild(el("td", "", v)); });
        tb.appendChild(tr);
      });
      box.appendChild(tb);
    });
  }

  function renderStatus(s) {
    const a = document.getElementById("alerts");
    a.textContent = "";
    if (s.broker && !s.broker.connected) a.appendChild(el("p", "", "The desk is not connected to the broker; it keeps trying."));
    (s.broker && s.broker.errors || []).forEach(function (e) { a.appendChild(el("p", "", e)); });
    Object.keys(s.refused || {}).forEach(function (k) {
      const r = s.refused[k];
      a.appendChild(el("p", "", counted(r.count, "message") + " ignored: " + r.sentence));
    });
    // each game's other version waiting for the director: what it is, and the way to its table
    (s.other_versions || []).forEach(function (v) {
      const p = el("p", "version", v.sentence + " ");
      const open = el("button", "open", "Open table " + v.board);
      open.addEventListener("click", function () { openDetail(v.board); });
      p.appendChild(open);
      a.appendChild(p);
    });
    const all = Object.values(tiles);
    const live = all.filter(function (t) { return t.players && t.players.length && t.phase !== "over"; }).length;
    const done = all.filter(function (t) { return t.phase === "over"; }).length;
    document.getElementById("summary").textContent = counted(all.length, "table") + " · " + live + " playing · " +
      done + " finished · " + counted(s.refused_total || 0, "message") + " ignored";
  }

  function update(list, since, recv) {
    list.forEach(function (t) { tiles[t.board] = t; renderTile(t); });
    if (since) {
      Object.keys(since).forEach(function (b) {
        if (since[b]) window.deskLatency.push(Date.now() + offset - since[b]);
        if (recv && recv[b]) window.deskLatencyDesk.push(Date.now() + offset - recv[b]);
      });
      if (window.deskLatency.length > 100000) window.deskLatency.splice(0, 50000);
      if (window.deskLatencyDesk.length > 100000) window.deskLatencyDesk.splice(0, 50000);
    }
    window.deskUpdates += list.length;
    if (openBoard !== null && list.some(function (t) { return t.board === openBoard; })) loadDetail(openBoard);
  }

  // The other versions of the open table's games (d.other_versions), each beside the desk's, with the director's
  // button to take it beside the PIN field; that field and the last answer stay as they are while the table updates.
  function renderVersions(list) {
    const box = document.getElementById("versions"), into = document.getElementById("versions-list");
    const buttons = document.getElementById("take-buttons");
    into.textContent = "";
    buttons.textContent = "";
    (list || []).forEach(function (v) {
      const item = el("div", "ver");
      item.appendChild(el("p", "", v.sentence));
      const tb = el("table"), hr = el("tr");
      ["", "The desk's version", "The other version"].forEach(function (h) { hr.appendChild(el("th", "", h)); });
      tb.appendChild(hr);
      const scores = function (x) { return (x.finished ? "" : "not finished: ") + x.scores.join(" - "); };
      [["Players", v.desk.players.join(" - "), v.other.players.join(" - ")],
        ["Scores", scores(v.desk), scores(v.other)],
        ["Events", String(v.desk.events), v.other.events + " (other from event " + v.from_event + ")"]]
        .forEach(function (row) {
          const tr = el("tr");
          row.forEach(function (c, i) { tr.appendChild(el(i ? "td" : "th", "", c)); });
          tb.appendChild(tr);
        });
      item.appendChild(tb);
      into.appendChild(item);
      const take = el("button", "take", list.length > 1 ? "Take the other version of game " + v.game_id :
        "Take the other version");
      take.type = "button";
      take.disabled = !v.takeable;
      take.addEventListener("click", function () { takeVersion(v); });
      buttons.appendChild(take);
    });
    const any = !!(list && list.length);
    document.getElementById("versions-title").hidden = !any;
    document.getElementById("take-pin").hidden = !any;   // once taken, only the answer stays
    box.hidden = !any && !document.getElementById("take-msg").textContent;
  }

  function takeVersion(v) {
    const msg = document.getElementById("take-msg");
    const body = { pin: document.getElementById("take-pin").value, board: v.board, game_id: v.game_id,
      version: v.version };
    fetch("/take-version", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { return r.text().then(function (t) { return [r.ok, t]; }); })
      .then(function (res) {
        if (res[0]) {
          msg.textContent = JSON.parse(res[1]).sentence; msg.className = "ok";
          document.getElementById("take-pin").value = "";
        }
        else { msg.textContent = res[1]; msg.className = "bad"; }
        loadDetail(v.board);
      }).catch(function (err) { msg.textContent = "The desk did not answer: " + err; msg.className = "bad"; });
  }

  function openDetail(board) {
    openBoard = board;
    document.getElementById("pair-msg").textContent = "";
    document.getElementById("take-msg").textContent = "";
    const t = tiles[board];
    if (t && t.round) document.getElementById("pair-round").value = t.round;
    document.getElementById("detail").hidden = false;
    loadDetail(board);
  }

  function loadDetail(board) {
    fetch("/table/" + board + ".json").then(function (r) { return r.json(); }).then(function (d) {
      if (openBoard !== board) return;
      document.getElementById("detail-title").textContent = "Table " + board +
        (d.division ? " · division " + d.division : "") + (d.round ? " · round " + d.round : "") +
        (d.move !== undefined ? " · move " + d.move : "");
      const pl = document.getElementById("detail-players");
      pl.textContent = "";
      (d.players || []).forEach(function (n, i) {
        const ms = remaining(d, i);
        pl.appendChild(el("span", d.on_move === i && d.phase !== "over" ? "on" : "",
          n + " " + d.scores[i] + (ms === null || d.phase === "over" ? "" : " (" + clockText(ms) + ")")));
      });
      drawBoard(document.getElementById("detail-board"), d.rows, true);
      const mv = document.getElementById("moves");
      mv.textContent = "";
      ((d.state && d.state.history) || []).forEach(function (h) { mv.appendChild(el("li", "", h.text + " (" + h.total + ")")); });
      mv.scrollTop = mv.scrollHeight;
      renderVersions(d.other_versions);
    }).catch(function () { /* the next update retries */ });
  }

  document.getElementById("close").addEventListener("click", function () {
    openBoard = null; document.getElementById("detail").hidden = true;
  });
  document.getElementById("detail").addEventListener("click", function (ev) {
    if (ev.target.id === "detail") { openBoard = null; ev.target.hidden = true; }
  });

  document.getElementById("pair").addEventListener("submit", function (ev) {
    ev.preventDefault();
    const msg = document.getElementById("pair-msg");
    const body = { pin: document.getElementById("pair-pin").value, board: openBoard,
      round: Number(document.getElementById("pair-round").value),
      players: [document.getElementById("pair-a").value, document.getElementById("pair-b").value] };
    fetch("/pairing", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { return r.text().then(function (t) { return [r.ok, t]; }); })
      .then(function (res) {
        if (res[0]) {
          const p = JSON.parse(res[1]);
          msg.textContent = "Round " + p.round + ", table " + p.board + ": " + p.players.join(" - ");
          msg.className = "ok";
        } else { msg.textContent = res[1]; msg.className = "bad"; }
      }).catch(function (err) { msg.textContent = "The desk did not answer: " + err; msg.className = "bad"; });
  });

  function loadNames() {
    fetch("/players.json").then(function (r) { return r.json(); }).then(function (divs) {
      const dl = document.getElementById("names");
      dl.textContent = "";
      Object.keys(divs).forEach(function (d) {
        divs[d].forEach(function (n) { const o = el("option"); o.value = n; o.label = "division " + d; dl.appendChild(o); });
      });
    }).catch(function () { /* the form still takes typed names */ });
  }

  function onState(m) {
    const conn = document.getElementById("conn");
    frozenAt = null;   // the desk's state as it is now: the clocks run again
    document.body.classList.remove("stale");
    offset = m.now - Date.now();
    document.getElementById("event").textContent = m.event || "Tournament desk";
    update(m.tiles, null, null);
    renderStandings(m.standings);
    renderStatus(m.status);
    conn.textContent = "live"; conn.className = "ok";
    window.deskReady = true;
  }

  function onTiles(m) {
    offset = m.now - Date.now();
    update(m.tiles, m.since, m.recv);
    if (m.standings) renderStandings(m.standings);
    renderStatus(m.status);
  }

  function lost(why, waitS) {
    if (frozenAt === null) { frozenAt = Date.now(); tickClocks(); }
    document.body.classList.add("stale");
    const conn = document.getElementById("conn");
    conn.textContent = "disconnected (" + why + "); the tables shown may be out of date; reconnecting in " +
      waitS + " s";
    conn.className = "bad";
  }

  function start() {
    kioskStream.retrying(function () {
      return kioskStream.json("/layout.json").then(function (l) {
        layout = l.layout;
        loadNames();
        kioskStream.keep("/stream", { who: "the desk", lost: lost, events: { state: onState, tiles: onTiles } });
        setInterval(tickClocks, 500);
      });
    }, function (err, waitS) {
      const conn = document.getElementById("conn");
      conn.textContent = "disconnected: cannot load the board layout (" + err + "); trying again in " + waitS + " s";
      conn.className = "bad";
    });
  }

  start();
})();
