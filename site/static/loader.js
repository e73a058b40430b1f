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
(() => {
  "use strict";
  // The names the page, the module and this script share, written in by
  // the build from site/widget/names.go.
  const names = /*names*/{};
  const me = document.currentScript;
  // The live API panel (live.js) is no simulator: it needs no module.
  let roots = document.querySelectorAll(names.sel.simulators);
  // A page that draws its widgets later (the playground's preview) says
  // so on an element, and sends names.event.widgets on the document after
  // each drawing.
  const later = document.querySelector("[" + names.attr.widgetsLater + "]") !== null;
  if (!me || (roots.length === 0 && !later)) return;
  // A page whose address asks for a state the module must draw starts it
  // at once: an embed page with a query (/embed/payment/?keys=per-intent)
  // and a permalink to a widget (?w=NAME-N&...).
  const embedPage = document.documentElement.hasAttribute(names.attr.embed);
  const eager = (embedPage && location.search.length > 1) || /[?&]w=/.test(location.search);
  const wasmURL = me.getAttribute("data-wasm");
  const execURL = me.getAttribute("data-exec");
  const workerURL = me.getAttribute("data-worker");
  // The module runs with its garbage collector off and collects when the
  // page is still (wasm/main.go, collectLater): collecting while a large
  // simulation allocates doubled its time. GOMEMLIMIT is the ceiling at
  // which it collects anyway: a run of 100,000 clients with jitter
  // allocates 25 to 33 MiB, a comparison of two twice that. The worker's
  // copy runs with the same.
  const env = { GOGC: "off", GOMEMLIMIT: "256MiB" };
  let prepared = null; // the promise of the module's instance: see prepare
  let started = false;
  let failed = false;
  // readerHere is whether the reader has given any input yet (see
  // onReader); nearby, whether a widget has come near the viewport.
  let readerHere = false;
  let nearby = false;

  // showError puts msg in root's error box (role=alert), made on first
  // use above the output, which keeps the last run drawn on screen; ""
  // takes the box away. The module asks for it with names.event.error.
  function showError(root, msg) {
    let box = root.querySelector("." + names.cls.error);
    if (!msg) {
      if (box) box.remove();
      root.removeAttribute(names.attr.error);
      return;
    }
    if (!box) {
      box = document.createElement("p");
      box.className = names.cls.error;
      box.setAttribute("role", "alert");
      root.insertBefore(box, root.querySelector(names.sel.output));
    }
    box.textContent = msg;
    root.setAttribute(names.attr.error, msg);
  }
  document.addEventListener(names.event.error, (ev) => {
    if (ev.target instanceof Element) showError(ev.target, String(ev.detail || ""));
  });

  // fail tells the reader, in each widget, that its controls will not
  // answer (the page still shows every first run), and lets the form submit
  // again rather than swallowing the reader's clicks.
  function fail(err) {
    failed = true;
    state("failed");
    const why = err && err.message ? err.message : String(err);
    const msg = "The simulator could not start (" + why + "): the run shown is the one this page was built with.";
    if (later) roots = document.querySelectorAll(names.sel.simulators);
    for (const root of roots) {
      idle(root);
      showError(root, msg);
    }
    console.warn("retrylab: the simulator could not start:", err);
  }

  // prepare fetches the module and makes its instance, without running
  // it, in tasks of the page's that are each short: the compilation streams
  // on the browser's own threads as the bytes arrive (compileStreaming),
  // and the instance is made in a task of its own. It returns the promise
  // of {go, instance, module}, the same one every time.
  function prepare() {
    if (prepared) return prepared;
    if (io) io.disconnect();
    prepared = script(execURL).then(() => {
      const go = new Go();
      go.env = env;
      const res = fetch(wasmURL, { credentials: "same-origin" }).then((r) => {
        if (!r.ok) throw new Error("HTTP " + r.status + " for " + wasmURL);
        return r;
      });
      const compiled = WebAssembly.compileStreaming
        ? WebAssembly.compileStreaming(res)
        : res.then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b));
      return compiled.then(nextTask)
        .then((mod) => WebAssembly.instantiate(mod, go.importObject).then((instance) => {
          state("ready");
          return { go, instance, module: mod };
        }));
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
    prepare().then(nextTask).then((m) => {
      state("running");
      startWorker(m.module);
      m.go.run(m.instance).catch(fail);
    }, () => {}); // prepare has told the reader already
  }

  // startWorker starts the simulator worker, posting it the module
  // compiled here (it is not fetched or compiled again), before the
  // module runs here and finds it as window[names.global.worker]
  // (wasm/worker.go). The worker's own start, the Go runtime's, is on its
  // thread. Where there are no workers the module computes the runs here.
  function startWorker(mod) {
    if (!workerURL || typeof Worker !== "function") return;
    try {
      const w = new Worker(workerURL, { name: "retrylab simulator" });
      w.postMessage({ module: mod, exec: new URL(execURL, location.href).href, env });
      window[names.global.worker] = w;
    } catch (err) {
      console.warn("retrylab: no simulator worker, the page computes the runs itself:", err);
    }
  }

  // loading shows that a widget changed before the module runs will
  // answer once it does: aria-busy, and "loading the simulator…"
  // (widget.css). The module applies the change when it hydrates the
  // widget, and takes the state away once drawn (wasm/main.go, idle).
  function loading(root) {
    if (failed || root.hasAttribute(names.attr.hydrated)) return;
    root.setAttribute("aria-busy", "true");
    root.setAttribute(names.attr.busy, names.busy.loading);
  }

  function idle(root) {
    root.removeAttribute("aria-busy");
    root.removeAttribute(names.attr.busy);
  }

  // state shows on the loader's script element how far the module is:
  // "ready" (fetched, compiled and instantiated), "running", "failed".
  function state(s) { me.setAttribute("data-state", s); }

  // script loads the script at src, resolving once it has run.
  function script(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new Error("could not load " + src));
      document.head.appendChild(s);
    });
  }

  // nextTask resolves to v in a task of its own, after whatever the page
  // has queued (the reader's input, a frame to draw).
  function nextTask(v) {
    return new Promise((resolve) => setTimeout(() => resolve(v), 0));
  }

  // near is a widget coming near the viewport: the module is fetched and
  // made ready, and started if the reader is already here.
  function near() {
    nearby = true;
    prepare();
    if (readerHere || eager) start();
  }

  let io = null;
  if ("IntersectionObserver" in window) {
    // 400px ahead of the viewport: about half a phone screen of scrolling,
    // enough for the module to arrive before the widget is on screen.
    io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) near();
    }, { rootMargin: "400px 0px" });
  }

  // onReader answers the reader's first input of any kind on the page (a
  // pointer moving or pressed, a key, a wheel, a touch, a scroll): from
  // then on, a widget near the viewport starts the module at once. A
  // reader moves, scrolls or tabs before changing a control, so the module
  // is running by the first change; a page nobody uses runs nothing.
  const readerEvents = ["pointermove", "pointerdown", "keydown", "wheel", "touchstart", "scroll"];
  const readerOpts = { capture: true, passive: true };
  function onReader() {
    if (readerHere) return;
    readerHere = true;
    for (const type of readerEvents) window.removeEventListener(type, onReader, readerOpts);
    if (nearby) start();
  }
  for (const type of readerEvents) window.addEventListener(type, onReader, readerOpts);

  function touched(ev) {
    const root = ev.currentTarget;
    // Replay pressed before the module arrived: keep the page, remember it.
    if (ev.type === "submit") {
      if (failed) return;
      ev.preventDefault();
      if (!root.hasAttribute(names.attr.hydrated)) {
        root.setAttribute(names.attr.pending, names.pending.replay);
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

  for (const r of roots) {
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
    document.addEventListener(names.event.widgets, () => { onReader(); start(); });
  }

  // "Link to this state": a click copies the link and says so, where the
  // Clipboard API may be used; elsewhere, or if the browser refuses, the
  // click follows the link. A click that opens a tab keeps its meaning, and
  // so does the link of an embed page, which opens the article in a new
  // tab (site/widget, toolbar). Delegated from the document, since the
  // module may draw a widget afresh.
  document.addEventListener("click", (ev) => {
    const link = ev.target.closest && ev.target.closest(names.sel.permalink);
    if (!link || link.target || ev.defaultPrevented || ev.button !== 0 ||
        ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey ||
        !navigator.clipboard || !navigator.clipboard.writeText) return;
    ev.preventDefault();
    const said = link.parentNode.querySelector(names.sel.linkCopied);
    navigator.clipboard.writeText(link.href).then(() => {
      if (said) said.textContent = "Link copied.";
    }, () => location.assign(link.href));
  });

  // Copy: the snippet to the clipboard, or, where the clipboard is not
  // allowed, selected, for the reader's own Ctrl+C. Delegated from the
  // document, since the module may draw a widget afresh.
  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest && ev.target.closest(names.sel.copy);
    if (!btn) return;
    const panel = btn.closest("." + names.cls.embed);
    const text = panel && panel.querySelector(names.sel.snippet);
    const said = panel && panel.querySelector(names.sel.copied);
    if (!text) return;
    function selected() {
      text.focus();
      text.select();
      if (said) said.textContent = "Selected: press Ctrl+C (⌘C on a Mac) to copy.";
    }
    if (!navigator.clipboard || !navigator.clipboard.writeText) { selected(); return; }
    navigator.clipboard.writeText(text.value).then(() => {
      if (said) said.textContent = "Copied.";
    }, selected);
  });

  // Inside another site's iframe, an embed page tells embed.js its height
  // whenever it changes, so that the frame fits it without a scroll bar.
  if (embedPage && window.parent !== window && "ResizeObserver" in window) {
    let last = 0;
    new ResizeObserver(() => {
      const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (h === last) return;
      last = h;
      // The height is no secret: any origin may embed the page.
      window.parent.postMessage({ type: names.message.height, height: h }, "*");
    }).observe(document.documentElement);
  }
})();
