// Keeping a page's Server-Sent-Events stream, shared by the kiosk's live page and the tournament desk (both serve
// it as /static/reconnect.js). The browser's EventSource retries by itself after a network error, but gives up for
// good when a reconnection is answered with an HTTP error (503: the server is full, 429: too many pages from this
// address), so the page closes it and opens a new one itself: after 1 s, doubling to 15 s, each wait drawn from
// 75-125 % of it (pages reloaded together do not come back together). A stream silent for longer than SILENT_MS
// (both servers send a ping every 15 s) is taken as lost too (a network that dropped without a reset).
"use strict";
window.kioskStream = (function () {
  const RETRY_MIN_MS = 1000, RETRY_MAX_MS = 15000, SILENT_MS = 40000;

  // A back-off: next() is the next wait (ms), reset() starts again from RETRY_MIN_MS.
  function backoff() {
    let retryMs = 0;   // the last back-off (0: never failed since the last reset)
    return {
      next: function () {
        retryMs = retryMs ? Math.min(RETRY_MAX_MS, retryMs * 2) : RETRY_MIN_MS;
        return Math.round(retryMs * (0.75 + Math.random() * 0.5));
      },
      reset: function () { retryMs = 0; },
    };
  }

  function seconds(ms) { return Math.max(1, Math.round(ms / 1000)); }

  // Keep the stream at url open. page.who: who may refuse it ("the kiosk"); page.events: event name -> function of
  // its data (parsed JSON), each counting as heard; page.opened(): a stream is open (optional); page.lost(why,
  // waitS): the stream is lost, a new one is opened in waitS s.
  function keep(url, page) {
    const retry = backoff();
    let source = null;   // the EventSource in use (null while waiting to reconnect)
    let lastHeard = 0;   // Date.now() of the last message on the stream
    let timer = null;

    function lost(why) {
      if (source) { source.close(); source = null; }
      const wait = retry.next();
      page.lost(why, seconds(wait));
      clearTimeout(timer);
      timer = setTimeout(connect, wait);
    }

    function connect() {
      timer = null;
      const es = new EventSource(url);
      source = es;
      es.onopen = function () {
        if (source !== es) return;
        retry.reset();
        lastHeard = Date.now();
        if (page.opened) page.opened();
      };
      es.onerror = function () {
        if (source !== es) return;
        lost(es.readyState === EventSource.CLOSED ? page.who + " refused the connection" : "the connection was lost");
      };
      Object.keys(page.events).forEach(function (name) {
        es.addEventListener(name, function (e) {
          if (source !== es) return;
          lastHeard = Date.now();
          page.events[name](JSON.parse(e.data));
        });
      });
      es.addEventListener("ping", function () { if (source === es) lastHeard = Date.now(); });
    }

    setInterval(function () {
      if (source && source.readyState === EventSource.OPEN && Date.now() - lastHeard > SILENT_MS) {
        lost("nothing heard for " + Math.round(SILENT_MS / 1000) + " s");
      }
    }, 1000);
    connect();
  }

  // Run load() (it returns a promise) until it resolves, waiting by a back-off between tries; failed(err, waitS)
  // is told of each failure.
  function retrying(load, failed) {
    const retry = backoff();
    (function attempt() {
      load().catch(function (err) {
        const wait = retry.next();
        failed(err, seconds(wait));
        setTimeout(attempt, wait);
      });
    })();
  }

  // GET url and parse its JSON; a promise rejected with "HTTP <status>" when the answer is not 2xx.
  function json(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    });
  }

  return { keep: keep, retrying: retrying, json: json };
})();
