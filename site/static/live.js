// retrylab live API panel: the reader's browser sends real requests to the
// sandbox API (POST /v1/payments with or without an Idempotency-Key, a
// Retrylab-Fault on purpose) and shows each request, each answer and the
// card's charges (GET /v1/charges) for the reader's own sandbox account,
// a bearer token made here and kept in localStorage.
//
// The panel's markup comes from the page (site/markdown/live.go); this
// script only wires it. The API is looked for on the page's own origin
// first (the development server answers /v1/ itself), then at the origin
// data-api names (the published site's API). With no API to reach, the
// panel says so and shows the same requests as curl commands.
(function () {
  "use strict";

  var TOKEN_KEY = "retrylab.live.token";
  var BODY = '{"amount": 2500, "currency": "usd"}';
  var LOCAL = "http://localhost:8787"; // `retrylab api`, for the curl commands when no API answers
  var SHOWN = ["Content-Type", "Idempotency-Key", "Idempotent-Replayed", "Retry-After", "Location"];
  var memoryToken = ""; // when localStorage is refused

  function hex(n) {
    var a = new Uint8Array(n);
    crypto.getRandomValues(a);
    var s = "";
    for (var i = 0; i < a.length; i++) s += ("0" + a[i].toString(16)).slice(-2);
    return s;
  }

  function token(fresh) {
    var t = "";
    try {
      t = fresh ? "" : localStorage.getItem(TOKEN_KEY) || "";
      if (!t) {
        t = "sk_test_" + hex(8);
        localStorage.setItem(TOKEN_KEY, t);
      }
    } catch (e) {
      if (fresh || !memoryToken) memoryToken = "sk_test_" + hex(8);
      t = memoryToken;
    }
    return t;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }

  function quote(s) { return "'" + s.replace(/'/g, "'\\''") + "'"; }

  function setup(root) {
    if (root.hasAttribute("data-live-ready")) return;
    // The panel's parts, by the selectors it carries (declared once, in
    // site/markdown/live.go).
    var sel = JSON.parse(root.getAttribute("data-selectors") || "{}");
    function part(within, name) {
      var el = sel[name] && within.querySelector(sel[name]);
      if (!el) throw new Error("retrylab live panel: no " + name + " (data-selectors)");
      return el;
    }
    var form = part(root, "controls");
    var status = part(root, "status");
    var log = part(root, "log");
    var ledger = part(root, "ledger");
    var curl = part(root, "curl");
    var curlCode = curl.querySelector("code");
    var send = part(form, "send");
    var retry = part(form, "retry");
    var account = part(form, "account");
    var configured = (root.getAttribute("data-api") || "").replace(/\/+$/, "");
    var candidates = [location.origin];
    if (configured && configured !== location.origin) candidates.push(configured);
    var api = candidates[candidates.length - 1];

    var tok = token(false);
    var reachable = false;
    var intent = null; // {id, key, attempts}
    var session = []; // the curl commands of what was sent
    var n = 0;

    function keysMode() {
      var r = form.querySelector("input[name=keys]:checked");
      return r ? r.value : "per-intent";
    }
    function fault() { return form.elements.fault.value; }

    function say(text) { status.textContent = text; }

    function curlFor(req, base) {
      var lines = ["curl -i " + base + "/v1/payments \\", "  -H " + quote("Authorization: Bearer " + tok) + " \\"];
      if (req.key) lines.push("  -H " + quote("Idempotency-Key: " + req.key) + " \\");
      if (req.fault) lines.push("  -H " + quote("Retrylab-Fault: " + req.fault) + " \\");
      lines.push("  -H " + quote("Content-Type: application/json") + " \\");
      lines.push("  -d " + quote(BODY));
      return lines.join("\n");
    }

    // showCurl writes the curl session: what was sent, or what Send would
    // send, then the ledger.
    function showCurl() {
      var base = reachable ? api : LOCAL;
      var reqs = session.length ? session : [nextRequest(false, true)];
      var parts = [];
      if (!reachable) parts.push("# with `go run ./cmd/retrylab api` running");
      for (var i = 0; i < reqs.length; i++) parts.push(curlFor(reqs[i], base));
      parts.push("curl " + base + "/v1/charges -H " + quote("Authorization: Bearer " + tok));
      curlCode.textContent = parts.join("\n\n");
    }

    // nextRequest is the next request: a new payment (retry false) or the
    // same payment again. preview leaves the state as it is.
    function nextRequest(isRetry, preview) {
      var mode = keysMode();
      var it = intent;
      if (!isRetry || !it) it = { id: hex(4), attempts: 0 };
      var attempt = it.attempts + 1;
      var key = "";
      if (mode === "per-intent") key = "order-" + it.id;
      if (mode === "per-attempt") key = "order-" + it.id + "-attempt-" + attempt;
      if (!preview) {
        it.attempts = attempt;
        intent = it;
      }
      // The fault is for the first attempt: a retry goes out over a
      // network that works again.
      return { key: key, fault: isRetry ? "" : fault(), attempt: attempt, retry: isRetry, mode: mode };
    }

    function exchange(isRetry) {
      var req = nextRequest(isRetry, false);
      session.push(req);
      showCurl();
      n++;
      var item = el("li", "live-exchange");
      item.setAttribute("data-kind", isRetry ? "retry" : "send");
      item.setAttribute("data-state", "waiting");
      var head = el("p", "live-head", (isRetry ? "Retry, attempt " + req.attempt : "Send, a new payment") +
        (req.key ? " (key " + req.key + ")" : " (no key)"));
      var reqText = "POST /v1/payments\nAuthorization: Bearer " + tok +
        (req.key ? "\nIdempotency-Key: " + req.key : "") +
        (req.fault ? "\nRetrylab-Fault: " + req.fault : "") +
        "\nContent-Type: application/json\n\n" + BODY;
      var reqBox = el("div", "live-req");
      reqBox.appendChild(el("p", "live-label", "Request " + n));
      reqBox.appendChild(el("pre", "", reqText));
      var resBox = el("div", "live-res");
      resBox.appendChild(el("p", "live-label", "Answer"));
      var resPre = el("pre", "", "waiting…");
      resBox.appendChild(resPre);
      item.appendChild(head);
      item.appendChild(reqBox);
      item.appendChild(resBox);
      log.appendChild(item);
      retry.disabled = false;

      var headers = { "Authorization": "Bearer " + tok, "Content-Type": "application/json" };
      if (req.key) headers["Idempotency-Key"] = req.key;
      if (req.fault) headers["Retrylab-Fault"] = req.fault;
      return fetch(api + "/v1/payments", { method: "POST", headers: headers, body: BODY, mode: "cors", credentials: "omit", cache: "no-store" })
        .then(function (res) {
          return res.text().then(function (body) {
            var lines = ["HTTP " + res.status + " " + res.statusText];
            for (var i = 0; i < SHOWN.length; i++) {
              var v = res.headers.get(SHOWN[i]);
              if (v !== null) lines.push(SHOWN[i] + ": " + v);
            }
            resPre.textContent = lines.join("\n") + "\n\n" + pretty(body);
            var replayed = res.headers.get("Idempotent-Replayed") === "true";
            item.setAttribute("data-state", "answered");
            item.setAttribute("data-status", String(res.status));
            item.setAttribute("data-replayed", String(replayed));
            if (replayed) head.appendChild(el("span", "live-badge", "replayed"));
            head.appendChild(el("span", "live-status-code", String(res.status)));
          });
        }, function (err) {
          // A dropped connection reaches the page as a failed fetch, the
          // way a lost answer reaches any client: no status at all.
          item.setAttribute("data-state", "lost");
          item.setAttribute("data-status", "0");
          resPre.textContent = "No answer: the connection closed without one (" + (err && err.message ? err.message : err) + ")." +
            (req.fault === "lose-request" || req.fault === "lose-response" || req.fault === "crash-after-charge"
              ? "\nAs asked with Retrylab-Fault: " + req.fault + ". Did the card get charged? The ledger below says."
              : "");
          head.appendChild(el("span", "live-status-code live-lost", "no answer"));
        })
        .then(refresh);
    }

    function refresh() {
      return fetch(api + "/v1/charges", { headers: { "Authorization": "Bearer " + tok }, mode: "cors", credentials: "omit", cache: "no-store" })
        .then(function (res) {
          if (!res.ok) throw new Error("HTTP " + res.status);
          return res.json();
        })
        .then(function (list) {
          var data = list.data || [];
          var count = typeof list.count === "number" ? list.count : data.length;
          ledger.textContent = "";
          ledger.hidden = false;
          ledger.setAttribute("data-charges", String(count));
          ledger.setAttribute("data-after", String(n)); // requests sent when it was read
          root.setAttribute("data-charges", String(count));
          var h = el("p", "live-label", "The card's charges (GET /v1/charges): " + count);
          ledger.appendChild(h);
          if (data.length === 0) {
            ledger.appendChild(el("p", "live-none", "None yet."));
            return;
          }
          var table = el("table", "live-charges");
          var thead = el("thead");
          var tr = el("tr");
          ["Charge", "Amount", "Payment", "Idempotency-Key"].forEach(function (t) { var th = el("th", "", t); th.scope = "col"; tr.appendChild(th); });
          thead.appendChild(tr);
          table.appendChild(thead);
          var tb = el("tbody");
          data.forEach(function (c) {
            var row = el("tr");
            [c.id, "$" + (c.amount / 100).toFixed(2), c.payment, c.idempotency_key || ""].forEach(function (t) { row.appendChild(el("td", "", t)); });
            tb.appendChild(row);
          });
          table.appendChild(tb);
          var wrap = el("div", "live-table");
          wrap.appendChild(table);
          ledger.appendChild(wrap);
        })
        .catch(function (err) {
          ledger.hidden = false;
          ledger.textContent = "";
          ledger.appendChild(el("p", "live-none", "The charges could not be read (" + err.message + ")."));
        });
    }

    function connected() {
      reachable = true;
      root.setAttribute("data-reachable", "true");
      curl.open = false;
      say("Connected to the sandbox API at " + api + ", as account " + tok + " (kept in this browser).");
      showCurl();
    }

    // unreachable leaves the keys and the fault to choose, for the curl
    // commands, and turns off what would send.
    function unreachable(why) {
      reachable = false;
      root.setAttribute("data-reachable", "false");
      send.disabled = retry.disabled = account.disabled = true;
      say("The sandbox API at " + api + " cannot be reached from this page (" + why + "), so nothing can be sent from here. " +
        "The same requests with curl, against the API on your own machine (go run ./cmd/retrylab api):");
      curl.open = true;
      showCurl();
    }

    // probe asks each candidate origin for the API's index in turn; the
    // first that answers as the sandbox API is the one used.
    function probe(i, why) {
      if (i >= candidates.length) { unreachable(why); return Promise.resolve(false); }
      var base = candidates[i];
      say("Looking for the sandbox API at " + base + "…");
      return fetch(base + "/v1/", { mode: "cors", credentials: "omit", cache: "no-store" })
        .then(function (res) {
          if (!res.ok) throw new Error("HTTP " + res.status);
          return res.json();
        })
        .then(function (idx) {
          if (!idx || !/retrylab/.test(idx.name || "")) throw new Error("not the sandbox API");
          api = base;
          connected();
          return true;
        }, function (err) {
          return probe(i + 1, err && err.message ? err.message : String(err));
        });
    }

    // The API is looked for when the reader first reaches for the panel,
    // not when the page loads: a page that is only read sends nothing.
    var found = null;
    function ensure() {
      if (!found) found = probe(0, "");
      return found;
    }
    root.addEventListener("pointerdown", ensure, { passive: true });
    root.addEventListener("focusin", ensure);

    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      ensure().then(function (ok) { if (ok) exchange(false); });
    });
    retry.addEventListener("click", function () {
      ensure().then(function (ok) { if (ok && intent) exchange(true); });
    });
    account.addEventListener("click", function () {
      tok = token(true);
      intent = null;
      session = [];
      n = 0;
      log.textContent = "";
      retry.disabled = true;
      say("A new sandbox account: " + tok + ". Its card has no charges yet.");
      showCurl();
      ensure().then(function (ok) { if (ok) refresh(); });
    });
    form.addEventListener("change", function () { if (!session.length) showCurl(); });

    var ctrls = form.querySelectorAll("input, select, button");
    for (var i = 0; i < ctrls.length; i++) ctrls[i].disabled = false;
    retry.disabled = true;
    root.setAttribute("data-live-ready", "true");
    say("Send calls the sandbox API from your browser, as sandbox account " + tok + " (kept in this browser). " +
      "Choose the keys and a fault, press Send, then Retry.");
    showCurl();
  }

  var roots = document.querySelectorAll('[data-widget="live"]');
  for (var i = 0; i < roots.length; i++) setup(roots[i]);
})();
