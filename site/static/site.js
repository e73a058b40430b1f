// retrylab: what the pages do beyond the widgets (loader.js starts those).
// Everything here is an extra: without it the page reads and navigates the
// same. No inline script or style is used, as the Content-Security-Policy
// asks.
//   - The table of contents in the margin marks the section being read.
//   - Every code block gets a Copy button.
//   - "/" puts the cursor in the search field.
(() => {
  "use strict";

  // ---- The section in view ----------------------------------------------
  // The current section is the last heading above a line a quarter of the
  // way down the window; its link in the margin's contents gets
  // aria-current="location" (which the stylesheet marks).
  const toc = document.querySelector("[data-toc]");
  if (toc) {
    const links = toc.querySelectorAll("a[href^='#']");
    const targets = [];
    for (let i = 0; i < links.length; i++) {
      const h = document.getElementById(decodeURIComponent(links[i].getAttribute("href").slice(1)));
      if (h) targets.push({ link: links[i], heading: h });
    }
    let current = null;
    let pending = false;
    const mark = function () {
      pending = false;
      const line = window.innerHeight / 4;
      let now = null;
      for (let j = 0; j < targets.length; j++) {
        if (targets[j].heading.getBoundingClientRect().top <= line) now = targets[j];
        else break;
      }
      // At the very bottom the last sections may never reach the line:
      // the last heading on screen is the one being read.
      if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2) {
        for (let k = targets.length - 1; k >= 0; k--) {
          if (targets[k].heading.getBoundingClientRect().top < window.innerHeight) { now = targets[k]; break; }
        }
      }
      if (now === current) return;
      if (current) current.link.removeAttribute("aria-current");
      current = now;
      if (current) {
        current.link.setAttribute("aria-current", "location");
        // Keep the marked link visible in a long contents list.
        const box = toc.parentElement;
        const r = current.link.getBoundingClientRect(), b = box.getBoundingClientRect();
        if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 2;
      }
    };
    const onScroll = function () {
      if (!pending) { pending = true; window.requestAnimationFrame(mark); }
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", onScroll);
    mark();
  }

  // ---- Copy buttons -------------------------------------------------------
  const blocks = document.querySelectorAll(".code");
  for (let c = 0; c < blocks.length; c++) {
    const pre = blocks[c].querySelector("pre");
    if (!pre) continue;
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "copy-code";
    btn.textContent = "Copy";
    const label = blocks[c].querySelector(".code-label");
    btn.setAttribute("aria-label", "Copy " + (label ? label.textContent.toLowerCase() : "code"));
    blocks[c].appendChild(btn);
  }
  document.addEventListener("click", (ev) => {
    const b = ev.target.closest && ev.target.closest(".copy-code");
    if (!b) return;
    const p = b.parentElement.querySelector("pre");
    const text = p.textContent.replace(/\n$/, "");
    const said = function (msg) {
      b.textContent = msg;
      b.setAttribute("data-state", msg === "Copied" ? "done" : "failed");
      window.setTimeout(() => { b.textContent = "Copy"; b.removeAttribute("data-state"); }, 2000);
    };
    const select = function () {
      const range = document.createRange();
      range.selectNodeContents(p);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      said("Selected: press Ctrl+C");
    };
    if (!navigator.clipboard || !navigator.clipboard.writeText) { select(); return; }
    navigator.clipboard.writeText(text).then(() => { said("Copied"); }, select);
  });

  // ---- "/" to search ------------------------------------------------------
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    const t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    const fields = document.querySelectorAll("[data-search-field]");
    for (let f = 0; f < fields.length; f++) {
      if (fields[f].offsetParent !== null) {
        ev.preventDefault();
        fields[f].focus();
        fields[f].select();
        return;
      }
    }
    // No field on screen (a phone's header has only the link): go to the
    // search page.
    ev.preventDefault();
    window.location.href = "/search/";
  });
})();
