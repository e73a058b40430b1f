// retrylab playground (/playground/): an editor whose preview is drawn by
// the site's own build. The page's module (cmd/playground, fetched as the
// page loads: it is what the page is for) renders the text with the
// generator's markdown converter and returns the article's body, or the
// problems the build would refuse it for, each at its line. This script
// draws either, keeps the text in localStorage, and writes it into a
// link. The widgets of the preview are hydrated by the handbook's own
// module, as in an article: the loader (loader.js) starts it at the first
// names.event.widgets, and the module hydrates every new widget at each
// one.
(() => {
  "use strict";
  // The names this script shares with the page and the module, written in
  // by the build from site/widget/names.go.
  const names = /*names*/{};
  const me = document.currentScript;
  const page = document.querySelector("[data-playground]");
  if (!me || !page) return;
  function part(name) { return page.querySelector("[data-pg-" + name + "]"); }
  const text = part("text"), lines = part("lines"), preview = part("preview");
  const status = part("status"), problems = part("problems"), here = part("here");
  const share = part("share"), reset = part("reset"), link = part("link"), said = part("said");

  // The starter text is the textarea's own content, as the build wrote it.
  const example = text.defaultValue;
  const storeKey = "retrylab:playground";
  // Typing pauses shorter than this are one edit: 200 ms is about the gap
  // between a touch typist's keys at 60 words a minute (5 characters a
  // word, 300 a minute, 200 ms each), so the preview follows a pause, not
  // every key.
  const quiet = 200;
  // The longest link offered: RFC 9110 (section 4.1) asks every sender
  // and recipient of a URI to support at least 8,000 octets; a longer one
  // may be cut short on its way.
  const maxLink = 8000;

  let api = null;      // the module's render, once it runs
  let pending = 0;     // the timer of the next render
  let fromLink = false; // the text is a link's, not yet edited

  function setStatus(s) { status.textContent = s; }
  function say(s) { said.textContent = s; }

  // ---- The text: a link's, else the last one kept, else the example ----

  function kept() {
    try { return localStorage.getItem(storeKey); } catch (e) { return null; }
  }
  function keep() {
    try {
      if (text.value === example) localStorage.removeItem(storeKey);
      else localStorage.setItem(storeKey, text.value);
    } catch (e) { /* storage off: the text lasts as long as the page */ }
  }

  // A link holds the text in its fragment, never sent to a server:
  // #z= deflate-raw, then base64url, where the browser can compress
  // (CompressionStream); #t= the UTF-8 text in base64url otherwise.
  function toBase64url(bytes) {
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function fromBase64url(s) {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function through(stream, bytes) {
    return new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer()
      .then((b) => { return new Uint8Array(b); });
  }
  function encode(s) {
    const bytes = new TextEncoder().encode(s);
    if (!("CompressionStream" in window)) return Promise.resolve("t=" + toBase64url(bytes));
    return through(new CompressionStream("deflate-raw"), bytes).then((z) => { return "z=" + toBase64url(z); });
  }
  function decode(fragment) {
    const m = /^#([tz])=([A-Za-z0-9_-]*)$/.exec(fragment);
    if (!m) return Promise.resolve(null);
    return Promise.resolve().then(() => {
      const bytes = fromBase64url(m[2]);
      if (m[1] === "t") return bytes;
      if (!("DecompressionStream" in window)) throw new Error("this browser cannot decompress it (no DecompressionStream)");
      return through(new DecompressionStream("deflate-raw"), bytes);
    }).then((bytes) => {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    });
  }

  // ---- The editor's gutter: one number per line, problems marked ----

  let badLines = {};
  function drawLines() {
    const n = text.value.split("\n").length;
    let html = "";
    for (let i = 1; i <= n; i++) html += badLines[i] ? '<span class="pg-bad">' + i + "</span>" : "<span>" + i + "</span>";
    lines.innerHTML = html;
    lines.scrollTop = text.scrollTop;
  }
  text.addEventListener("scroll", () => { lines.scrollTop = text.scrollTop; });

  // goToLine puts the caret at the start of line n and scrolls it into view.
  function goToLine(n) {
    let at = 0;
    for (let i = 1; i < n; i++) {
      const nl = text.value.indexOf("\n", at);
      if (nl < 0) break;
      at = nl + 1;
    }
    text.focus();
    text.setSelectionRange(at, at);
    const lineHeight = parseFloat(getComputedStyle(text).lineHeight) || 20;
    text.scrollTop = Math.max(0, (n - 3) * lineHeight);
  }

  // ---- The preview ----

  // show draws the module's answer: the page, or the problems over the
  // last good page, dimmed.
  // writeProblem writes problem p into el: a button to its line, if it
  // has one, then its message.
  function writeProblem(el, p) {
    if (p.line > 0) {
      const b = document.createElement("button");
      b.type = "button";
      b.setAttribute("data-line", p.line);
      b.textContent = "line " + p.line;
      el.appendChild(b);
    }
    el.appendChild(document.createTextNode(p.message));
  }

  function show(r) {
    const list = r.problems || [];
    shown = list;
    drawHere();
    badLines = {};
    problems.textContent = "";
    for (let i = 0; i < list.length; i++) {
      const p = list[i];
      const li = document.createElement("li");
      if (p.line > 0) badLines[p.line] = true;
      writeProblem(li, p);
      problems.appendChild(li);
    }
    problems.hidden = list.length === 0;
    drawLines();
    if (list.length > 0) {
      preview.setAttribute("data-stale", "true");
      setStatus(list.length === 1 ? "The build would refuse this text; the preview is the last text it took."
        : "The build would refuse this text for " + list.length + " reasons; the preview is the last text it took.");
      return;
    }
    preview.removeAttribute("data-stale");
    setStatus("");
    const head = '<header class="article-head"><h1>' + escapeHTML(r.title) + "</h1>" +
      (r.description ? '<p class="lede">' + escapeHTML(r.description) + "</p>" : "") + "</header>\n";
    if (morph(preview, head + r.html)) document.dispatchEvent(new CustomEvent(names.event.widgets));
  }

  problems.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-line]");
    if (b) goToLine(parseInt(b.getAttribute("data-line"), 10));
  });

  // ---- The problem at hand, under the editor ----

  // The list sits above the preview, out of view while an author edits
  // far down a long draft (the editor stays in view, the page's top does
  // not); the line under the editor shows the problem nearest the
  // caret's line, so the one being fixed is always in view.
  let shown = []; // the problems drawn last
  function caretLine() {
    const v = text.value, end = text.selectionStart;
    let n = 1;
    for (let i = v.indexOf("\n"); i >= 0 && i < end; i = v.indexOf("\n", i + 1)) n++;
    return n;
  }
  function drawHere() {
    if (shown.length === 0) {
      here.hidden = true;
      here.textContent = "";
      return;
    }
    const at = caretLine();
    let best = 0;
    for (let i = 1; i < shown.length; i++) {
      if (Math.abs(shown[i].line - at) < Math.abs(shown[best].line - at)) best = i;
    }
    const p = shown[best];
    here.textContent = "";
    writeProblem(here, p);
    if (shown.length > 1) {
      const more = document.createElement("span");
      more.className = "pg-here-count";
      more.textContent = " (" + (best + 1) + " of " + shown.length + " problems)";
      here.appendChild(more);
    }
    here.hidden = false;
  }
  here.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-line]");
    if (b) goToLine(parseInt(b.getAttribute("data-line"), 10));
  });
  // The caret moves by keys, clicks and the list's buttons alike.
  document.addEventListener("selectionchange", () => {
    if (document.activeElement === text && shown.length > 1) drawHere();
  });

  function escapeHTML(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // morph makes el's children those of html, keeping each child whose
  // markup is unchanged (a widget the reader set keeps its state while
  // the prose around it is edited, and is not hydrated again), and
  // reports whether a new widget was drawn.
  function morph(el, html) {
    const t = document.createElement("template");
    t.innerHTML = html;
    const old = {};
    for (let c = el.firstChild; c; c = c.nextSibling) {
      const k = c.pgSource;
      if (k !== undefined) (old[k] = old[k] || []).push(c);
    }
    const next = [];
    let drewWidget = false;
    const fresh = Array.prototype.slice.call(t.content.childNodes);
    for (let i = 0; i < fresh.length; i++) {
      const n = fresh[i];
      const key = n.nodeType === 1 ? n.outerHTML : "#" + n.nodeValue;
      const same = old[key] && old[key].shift();
      if (same) { next.push(same); continue; }
      n.pgSource = key;
      if (n.nodeType === 1 && (n.matches(names.sel.simulators) || n.querySelector(names.sel.simulators))) drewWidget = true;
      next.push(n);
    }
    el.replaceChildren.apply(el, next);
    return drewWidget;
  }

  function render() {
    pending = 0;
    if (!api) return;
    const t0 = performance.now();
    const r = api.render(text.value);
    // How long the module took to render the text, for the record.
    page.setAttribute("data-pg-ms", (performance.now() - t0).toFixed(1));
    show(r);
  }

  text.addEventListener("input", () => {
    if (fromLink) {
      // The text is the reader's now: kept, and the address no longer
      // claims to hold it.
      fromLink = false;
      history.replaceState(null, "", location.pathname + location.search);
    }
    keep();
    drawLines();
    link.hidden = true;
    say("");
    if (pending) clearTimeout(pending);
    pending = setTimeout(render, quiet);
  });

  reset.addEventListener("click", () => {
    text.value = example;
    fromLink = false;
    history.replaceState(null, "", location.pathname + location.search);
    keep();
    link.hidden = true;
    say("The example is back.");
    render();
  });

  share.addEventListener("click", () => {
    encode(text.value).then((frag) => {
      const url = location.origin + location.pathname + "#" + frag;
      if (url.length > maxLink) {
        link.hidden = true;
        say("This text makes a link of " + url.length.toLocaleString("en") + " characters, more than the " +
          maxLink.toLocaleString("en") + " a link is sure to keep: shorten the text, or share it as a file.");
        return;
      }
      link.value = url;
      link.hidden = false;
      link.select();
      if (!navigator.clipboard || !navigator.clipboard.writeText) { say("Selected: press Ctrl+C (⌘C on a Mac) to copy."); return; }
      navigator.clipboard.writeText(url).then(() => { say("Link copied."); },
        () => { say("Selected: press Ctrl+C (⌘C on a Mac) to copy."); });
    }, (err) => { say("No link could be made: " + err); });
  });

  // ---- Start: the text, and the module at once ----

  function script(src) {
    if (window.Go) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }
  function start() {
    return script(me.getAttribute("data-exec")).then(() => {
      const go = new Go();
      const res = fetch(me.getAttribute("data-wasm"), { credentials: "same-origin" });
      const made = WebAssembly.instantiateStreaming
        ? WebAssembly.instantiateStreaming(res, go.importObject)
        : res.then((r) => { return r.arrayBuffer(); })
            .then((b) => { return WebAssembly.instantiate(b, go.importObject); });
      return made.then((m) => {
        go.run(m.instance);
        if (!window.retrylabPlayground) throw new Error("the module did not start");
        return window.retrylabPlayground;
      });
    });
  }

  const textReady = decode(location.hash).then((t) => {
    if (t !== null) {
      text.value = t;
      fromLink = true;
    } else {
      const k = kept();
      if (k !== null) text.value = k;
    }
  }, (err) => {
    say("The link's text could not be read (" + err.message + "); here is your last text instead.");
    const k = kept();
    if (k !== null) text.value = k;
  }).then(drawLines);

  Promise.all([start(), textReady]).then((all) => {
    api = all[0];
    share.disabled = false;
    reset.disabled = false;
    page.setAttribute("data-pg-state", "ready");
    render();
  }, (err) => {
    page.setAttribute("data-pg-state", "failed");
    setStatus("The editor could not start (" + (err && err.message || err) + "): the preview needs the playground's module.");
  });
})();
