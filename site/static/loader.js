// retrylab loader: fetches the one WebAssembly module that hydrates every
// widget on the page, once, and only when a widget comes near the viewport
// or is touched. Until then the page is plain static HTML: each widget
// already shows its first run.
//
// It also does the little that needs no module: the Copy button of each
// widget's Embed panel, and, on an embed page inside another site's
// iframe, telling embed.js how tall the page is.
(function () {
  "use strict";
  var me = document.currentScript;
  // The live API panel (data-widget="live", live.js) is no simulator: it
  // needs no module.
  var roots = document.querySelectorAll("[data-widget]:not([data-widget=live])");
  if (!me || roots.length === 0) return;
  // An embed page (/embed/NAME/) is its widget and nothing else: load the
  // module at once. So does a permalink to a widget (?w=NAME-N), whose
  // state the module draws.
  var embedPage = document.documentElement.hasAttribute("data-embed");
  var eager = embedPage || /[?&]w=/.test(location.search);
  var wasmURL = me.getAttribute("data-wasm");
  var execURL = me.getAttribute("data-exec");
  var started = false;
  var failed = false;

  // fail tells the reader, in each widget, that its controls will not
  // answer (the page still shows every first run), and lets the form submit
  // again rather than swallowing the reader's clicks.
  function fail(err) {
    failed = true;
    var msg = "The simulator could not start (" + err + "): the run shown is the one this page was built with.";
    for (var i = 0; i < roots.length; i++) {
      var root = roots[i];
      root.setAttribute("data-error", msg);
      var p = root.querySelector(".w-error");
      if (!p) {
        p = document.createElement("p");
        p.className = "w-error";
        p.setAttribute("role", "alert");
        var out = root.querySelector("[data-region=output]");
        root.insertBefore(p, out);
      }
      p.textContent = msg;
    }
    console.warn("retrylab: the simulator could not start:", err);
  }

  function instantiate() {
    var go = new Go();
    // The module runs with its garbage collector off and collects when the
    // page is still (wasm/main.go, collectLater): collecting while a large
    // simulation allocates doubled its time. GOMEMLIMIT is the ceiling at
    // which it collects anyway: a run of 100,000 clients with jitter
    // allocates 25 to 33 MiB, a comparison of two twice that.
    go.env = { GOGC: "off", GOMEMLIMIT: "256MiB" };
    var res = fetch(wasmURL, { credentials: "same-origin" });
    var ready = WebAssembly.instantiateStreaming
      ? WebAssembly.instantiateStreaming(res, go.importObject)
      : res.then(function (r) { return r.arrayBuffer(); })
          .then(function (b) { return WebAssembly.instantiate(b, go.importObject); });
    return ready.then(function (r) { go.run(r.instance); });
  }

  function load() {
    if (started) return;
    started = true;
    if (io) io.disconnect();
    var s = document.createElement("script");
    s.src = execURL;
    s.onload = function () { instantiate().catch(fail); };
    s.onerror = function () { fail("could not load " + execURL); };
    document.head.appendChild(s);
  }

  var io = null;
  if ("IntersectionObserver" in window) {
    // 400px ahead of the viewport: about half a phone screen of scrolling,
    // enough for the module to arrive before the widget is on screen.
    io = new IntersectionObserver(function (entries) {
      for (var i = 0; i < entries.length; i++) {
        if (entries[i].isIntersecting) { load(); return; }
      }
    }, { rootMargin: "400px 0px" });
  }

  function touched(ev) {
    var root = ev.currentTarget;
    // Replay pressed before the module arrived: keep the page, remember it.
    if (ev.type === "submit") {
      if (failed) return;
      ev.preventDefault();
      if (!root.hasAttribute("data-hydrated")) root.setAttribute("data-pending", "replay");
    }
    load();
  }

  for (var i = 0; i < roots.length; i++) {
    var r = roots[i];
    if (io) io.observe(r);
    r.addEventListener("pointerdown", touched, { passive: true });
    r.addEventListener("focusin", touched);
    r.addEventListener("submit", touched);
  }
  if (!io || eager) load();

  // Copy: the snippet to the clipboard, or, where the clipboard is not
  // allowed, selected, for the reader's own Ctrl+C. Delegated from the
  // document, since the module may draw a widget afresh.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest && ev.target.closest("[data-action=copy]");
    if (!btn) return;
    var panel = btn.closest(".w-embed");
    var text = panel && panel.querySelector("[data-region=snippet]");
    var said = panel && panel.querySelector("[data-region=copied]");
    if (!text) return;
    function selected() {
      text.focus();
      text.select();
      if (said) said.textContent = "Selected: press Ctrl+C (⌘C on a Mac) to copy.";
    }
    if (!navigator.clipboard || !navigator.clipboard.writeText) { selected(); return; }
    navigator.clipboard.writeText(text.value).then(function () {
      if (said) said.textContent = "Copied.";
    }, selected);
  });

  // Inside another site's iframe, an embed page tells embed.js its height
  // whenever it changes, so that the frame fits it without a scroll bar.
  if (embedPage && window.parent !== window && "ResizeObserver" in window) {
    var last = 0;
    new ResizeObserver(function () {
      var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (h === last) return;
      last = h;
      // The height is no secret: any origin may embed the page.
      window.parent.postMessage({ type: "retrylab:height", height: h }, "*");
    }).observe(document.documentElement);
  }
})();
