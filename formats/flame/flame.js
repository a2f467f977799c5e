// The flame graph's interaction, embedded in every SVG graphgen writes
// (-T flame). Hover: the frame in the bottom line. Click: zoom into the
// frame (its ancestors stay, faded). Search or Ctrl-F: highlight the frames
// whose name matches a regular expression and say what share they cover.
// Opened with #selftest, it exercises all of that and writes the outcome to
// the root's data-selftest attribute (the browser tests read it).
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var svg = document.documentElement;
  var PAD = 10, WIDTH = +svg.getAttribute("width") - 2 * PAD;
  var frames, details, matchedText, unzoomButton, searchButton, searching = null;

  function rect(g) { return g.querySelector("rect"); }
  function label(g) { return g.querySelector("text"); }
  function fit(g, w) {
    var name = g.getAttribute("data-n"), t = label(g);
    if (w < 21) { t.textContent = ""; return; }
    var room = Math.floor((w - 6) / 7.08);
    t.textContent = name.length <= room ? name : (room < 3 ? "" : name.slice(0, room - 2) + "..");
  }
  function place(g, x, w) {
    var r = rect(g);
    r.setAttribute("x", x.toFixed(2));
    r.setAttribute("width", w.toFixed(2));
    label(g).setAttribute("x", (x + 3).toFixed(2));
    fit(g, w);
  }
  function unzoom() {
    frames.forEach(function (g) {
      g.classList.remove("hide", "parent");
      place(g, g._x, g._w);
    });
    unzoomButton.classList.add("hide");
  }
  function zoom(z) {
    var x0 = z._x, w0 = z._w, scale = WIDTH / w0, eps = 1e-6;
    frames.forEach(function (g) {
      g.classList.remove("hide", "parent");
      var inside = g._x >= x0 - eps && g._x + g._w <= x0 + w0 + eps;
      if (g._d < z._d) {
        if (g._x <= x0 + eps && g._x + g._w >= x0 + w0 - eps) {
          place(g, PAD, WIDTH);
          g.classList.add("parent");
        } else {
          g.classList.add("hide");
        }
      } else if (inside) {
        place(g, PAD + (g._x - x0) * scale, g._w * scale);
      } else {
        g.classList.add("hide");
      }
    });
    unzoomButton.classList.remove("hide");
  }
  function resetSearch() {
    frames.forEach(function (g) {
      if (g._fill) rect(g).setAttribute("fill", g._fill);
      g._fill = null;
    });
    matchedText.textContent = " ";
    searchButton.textContent = "Search";
    searching = null;
  }
  // Highlights the matches; returns how many frames matched.
  function search(term) {
    resetSearch();
    if (!term) return 0;
    var re;
    try { re = new RegExp(term); } catch (e) { matchedText.textContent = "bad expression: " + e.message; return 0; }
    var spans = [], count = 0;
    frames.forEach(function (g) {
      if (g._d === 0 || !re.test(g.getAttribute("data-n"))) return;
      g._fill = rect(g).getAttribute("fill");
      rect(g).setAttribute("fill", "rgb(230,0,230)");
      spans.push([g._x, g._x + g._w]);
      ++count;
    });
    // The share of the width the matches cover, nested matches counted once.
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var covered = 0, end = -Infinity;
    spans.forEach(function (s) {
      if (s[1] <= end) return;
      covered += s[1] - Math.max(s[0], end);
      end = s[1];
    });
    matchedText.textContent = "Matched: " + (100 * covered / WIDTH).toFixed(1) + "% (" + count + " frames)";
    searchButton.textContent = "Reset Search";
    searching = term;
    return count;
  }
  function askSearch() {
    if (searching !== null) { resetSearch(); return; }
    var term = window.prompt("Search for (regular expression):", "");
    if (term) search(term);
  }
  function selftest() {
    var result = { frames: frames.length, errors: errors };
    try {
      var first = null;
      frames.forEach(function (g) { if (g._d === 1 && (!first || g._w > first._w)) first = g; });
      if (first) {
        var others = frames.filter(function (g) { return g._d === 1 && g !== first; });
        first.dispatchEvent(new MouseEvent("click", { bubbles: true }));
        result.zoomed_width = +rect(first).getAttribute("width");
        result.zoom_fills = Math.abs(result.zoomed_width - WIDTH) < 0.02;
        result.others_hidden = others.every(function (g) { return g.classList.contains("hide"); });
        first.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
        result.details = details.textContent;
        unzoom();
        result.unzoomed = Math.abs(+rect(first).getAttribute("width") - first._w) < 0.02;
        var name = first.getAttribute("data-n").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        result.matches = search("^" + name + "$");
        result.matched = matchedText.textContent;
        resetSearch();
      }
    } catch (e) {
      errors.push(String(e && e.stack || e));
    }
    result.ready_ms = Math.round(performance.now());
    result.pass = errors.length === 0 && (!result.hasOwnProperty("zoom_fills") ||
      (result.zoom_fills && result.others_hidden && result.unzoomed && result.matches > 0));
    svg.setAttribute("data-selftest", JSON.stringify(result));
  }
  function init() {
    frames = Array.prototype.slice.call(document.querySelectorAll("g.f"));
    details = document.getElementById("details");
    matchedText = document.getElementById("matched");
    unzoomButton = document.getElementById("unzoom");
    searchButton = document.getElementById("search");
    frames.forEach(function (g) {
      var r = rect(g);
      g._x = +r.getAttribute("x");
      g._w = +r.getAttribute("width");
      g._d = +g.getAttribute("data-d");
      g.addEventListener("click", function () { zoom(g); });
      g.addEventListener("mouseover", function () { details.textContent = g.querySelector("title").textContent; });
      g.addEventListener("mouseout", function () { details.textContent = " "; });
    });
    unzoomButton.addEventListener("click", unzoom);
    searchButton.addEventListener("click", askSearch);
    window.addEventListener("keydown", function (e) {
      if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
        e.preventDefault();
        askSearch();
      } else if (e.keyCode === 27) {
        resetSearch();
        unzoom();
      }
    });
    if (window.location.hash === "#selftest") selftest();
  }
  window.addEventListener("load", init);
})();
