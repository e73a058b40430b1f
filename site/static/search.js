// retrylab: the search page. Pagefind's index (/pagefind/, written at the
// end of every build) is queried in the browser; the results are drawn
// here, with each page's best-matching sections, their headings and
// excerpts. The query lives in the address (?q=), so a search can be
// linked, and the header's search field (a plain form) lands here.
(() => {
  "use strict";
  const form = document.querySelector("[data-search-form]");
  const field = document.querySelector("[data-search-field]");
  const status = document.querySelector("[data-search-status]");
  const list = document.querySelector("[data-search-results]");

  let pagefind = null;
  let latest = 0;

  async function engine() {
    if (!pagefind) {
      pagefind = await import("/pagefind/pagefind.js");
      await pagefind.options({ excerptLength: 24 });
      pagefind.init();
    }
    return pagefind;
  }

  function el(name, cls, text) {
    const e = document.createElement(name);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // excerpt puts Pagefind's excerpt, escaped text with <mark> around the
  // matches, into e without letting any other markup through.
  function excerpt(e, html) {
    const parts = html.split(/<mark>|<\/mark>/);
    parts.forEach((part, i) => {
      const t = document.createElement("textarea");
      t.innerHTML = part; // decodes the entities; a textarea never parses tags
      const s = t.value;
      if (i % 2 === 1) e.appendChild(el("mark", "", s));
      else e.appendChild(document.createTextNode(s));
    });
  }

  async function run(q) {
    const id = ++latest;
    q = q.trim();
    list.replaceChildren();
    if (!q) {
      status.textContent = "Type a word or two: every article and every simulator's description is searched.";
      return;
    }
    status.textContent = "Searching…";
    let results;
    try {
      const pf = await engine();
      const found = await pf.search(q);
      results = await Promise.all(found.results.slice(0, 12).map((r) => r.data()));
    } catch (err) {
      status.textContent = "The search could not run (" + err + "). Every article is listed in the contents.";
      return;
    }
    if (id !== latest) return; // a newer query is on its way
    status.textContent = results.length === 0
      ? "Nothing matches “" + q + "”."
      : results.length + (results.length === 1 ? " page matches" : " pages match") + " “" + q + "”.";
    for (const r of results) {
      const li = el("li", "search-result");
      const h = el("h2", "search-result-title");
      const a = el("a", "", r.meta.title || r.url);
      a.href = r.url;
      h.appendChild(a);
      li.appendChild(h);
      const subs = (r.sub_results || []).filter((s) => s.url !== r.url).slice(0, 3);
      if (subs.length === 0) {
        const p = el("p", "search-excerpt");
        excerpt(p, r.excerpt);
        li.appendChild(p);
      } else {
        const ul = el("ul", "search-sections");
        for (const s of subs) {
          const sli = el("li");
          const sa = el("a", "search-section", s.title);
          sa.href = s.url;
          sli.appendChild(sa);
          const p = el("p", "search-excerpt");
          excerpt(p, s.excerpt);
          sli.appendChild(p);
          ul.appendChild(sli);
        }
        li.appendChild(ul);
      }
      list.appendChild(li);
    }
  }

  let timer = 0;
  field.addEventListener("input", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      const q = field.value;
      const url = new URL(window.location.href);
      if (q.trim()) url.searchParams.set("q", q); else url.searchParams.delete("q");
      history.replaceState(null, "", url);
      run(q);
    }, 120);
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    window.clearTimeout(timer);
    run(field.value);
  });

  const initial = new URLSearchParams(window.location.search).get("q") || "";
  if (initial) {
    field.value = initial;
    run(initial);
  } else {
    field.focus();
  }
})();
