// The course site: draw the formulas and the Mermaid diagrams, and search the index built with the site.
(function () {
  "use strict";
  // Formulas: the build left each one's TeX in a .math element (formulas.py); KaTeX draws it in place.
  if (window.katex) {
    document.querySelectorAll(".math").forEach(function (el) {
      window.katex.render(el.textContent, el, {
        displayMode: el.classList.contains("math-display"), throwOnError: false, output: "htmlAndMathml"
      });
    });
  }
  // A region that scrolls sideways (a wide table or diagram) takes the keyboard focus, so it can scroll.
  function focusScrollers() {
    document.querySelectorAll(".output_area, .jp-Mermaid, pre, table").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1 && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
    });
    document.body.setAttribute("data-ready", "true");
  }
  // A diagram is drawn as large as fits the column and 75% of the screen, never larger than Mermaid drew
  // it; a big tree stops shrinking where its labels would get too small to read (MIN_SCALE of their size)
  // and scrolls in its own box instead.
  var MIN_SCALE = 0.65;
  function sizeDiagrams() {
    document.querySelectorAll("pre.mermaid svg").forEach(function (svg) {
      var box = svg.viewBox && svg.viewBox.baseVal;
      var style = getComputedStyle(svg.parentElement);
      var column = svg.parentElement.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (!box || !box.width || !column) return;
      var fit = Math.min(1, column / box.width, 0.75 * window.innerHeight / box.height);
      var scale = Math.max(fit, Math.min(1, MIN_SCALE));
      svg.style.maxWidth = "none";
      svg.style.width = Math.round(box.width * scale) + "px";
      svg.style.height = Math.round(box.height * scale) + "px";
      svg.setAttribute("data-scale", scale.toFixed(3));
    });
  }
  var drawn = Promise.resolve();
  if (window.mermaid && document.querySelector("pre.mermaid")) {
    window.mermaid.initialize({
      startOnLoad: false, securityLevel: "strict", theme: "default",
      flowchart: { nodeSpacing: 25, rankSpacing: 30, padding: 8 }  // compact trees: less to shrink
    });
    drawn = window.mermaid.run({ querySelector: "pre.mermaid" }).then(sizeDiagrams);
    window.addEventListener("resize", sizeDiagrams);
  }
  drawn.then(focusScrollers, function (err) { focusScrollers(); throw err; });

  var root = document.body.getAttribute("data-root") || "";
  var box = document.getElementById("search-box");
  var results = document.getElementById("search-results");
  var index = window.COURSE_SEARCH || [];

  function search(query) {
    var words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    var hits = [];
    index.forEach(function (page) {
      page.sections.forEach(function (section) {
        var text = (section.heading + " " + section.text).toLowerCase();
        var score = 0;
        for (var i = 0; i < words.length; i++) {
          var count = text.split(words[i]).length - 1;
          if (!count) return;
          score += count + (section.heading.toLowerCase().indexOf(words[i]) >= 0 ? 5 : 0);
        }
        hits.push({ page: page, section: section, score: score });
      });
    });
    var best = {};
    hits.forEach(function (hit) {  // one result a page: its best section, pages ranked by their total
      var key = hit.page.url;
      if (!best[key]) best[key] = { hit: hit, total: 0 };
      best[key].total += hit.score;
      if (hit.score > best[key].hit.score) best[key].hit = hit;
    });
    return Object.keys(best)
      .map(function (k) { return best[k]; })
      .sort(function (a, b) { return b.total - a.total; })
      .slice(0, 10);
  }

  function snippet(text, word) {
    var at = text.toLowerCase().indexOf(word);
    var start = Math.max(0, at - 60);
    if (start) start = text.indexOf(" ", start) + 1 || start;  // begin on a whole word
    return (start ? "…" : "") + text.slice(start, start + 160) + (start + 160 < text.length ? "…" : "");
  }

  // The snippet as text with every query word marked (<mark>), built as nodes: no HTML from the index.
  function marked(text, words) {
    var span = document.createElement("span");
    var lower = text.toLowerCase();
    var pos = 0;
    while (pos < text.length) {
      var next = -1, len = 0;
      words.forEach(function (w) {
        var at = lower.indexOf(w, pos);
        if (at >= 0 && (next < 0 || at < next)) { next = at; len = w.length; }
      });
      if (next < 0) break;
      span.appendChild(document.createTextNode(text.slice(pos, next)));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(next, next + len);
      span.appendChild(mark);
      pos = next + len;
    }
    span.appendChild(document.createTextNode(text.slice(pos)));
    return span;
  }

  function show() {
    var query = box.value.trim();
    results.textContent = "";
    if (!query) return;
    var found = search(query);
    var status = document.createElement("p");
    status.textContent = found.length ? found.length + " pages match" : "No page matches " + query;
    results.appendChild(status);
    var list = document.createElement("ol");
    found.forEach(function (entry) {
      var hit = entry.hit;
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = root + hit.page.url + (hit.section.anchor ? "#" + hit.section.anchor : "");
      link.textContent = hit.page.title + " › " + hit.section.heading;
      var words = query.toLowerCase().split(/\s+/).filter(Boolean);
      item.appendChild(link);
      item.appendChild(marked(snippet(hit.section.text, words[0]), words));
      list.appendChild(item);
    });
    results.appendChild(list);
  }

  if (box) box.addEventListener("input", show);
})();
