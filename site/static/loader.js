// retrylab loader: fetches the one WebAssembly module that hydrates every
// widget on the page, once, when a widget comes near the viewport or is
// touched, and starts it once the reader is there to use it. Until then
// the page is plain static HTML: each widget already shows its first run.
//
// It also starts the simulator worker, the same module in a Web Worker
// that computes the widgets' runs off the page's main thread
// (simworker.js), and does the little that needs no module: "loading the
// simulator…" on a widget changed before the module runs, the Copy button
// of each widget's Embed panel, and, on an embed page inside another
// site's iframe, telling embed.js how tall the page is.
(function () {
  "use strict";
  var me = document.currentScript;
  // The live API panel (data-widget="live", live.js) is no simulator: it
  // needs no module.
  var roots = document.querySelectorAll("[data-widget]:not([data-widget=live])");
  // A page that draws its widgets later (the playground's preview) marks
  // an element data-widgets-later, and sends "retrylab:widgets" on the
  // document after each drawing.
  var later = document.querySelector("[data-widgets-later]") !== null;
  if (!me || (roots.length === 0 && !later)) return;
  // A page whose address asks for a state the module must draw starts it
  // at once: an embed page with a query (/embed/payment/?keys=per-intent)
  // and a permalink to a widget (?w=NAME-N&...).
  var embedPage = document.documentElement.hasAttribute("data-embed");
  var eager = (embedPage && location.search.length > 1) || /[?&]w=/.test(location.search);
  // The parts of a widget the loader looks for, by the selectors the page
  // carries (declared once, in site/widget/names.go).
  var sel = JSON.parse(me.getAttribute("data-selectors") || "{}");
  ["output", "snippet", "copied", "copy", "permalink", "linkCopied"].forEach(function (name) {
    if (!sel[name]) throw new Error("retrylab loader: the page's data-selectors has no " + name);
  });
  var wasmURL = me.getAttribute("data-wasm");
  var execURL = me.getAttribute("data-exec");
  var workerURL = me.getAttribute("data-worker");
  // The module runs with its garbage collector off and collects when the
  // page is still (wasm/main.go, collectLater): collecting while a large
  // simulation allocates doubled its time. GOMEMLIMIT is the ceiling at
  // which it collects anyway: a run of 100,000 clients with jitter
  // allocates 25 to 33 MiB, a comparison of two twice that. The worker's
  // copy runs with the same.
  var env = { GOGC: "off", GOMEMLIMIT: "256MiB" };
  var prepared = null; // the promise of the module's instance: see prepare
  var started = false;
  var failed = false;
  // readerHere is whether the reader has given any input yet (see
  // onReader); nearby, whether a widget has come near the viewport.
  var readerHere = false;
  var nearby = false;

  // fail tells the reader, in each widget, that its controls will not
  // answer (the page still shows every first run), and lets the form submit
  // again rather than swallowing the reader's clicks.
  function fail(err) {
    failed = true;
    state("failed");
    var msg = "The simulator could not start (" + err + "): the run shown is the one this page was built with.";
    if (later) roots = document.querySelectorAll("[data-widget]:not([data-widget=live])");
    for (var i = 0; i < roots.length; i++) {
      var root = roots[i];
      idle(root);
      root.setAttribute("data-error", msg);
      var p = root.querySelector(".w-error");
      if (!p) {
        p = document.createElement("p");
        p.className = "w-error";
        p.setAttribute("role", "alert");
        var out = root.querySelector(sel.output);
        root.insertBefore(p, out);
      }
      p.textContent = msg;
    }
    console.warn("retrylab: the simulator could not start:", err);
  }

  // prepare fetches the module and makes its instance, without running
  // it, in tasks of the page's that are each short: the compilation streams
  // on the browser's own threads as the bytes arrive (compileStreaming),
  // and the instance is made in a task of its own. It returns the promise
  // of {go, instance}, the same one every time.
  function prepare() {
    if (prepared) return prepared;
    if (io) io.disconnect();
    prepared = script(execURL).then(function () {
      var go = new Go();
      go.env = env;
      var res = fetch(wasmURL, { credentials: "same-origin" });
      var compiled = WebAssembly.compileStreaming
        ? WebAssembly.compileStreaming(res)
        : res.then(function (r) { return r.arrayBuffer(); })
            .then(function (b) { return WebAssembly.compile(b); });
      return compiled.then(nextTask)
        .then(function (mod) {
          return WebAssembly.instantiate(mod, go.importObject).then(function (instance) {
            state("ready");
            return { go: go, instance: instance, module: mod };
          });
        });
    });
    prepared.catch(fail);
    return prepared;
  }

  // start runs the module, once: it hydrates the widgets one per task
  // (wasm/main.go). The Go runtime's own start is one task that cannot be
  // cut: V8 compiles a module's functions on the main thread when each is
  // first called, and the runtime calls some 350 before any of the
  // handbook's code runs (50 to 75 ms on the machine the bench runs on,
  // four times that on the slow phone Lighthouse imitates). That is why
  // it waits for the reader rather than running as the page loads.
  function start() {
    if (started) return;
    started = true;
    prepare().then(nextTask).then(function (m) {
      state("running");
      startWorker(m.module);
      try { m.go.run(m.instance); } catch (err) { fail(err); }
    }, function () {}); // prepare has told the reader already
  }

  // startWorker starts the simulator worker, posting it the module
  // compiled here (it is not fetched or compiled again), before the
  // module runs here and finds it as window.retrylabWorker
  // (wasm/worker.go). The worker's own start, the Go runtime's, is on its
  // thread. Where there are no workers the module computes the runs here.
  function startWorker(mod) {
    if (!workerURL || typeof Worker !== "function") return;
    try {
      var w = new Worker(workerURL, { name: "retrylab simulator" });
      w.postMessage({ module: mod, exec: new URL(execURL, location.href).href, env: env });
      window.retrylabWorker = w;
    } catch (err) {
      console.warn("retrylab: no simulator worker, the page computes the runs itself:", err);
    }
  }

  // loading shows that a widget changed before the module runs will
  // answer once it does: aria-busy, and "loading the simulator…"
  // (widget.css). The module applies the change when it hydrates the
  // widget, and takes the state away once drawn (wasm/main.go, idle).
  function loading(root) {
    if (failed || root.hasAttribute("data-hydrated")) return;
    root.setAttribute("aria-busy", "true");
    root.setAttribute("data-busy", "loading");
  }

  function idle(root) {
    root.removeAttribute("aria-busy");
    root.removeAttribute("data-busy");
  }

  // state shows on the loader's script element how far the module is:
  // "ready" (fetched, compiled and instantiated), "running", "failed".
  function state(s) { me.setAttribute("data-state", s); }

  // script loads the script at src, resolving once it has run.
  function script(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject("could not load " + src); };
      document.head.appendChild(s);
    });
  }

  // nextTask resolves to v in a task of its own, after whatever the page
  // has queued (the reader's input, a frame to draw).
  function nextTask(v) {
    return new Promise(function (resolve) { setTimeout(function () { resolve(v); }, 0); });
  }

  // near is a widget coming near the viewport: the module is fetched and
  // made ready, and started if the reader is already here.
  function near() {
    nearby = true;
    prepare();
    if (readerHere || eager) start();
  }

  var io = null;
  if ("IntersectionObserver" in window) {
    // 400px ahead of the viewport: about half a phone screen of scrolling,
    // enough for the module to arrive before the widget is on screen.
    io = new IntersectionObserver(function (entries) {
      for (var i = 0; i < entries.length; i++) {
        if (entries[i].isIntersecting) { near(); return; }
      }
    }, { rootMargin: "400px 0px" });
  }

  // onReader answers the reader's first input of any kind on the page (a
  // pointer moving or pressed, a key, a wheel, a touch, a scroll): from
  // then on, a widget near the viewport starts the module at once. A
  // reader moves, scrolls or tabs before changing a control, so the module
  // is running by the first change; a page nobody uses runs nothing.
  var readerEvents = ["pointermove", "pointerdown", "keydown", "wheel", "touchstart", "scroll"];
  function onReader() {
    if (readerHere) return;
    readerHere = true;
    for (var i = 0; i < readerEvents.length; i++) {
      window.removeEventListener(readerEvents[i], onReader, { capture: true, passive: true });
    }
    if (nearby) start();
  }
  for (var j = 0; j < readerEvents.length; j++) {
    window.addEventListener(readerEvents[j], onReader, { capture: true, passive: true });
  }

  function touched(ev) {
    var root = ev.currentTarget;
    // Replay pressed before the module arrived: keep the page, remember it.
    if (ev.type === "submit") {
      if (failed) return;
      ev.preventDefault();
      if (!root.hasAttribute("data-hydrated")) {
        root.setAttribute("data-pending", "replay");
        loading(root);
      }
    }
    onReader();
    start();
  }

  function changed(ev) {
    loading(ev.currentTarget);
    touched(ev);
  }

  for (var i = 0; i < roots.length; i++) {
    var r = roots[i];
    if (io) io.observe(r);
    r.addEventListener("pointerdown", touched, { passive: true });
    r.addEventListener("focusin", touched);
    r.addEventListener("submit", touched);
    r.addEventListener("change", changed);
  }
  if (!io) near();
  else if (eager) start();
  // Widgets drawn later are drawn for the reader, who is typing: the
  // module is fetched at once and runs at the first drawing.
  if (later) {
    prepare();
    document.addEventListener("retrylab:widgets", function () { onReader(); start(); });
  }

  // "Link to this state": a click copies the link and says so, where the
  // Clipboard API may be used; elsewhere, or if the browser refuses, the
  // click follows the link. A click that opens a tab keeps its meaning, and
  // so does the link of an embed page, which opens the article in a new
  // tab (site/widget, toolbar). Delegated from the document, since the
  // module may draw a widget afresh.
  document.addEventListener("click", function (ev) {
    var link = ev.target.closest && ev.target.closest(sel.permalink);
    if (!link || link.target || ev.defaultPrevented || ev.button !== 0 ||
        ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey ||
        !navigator.clipboard || !navigator.clipboard.writeText) return;
    ev.preventDefault();
    var said = link.parentNode.querySelector(sel.linkCopied);
    navigator.clipboard.writeText(link.href).then(function () {
      if (said) said.textContent = "Link copied.";
    }, function () { location.assign(link.href); });
  });

  // Copy: the snippet to the clipboard, or, where the clipboard is not
  // allowed, selected, for the reader's own Ctrl+C. Delegated from the
  // document, since the module may draw a widget afresh.
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest && ev.target.closest(sel.copy);
    if (!btn) return;
    var panel = btn.closest(".w-embed");
    var text = panel && panel.querySelector(sel.snippet);
    var said = panel && panel.querySelector(sel.copied);
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
