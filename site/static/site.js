// retrylab: what the pages do beyond the widgets (loader.js starts those).
// Everything here is an extra: without it the page reads and navigates the
// same. No inline script or style is used, as the Content-Security-Policy
// asks.
//   - The table of contents in the margin marks the section being read.
//   - Every code block gets a Copy button.
//   - "/" puts the cursor in the search field.
(function () {
  "use strict";

  // ---- The section in view ----------------------------------------------
  // The current section is the last heading above a line a quarter of the
  // way down the window; its link in the margin's contents gets
  // aria-current="location" (which the stylesheet marks).
  var toc = document.querySelector("[data-toc]");
  if (toc) {
    var links = toc.querySelectorAll("a[href^='#']");
    var targets = [];
    for (var i = 0; i < links.length; i++) {
      var h = document.getElementById(decodeURIComponent(links[i].getAttribute("href").slice(1)));
      if (h) targets.push({ link: links[i], heading: h });
    }
    var current = null;
    var pending = false;
    var mark = function () {
      pending = false;
      var line = window.innerHeight / 4;
      var now = null;
      for (var j = 0; j < targets.length; j++) {
        if (targets[j].heading.getBoundingClientRect().top <= line) now = targets[j];
        else break;
      }
      // At the very bottom the last sections may never reach the line:
      // the last heading on screen is the one being read.
      if (window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2) {
        for (var k = targets.length - 1; k >= 0; k--) {
          if (targets[k].heading.getBoundingClientRect().top < window.innerHeight) { now = targets[k]; break; }
        }
      }
      if (now === current) return;
      if (current) current.link.removeAttribute("aria-current");
      current = now;
      if (current) {
        current.link.setAttribute("aria-current", "location");
        // Keep the marked link visible in a long contents list.
        var box = toc.parentElement;
        var r = current.link.getBoundingClientRect(), b = box.getBoundingClientRect();
        if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - b.height / 2;
      }
    };
    var onScroll = function () {
      if (!pending) { pending = true; window.requestAnimationFrame(mark); }
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", onScroll);
    mark();
  }

  // ---- Copy buttons -------------------------------------------------------
  var blocks = document.querySelectorAll(".code");
  for (var c = 0; c < blocks.length; c++) {
    var pre = blocks[c].querySelector("pre");
    if (!pre) continue;
    var btn = document.createElement("button");
    btn.type = "button";
    btn.className = "copy-code";
    btn.textContent = "Copy";
    var label = blocks[c].querySelector(".code-label");
    btn.setAttribute("aria-label", "Copy " + (label ? label.textContent.toLowerCase() : "code"));
    blocks[c].appendChild(btn);
  }
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest(".copy-code");
    if (!b) return;
    var p = b.parentElement.querySelector("pre");
    var text = p.textContent.replace(/\n$/, "");
    var said = function (msg) {
      b.textContent = msg;
      b.setAttribute("data-state", msg === "Copied" ? "done" : "failed");
      window.setTimeout(function () { b.textContent = "Copy"; b.removeAttribute("data-state"); }, 2000);
    };
    var select = function () {
      var range = document.createRange();
      range.selectNodeContents(p);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      said("Selected: press Ctrl+C");
    };
    if (!navigator.clipboard || !navigator.clipboard.writeText) { select(); return; }
    navigator.clipboard.writeText(text).then(function () { said("Copied"); }, select);
  });

  // ---- "/" to search ------------------------------------------------------
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var fields = document.querySelectorAll("[data-search-field]");
    for (var f = 0; f < fields.length; f++) {
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
