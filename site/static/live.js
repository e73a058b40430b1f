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
(() => {
  "use strict";

  const TOKEN_KEY = "retrylab.live.token";
  const BODY = '{"amount": 2500, "currency": "usd"}';
  const LOCAL = "http://localhost:8787"; // `retrylab api`, for the curl commands when no API answers
  const SHOWN = ["Content-Type", "Idempotency-Key", "Idempotent-Replayed", "Retry-After", "Location"];
  let memoryToken = ""; // when localStorage is refused

  function hex(n) {
    const a = new Uint8Array(n);
    crypto.getRandomValues(a);
    let s = "";
    for (let i = 0; i < a.length; i++) s += ("0" + a[i].toString(16)).slice(-2);
    return s;
  }

  function token(fresh) {
    try {
      let t = fresh ? "" : localStorage.getItem(TOKEN_KEY) || "";
      if (!t) {
        t = "sk_test_" + hex(8);
        localStorage.setItem(TOKEN_KEY, t);
      }
      return t;
    } catch (e) {
      if (fresh || !memoryToken) memoryToken = "sk_test_" + hex(8);
      return memoryToken;
    }
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
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
    const sel = JSON.parse(root.getAttribute("data-selectors") || "{}");
    function part(within, name) {
      const el = sel[name] && within.querySelector(sel[name]);
      if (!el) throw new Error("retrylab live panel: no " + name + " (data-selectors)");
      return el;
    }
    const form = part(root, "controls");
    const status = part(root, "status");
    const log = part(root, "log");
    const ledger = part(root, "ledger");
    const curl = part(root, "curl");
    const curlCode = curl.querySelector("code");
    const send = part(form, "send");
    const retry = part(form, "retry");
    const account = part(form, "account");
    const configured = (root.getAttribute("data-api") || "").replace(/\/+$/, "");
    const candidates = [location.origin];
    if (configured && configured !== location.origin) candidates.push(configured);
    let api = candidates[candidates.length - 1];

    let tok = token(false);
    let reachable = false;
    let intent = null; // {id, key, attempts}
    let session = []; // the curl commands of what was sent
    let n = 0;

    function keysMode() {
      const r = form.querySelector("input[name=keys]:checked");
      return r ? r.value : "per-intent";
    }
    function fault() { return form.elements.fault.value; }

    function say(text) { status.textContent = text; }

    function curlFor(req, base) {
      const lines = ["curl -i " + base + "/v1/payments \\", "  -H " + quote("Authorization: Bearer " + tok) + " \\"];
      if (req.key) lines.push("  -H " + quote("Idempotency-Key: " + req.key) + " \\");
      if (req.fault) lines.push("  -H " + quote("Retrylab-Fault: " + req.fault) + " \\");
      lines.push("  -H " + quote("Content-Type: application/json") + " \\");
      lines.push("  -d " + quote(BODY));
      return lines.join("\n");
    }

    // showCurl writes the curl session: what was sent, or what Send would
    // send, then the ledger.
    function showCurl() {
      const base = reachable ? api : LOCAL;
      const reqs = session.length ? session : [nextRequest(false, true)];
      const parts = [];
      if (!reachable) parts.push("# with `go run ./cmd/retrylab api` running");
      for (let i = 0; i < reqs.length; i++) parts.push(curlFor(reqs[i], base));
      parts.push("curl " + base + "/v1/charges -H " + quote("Authorization: Bearer " + tok));
      curlCode.textContent = parts.join("\n\n");
    }

    // nextRequest is the next request: a new payment (retry false) or the
    // same payment again. preview leaves the state as it is.
    function nextRequest(isRetry, preview) {
      const mode = keysMode();
      let it = intent;
      if (!isRetry || !it) it = { id: hex(4), attempts: 0 };
      const attempt = it.attempts + 1;
      let key = "";
      if (mode === "per-intent") key = "order-" + it.id;
      if (mode === "per-attempt") key = "order-" + it.id + "-attempt-" + attempt;
      if (!preview) {
        it.attempts = attempt;
        intent = it;
      }
      // The fault is for the first attempt: a retry goes out over a
      // network that works again.
      return { key, fault: isRetry ? "" : fault(), attempt, retry: isRetry, mode };
    }

    function exchange(isRetry) {
      const req = nextRequest(isRetry, false);
      session.push(req);
      showCurl();
      n++;
      const item = el("li", "live-exchange");
      item.setAttribute("data-kind", isRetry ? "retry" : "send");
      item.setAttribute("data-state", "waiting");
      const head = el("p", "live-head", (isRetry ? "Retry, attempt " + req.attempt : "Send, a new payment") +
        (req.key ? " (key " + req.key + ")" : " (no key)"));
      const reqText = "POST /v1/payments\nAuthorization: Bearer " + tok +
        (req.key ? "\nIdempotency-Key: " + req.key : "") +
        (req.fault ? "\nRetrylab-Fault: " + req.fault : "") +
        "\nContent-Type: application/json\n\n" + BODY;
      const reqBox = el("div", "live-req");
      reqBox.appendChild(el("p", "live-label", "Request " + n));
      reqBox.appendChild(el("pre", "", reqText));
      const resBox = el("div", "live-res");
      resBox.appendChild(el("p", "live-label", "Answer"));
      const resPre = el("pre", "", "waiting…");
      resBox.appendChild(resPre);
      item.appendChild(head);
      item.appendChild(reqBox);
      item.appendChild(resBox);
      log.appendChild(item);
      retry.disabled = false;

      const headers = { "Authorization": "Bearer " + tok, "Content-Type": "application/json" };
      if (req.key) headers["Idempotency-Key"] = req.key;
      if (req.fault) headers["Retrylab-Fault"] = req.fault;
      return fetch(api + "/v1/payments", { method: "POST", headers, body: BODY, mode: "cors", credentials: "omit", cache: "no-store" })
        .then((res) => {
          return res.text().then((body) => {
            const lines = ["HTTP " + res.status + " " + res.statusText];
            for (let i = 0; i < SHOWN.length; i++) {
              const v = res.headers.get(SHOWN[i]);
              if (v !== null) lines.push(SHOWN[i] + ": " + v);
            }
            resPre.textContent = lines.join("\n") + "\n\n" + pretty(body);
            const replayed = res.headers.get("Idempotent-Replayed") === "true";
            item.setAttribute("data-state", "answered");
            item.setAttribute("data-status", String(res.status));
            item.setAttribute("data-replayed", String(replayed));
            if (replayed) head.appendChild(el("span", "live-badge", "replayed"));
            head.appendChild(el("span", "live-status-code", String(res.status)));
          });
        }, (err) => {
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
        .then((res) => {
          if (!res.ok) throw new Error("HTTP " + res.status);
          return res.json();
        })
        .then((list) => {
          const data = list.data || [];
          const count = typeof list.count === "number" ? list.count : data.length;
          ledger.textContent = "";
          ledger.hidden = false;
          ledger.setAttribute("data-charges", String(count));
          ledger.setAttribute("data-after", String(n)); // requests sent when it was read
          root.setAttribute("data-charges", String(count));
          const h = el("p", "live-label", "The card's charges (GET /v1/charges): " + count);
          ledger.appendChild(h);
          if (data.length === 0) {
            ledger.appendChild(el("p", "live-none", "None yet."));
            return;
          }
          const table = el("table", "live-charges");
          const thead = el("thead");
          const tr = el("tr");
          ["Charge", "Amount", "Payment", "Idempotency-Key"].forEach((t) => { const th = el("th", "", t); th.scope = "col"; tr.appendChild(th); });
          thead.appendChild(tr);
          table.appendChild(thead);
          const tb = el("tbody");
          data.forEach((c) => {
            const row = el("tr");
            [c.id, "$" + (c.amount / 100).toFixed(2), c.payment, c.idempotency_key || ""].forEach((t) => { row.appendChild(el("td", "", t)); });
            tb.appendChild(row);
          });
          table.appendChild(tb);
          const wrap = el("div", "live-table");
          wrap.appendChild(table);
          ledger.appendChild(wrap);
        })
        .catch((err) => {
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
      const base = candidates[i];
      say("Looking for the sandbox API at " + base + "…");
      return fetch(base + "/v1/", { mode: "cors", credentials: "omit", cache: "no-store" })
        .then((res) => {
          if (!res.ok) throw new Error("HTTP " + res.status);
          return res.json();
        })
        .then((idx) => {
          if (!idx || !/retrylab/.test(idx.name || "")) throw new Error("not the sandbox API");
          api = base;
          connected();
          return true;
        }, (err) => {
          return probe(i + 1, err && err.message ? err.message : String(err));
        });
    }

    // The API is looked for when the reader first reaches for the panel,
    // not when the page loads: a page that is only read sends nothing.
    let found = null;
    function ensure() {
      if (!found) found = probe(0, "");
      return found;
    }
    root.addEventListener("pointerdown", ensure, { passive: true });
    root.addEventListener("focusin", ensure);

    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      ensure().then((ok) => { if (ok) exchange(false); });
    });
    retry.addEventListener("click", () => {
      ensure().then((ok) => { if (ok && intent) exchange(true); });
    });
    account.addEventListener("click", () => {
      tok = token(true);
      intent = null;
      session = [];
      n = 0;
      log.textContent = "";
      retry.disabled = true;
      say("A new sandbox account: " + tok + ". Its card has no charges yet.");
      showCurl();
      ensure().then((ok) => { if (ok) refresh(); });
    });
    form.addEventListener("change", () => { if (!session.length) showCurl(); });

    const ctrls = form.querySelectorAll("input, select, button");
    for (let i = 0; i < ctrls.length; i++) ctrls[i].disabled = false;
    retry.disabled = true;
    root.setAttribute("data-live-ready", "true");
    say("Send calls the sandbox API from your browser, as sandbox account " + tok + " (kept in this browser). " +
      "Choose the keys and a fault, press Send, then Retry.");
    showCurl();
  }

  const roots = document.querySelectorAll('[data-widget="live"]');
  for (let i = 0; i < roots.length; i++) setup(roots[i]);
})();
