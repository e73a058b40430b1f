// Live reload for `sitegen serve`: reloads the page after each successful
// rebuild and shows the error of a failed one over the page. Served only by
// the development server, from /_live/, as an external script so the
// Content-Security-Policy (script-src 'self', style-src 'self') holds.
(() => {
  "use strict";

  // The page the server answers with while there is no site yet says so;
  // if the build finished before this stream opened, the server tells it
  // to reload at once.
  const waiting = document.documentElement.hasAttribute("data-sitegen-waiting");
  const events = new EventSource("/_live/events" + (waiting ? "?waiting=1" : ""));
  let generation = null;
  let panel = null;

  // The server names each run of itself; a different name after a
  // reconnection means it restarted, and the page may be stale.
  events.addEventListener("hello", (e) => {
    if (generation !== null && generation !== e.data) location.reload();
    generation = e.data;
  });

  events.addEventListener("reload", () => location.reload());

  // The server's "error" event carries the build's error text. EventSource
  // also fires a plain "error" Event, without data, when the connection
  // drops; it reconnects by itself, so that one is ignored.
  events.addEventListener("error", (e) => {
    if (typeof e.data === "string") show(e.data);
  });

  // styled resolves once the overlay's stylesheet has loaded (or failed
  // to): until then the panel would be laid out at the end of the page,
  // and focusing its button there would scroll the reader away.
  let styled = null;
  function stylesheet() {
    if (!styled) {
      const link = document.createElement("link");
      link.id = "sitegen-live-css";
      link.rel = "stylesheet";
      link.href = "/_live/overlay.css";
      styled = new Promise((done) => {
        link.addEventListener("load", done);
        link.addEventListener("error", done);
      });
      document.head.append(link);
    }
    return styled;
  }

  // show puts the error over the page, once the panel is styled, and
  // focuses its Close button without moving the reader's place.
  let shown = 0;
  function show(text) {
    const n = ++shown;
    stylesheet().then(() => {
      if (n === shown) draw(text);
    });
  }

  function draw(text) {
    if (panel) panel.remove();
    panel = document.createElement("section");
    panel.className = "sitegen-live-overlay";
    panel.setAttribute("role", "alert");
    panel.setAttribute("aria-label", "Build failed");

    const head = document.createElement("div");
    head.className = "sitegen-live-head";
    const title = document.createElement("strong");
    title.textContent = waiting
      ? "Build failed: there is no site to show yet"
      : "Build failed: the page shows the last good build";
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    close.addEventListener("click", () => {
      panel.remove();
      panel = null;
    });
    head.append(title, close);

    const pre = document.createElement("pre");
    pre.textContent = text;

    panel.append(head, pre);
    document.body.append(panel);
    close.focus({ preventScroll: true });
  }
})();
