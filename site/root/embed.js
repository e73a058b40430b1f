// retrylab embed: put a simulator of the handbook in any page.
//
//   <div data-retrylab="payment" data-keys="per-intent" data-theme="dark"></div>
//   <script src="https://RETRYLAB/embed.js" async></script>
//
// Every div with data-retrylab becomes an iframe of /embed/NAME/ on the
// site this script came from, with the div's other data-* attributes as
// the widget's parameters (data-skip-expired="on" is skip-expired=on), and
// the frame takes the height its page reports, so it never scrolls. The
// embed page checks the parameters against the widget's schema and says
// which attribute it could not use. data-theme is the frame's colours:
// light (the default, whatever the reader's system prefers), dark, or
// auto (the reader's system setting). A name the site has no simulator
// for, or a theme it does not know, is a short message in the div's place,
// not a frame. The script may be included once per widget: a div is only
// ever turned once.
(() => {
  "use strict";
  // The names this script shares with the embed page, written in by the
  // build from site/widget/names.go.
  const names = /*names*/{};
  const me = document.currentScript;
  if (!me || !me.src) return;
  const origin = new URL(me.src).origin;
  const frames = [];
  // The simulators of the site, written here by its build.
  const known = /*widgets*/[];
  // Each theme is the color-scheme of the frame, which the embedded page
  // sees as its prefers-color-scheme (CSS Color Adjustment, "used color
  // scheme" of an embedded document).
  const themes = { light: "light", dark: "dark", auto: "light dark" };

  function src(div) {
    const name = div.getAttribute("data-retrylab");
    const query = [];
    for (let i = 0; i < div.attributes.length; i++) {
      // Attribute names, not dataset: dataset would turn
      // data-skip-expired into skipExpired.
      const a = div.attributes[i];
      if (a.name.slice(0, 5) !== "data-" || a.name.slice(0, 13) === "data-retrylab" || a.name === "data-theme") continue;
      query.push(encodeURIComponent(a.name.slice(5)) + "=" + encodeURIComponent(a.value));
    }
    return origin + "/embed/" + encodeURIComponent(name) + "/" + (query.length ? "?" + query.join("&") : "");
  }

  // problem is what is wrong with the div's attributes, in their words,
  // or "".
  function problem(div) {
    const name = div.getAttribute("data-retrylab");
    if (known.indexOf(name) < 0) {
      return "data-retrylab=" + JSON.stringify(name) + " on the embed snippet: no simulator has that name (known: " + known.join(", ") + ")";
    }
    const theme = div.getAttribute("data-theme");
    if (theme !== null && !Object.hasOwn(themes, theme)) {
      return "data-theme=" + JSON.stringify(theme) + " on the embed snippet is not allowed (allowed: light, dark, auto)";
    }
    return "";
  }

  // say puts msg in the div's place: a small box of text.
  function say(div, msg) {
    const p = document.createElement("p");
    p.className = "retrylab-problem";
    p.textContent = "retrylab: " + msg + ".";
    // Sized and coloured through the style object, as the frame is.
    const s = p.style;
    s.margin = "0";
    s.padding = ".5rem .75rem";
    s.border = "1px solid #b42318";
    s.borderRadius = "6px";
    s.background = "#fff";
    s.color = "#1b1f24";
    s.font = "14px/1.4 system-ui, sans-serif";
    div.appendChild(p);
  }

  function turn() {
    const divs = document.querySelectorAll("div[data-retrylab]:not([data-retrylab-frame])");
    for (let i = 0; i < divs.length; i++) {
      const div = divs[i];
      div.setAttribute("data-retrylab-frame", "");
      while (div.firstChild) div.removeChild(div.firstChild);
      const bad = problem(div);
      if (bad) {
        say(div, bad);
        continue;
      }
      const f = document.createElement("iframe");
      f.src = src(div);
      // The embed page words a refused parameter as the snippet's
      // attribute when its frame has this name (wasm/main.go).
      f.name = names.frame.snippet;
      f.title = "retrylab: the " + div.getAttribute("data-retrylab") + " simulator";
      f.loading = "lazy";
      f.style.colorScheme = themes[div.getAttribute("data-theme") || "light"];
      // The widget's Copy button writes its snippet to the clipboard,
      // which a frame of another origin may do only when allowed.
      f.allow = "clipboard-write";
      // Sizes through the style object, which a page's
      // Content-Security-Policy allows where it forbids style attributes.
      // 400 px until the page says its height: about a widget's controls
      // and the top of its figure, so the page jumps less when it does.
      f.style.width = "100%";
      f.style.height = "400px";
      f.style.border = "0";
      f.style.display = "block";
      div.appendChild(f);
      frames.push(f);
    }
  }

  window.addEventListener("message", (ev) => {
    const d = ev.data;
    if (ev.origin !== origin || !d || d.type !== names.message.height || typeof d.height !== "number") return;
    for (let i = 0; i < frames.length; i++) {
      // Only the frame the message came from, and only a frame this script made.
      if (frames[i].contentWindow === ev.source) {
        frames[i].style.height = Math.max(0, Math.ceil(d.height)) + "px";
      }
    }
  });

  turn();
  // An async script may run before the rest of the page is parsed.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", turn);
})();
