// retrylab embed: put a simulator of the handbook in any page.
//
//   <div data-retrylab="payment" data-keys="per-intent"></div>
//   <script src="https://RETRYLAB/embed.js" async></script>
//
// Every div with data-retrylab becomes an iframe of /embed/NAME/ on the
// site this script came from, with the div's other data-* attributes as
// the widget's parameters (data-skip-expired="on" is skip-expired=on), and
// the frame takes the height its page reports, so it never scrolls. The
// embed page checks the parameters against the widget's schema and says
// which one it could not use. The script may be included once per widget:
// a div is only ever turned once.
(function () {
  "use strict";
  var me = document.currentScript;
  if (!me || !me.src) return;
  var origin = new URL(me.src).origin;
  var frames = [];

  function src(div) {
    var name = div.getAttribute("data-retrylab");
    var query = [];
    for (var i = 0; i < div.attributes.length; i++) {
      // Attribute names, not dataset: dataset would turn
      // data-skip-expired into skipExpired.
      var a = div.attributes[i];
      if (a.name.slice(0, 5) !== "data-" || a.name.slice(0, 13) === "data-retrylab") continue;
      query.push(encodeURIComponent(a.name.slice(5)) + "=" + encodeURIComponent(a.value));
    }
    return origin + "/embed/" + encodeURIComponent(name) + "/" + (query.length ? "?" + query.join("&") : "");
  }

  function turn() {
    var divs = document.querySelectorAll("div[data-retrylab]:not([data-retrylab-frame])");
    for (var i = 0; i < divs.length; i++) {
      var div = divs[i];
      div.setAttribute("data-retrylab-frame", "");
      var f = document.createElement("iframe");
      f.src = src(div);
      f.title = "retrylab: the " + div.getAttribute("data-retrylab") + " simulator";
      f.loading = "lazy";
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
      while (div.firstChild) div.removeChild(div.firstChild);
      div.appendChild(f);
      frames.push(f);
    }
  }

  window.addEventListener("message", function (ev) {
    var d = ev.data;
    if (ev.origin !== origin || !d || d.type !== "retrylab:height" || typeof d.height !== "number") return;
    for (var i = 0; i < frames.length; i++) {
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
