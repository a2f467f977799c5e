// The HTML report's behaviour (embedded in every report by
// cmake/embed.cmake). The page's data is the JSON in #data:
//   functions: [label, where, line, self, inclusive, calls, primitive calls]
//   frames:    [parent, name id, module id, start, total, function row
//               (-1: the root or a process)], parents first
//   calls:     [caller row, callee row, calls | null, inclusive through
//               the call | null]
//   ranks:     {count, by_position, numbers: [rank number of each rank],
//               skipped: [ranks not read], rows: [label, imb%, imb, mean,
//               min, min rank, max, max rank, stddev, present],
//               series: [per row of the first rows: inclusive value on
//               each rank], rank_top: [per rank: [[name id, self]...]],
//               rank_names: [...], mpi: [per rank: [MPI self, all self]]}
//               or null (series and after: when the values were kept)
// Opened with #selftest, the page sorts, filters, pages and zooms by itself
// and writes what it saw to <body data-selftest> (the browser tests read it);
// #icicle, #graph, #ranks and #memory open on that tab, #sunburst on the
// icicle's tab drawn as a sunburst.
(function () {
  "use strict";
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  var D = JSON.parse(document.getElementById("data").textContent);
  var PAGE = 100, ROW = 18;
  var $ = function (id) { return document.getElementById(id); };

  // ---- numbers --------------------------------------------------------
  function fmtValue(v) {
    if (v === null || v === undefined) return "";
    if (D.time) {
      if (v === 0) return "0";
      var a = Math.abs(v);
      if (a >= 100) return v.toFixed(2) + " s";
      if (a >= 1) return v.toFixed(3) + " s";
      if (a >= 1e-3) return (v * 1e3).toFixed(3) + " ms";
      return (v * 1e6).toFixed(3) + " \u00b5s";
    }
    return Math.round(v).toLocaleString("en-US");
  }
  function fmtCount(c) { return c === null ? "" : c.toLocaleString("en-US"); }
  function fmtShare(v) { return D.total > 0 ? (100 * v / D.total).toFixed(2) + "%" : ""; }

  // ---- the function table --------------------------------------------
  var rows = D.functions.map(function (f, i) {
    var calls = f[5];
    return {
      id: i, name: f[0], where: f[1] + (f[2] > 0 ? ":" + f[2] : ""), self: f[3], incl: f[4],
      calls: calls, pcalls: f[6],
      // pstats' percall (cum) is per primitive call (cumtime / cc).
      selfpc: calls > 0 ? f[3] / calls : null,
      inclpc: f[6] !== null ? (f[6] > 0 ? f[4] / f[6] : null) : calls > 0 ? f[4] / calls : null
    };
  });
  // Time profiles say it as pstats does (ncalls, tottime, percall, cumtime).
  var T = D.time;
  var columns = [
    { key: "name", label: "Function", text: true },
    { key: "self", label: T ? "tottime" : "Self", value: true },
    { key: "selfp", label: T ? "tottime %" : "Self %", sortKey: "self", share: "self" },
    { key: "incl", label: T ? "cumtime" : "Inclusive", value: true },
    { key: "inclp", label: T ? "cumtime %" : "Incl. %", sortKey: "incl", share: "incl" },
    { key: "calls", label: T ? "ncalls" : "Calls", count: true },
    { key: "selfpc", label: T ? "percall (tot)" : "Self/call", value: true },
    { key: "inclpc", label: T ? "percall (cum)" : "Incl./call", value: true },
    { key: "where", label: "File:line", text: true }
  ];
  var sortKey = "self", sortDesc = true, page = 0, shown = rows;
  function compare(a, b) {
    var x = a[sortKey], y = b[sortKey];
    if (x === null && y === null) return a.id - b.id;
    if (x === null) return 1;
    if (y === null) return -1;
    var c = typeof x === "string" ? x.localeCompare(y) : x - y;
    if (sortDesc) c = -c;
    return c || a.id - b.id;
  }
  function header() {
    var tr = document.querySelector("#table thead tr");
    tr.textContent = "";
    columns.forEach(function (col) {
      var th = document.createElement("th");
      th.textContent = col.label;
      th.dataset.key = col.sortKey || col.key;
      if (col.text) th.className = col.key;
      if ((col.sortKey || col.key) === sortKey && !col.share) th.classList.add("sorted", sortDesc ? "desc" : "asc");
      th.addEventListener("click", function () { sortBy(th.dataset.key); });
      tr.appendChild(th);
    });
  }
  function sortBy(key) {
    if (key === sortKey) {
      sortDesc = !sortDesc;
    } else {
      sortKey = key;
      sortDesc = !(key === "name" || key === "where");
    }
    page = 0;
    shown.sort(compare);
    header();
    render();
  }
  function filter(text) {
    var test;
    var m = /^\/(.*)\/([a-z]*)$/.exec(text);
    if (m) {
      try {
        var re = new RegExp(m[1], m[2]);
        test = function (r) { return re.test(r.name) || re.test(r.where); };
      } catch (e) {
        $("count").textContent = "bad expression: " + e.message;
        return;
      }
    } else {
      var t = text.toLowerCase();
      test = function (r) { return r.name.toLowerCase().indexOf(t) >= 0 || r.where.toLowerCase().indexOf(t) >= 0; };
    }
    shown = text ? rows.filter(test) : rows.slice();
    shown.sort(compare);
    page = 0;
    render();
  }
  function cell(tr, text, cls, title) {
    var td = document.createElement("td");
    if (cls === "where") {
      // The cell is right-to-left so that a long path loses its start, not
      // its end; the path itself reads left to right (else bidi moves the
      // leading "/" of /usr/lib/x.py:214 to the end).
      var bdi = document.createElement("bdi");
      bdi.dir = "ltr";
      bdi.textContent = text;
      td.appendChild(bdi);
    } else {
      td.textContent = text;
    }
    if (cls) td.className = cls;
    if (title) td.title = title;
    tr.appendChild(td);
  }
  function render() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    var body = document.createDocumentFragment();
    shown.slice(page * PAGE, page * PAGE + PAGE).forEach(function (r) {
      var tr = document.createElement("tr");
      tr.dataset.id = r.id;
      if (r.id === selected) tr.classList.add("selected");
      tr.addEventListener("click", function () { select(r.id); });
      cell(tr, r.name, "name", r.name);
      cell(tr, fmtValue(r.self));
      cell(tr, fmtShare(r.self));
      cell(tr, fmtValue(r.incl));
      cell(tr, fmtShare(r.incl));
      cell(tr, r.calls === null ? "" : fmtCount(r.calls) + (r.pcalls !== null && r.pcalls !== r.calls ? "/" + fmtCount(r.pcalls) : ""));
      cell(tr, fmtValue(r.selfpc));
      cell(tr, fmtValue(r.inclpc));
      cell(tr, r.where, "where", r.where);
      body.appendChild(tr);
    });
    var tbody = document.querySelector("#table tbody");
    tbody.textContent = "";
    tbody.appendChild(body);
    $("count").textContent = shown.length === rows.length ? rows.length + " functions"
      : shown.length + " of " + rows.length + " functions";
    $("page").textContent = "page " + (page + 1) + " of " + pages;
    $("prev").disabled = page === 0;
    $("next").disabled = page >= pages - 1;
  }

  // ---- the chosen function: its callers and callees ------------------
  // (rows is sorted in place with the table: byId keeps the data's order.)
  var selected = -1, callersOf = [], calleesOf = [], byId = rows.slice();
  rows.forEach(function () { callersOf.push([]); calleesOf.push([]); });
  (D.calls || []).forEach(function (c) {
    if (c[0] < byId.length && c[1] < byId.length) { calleesOf[c[0]].push(c); callersOf[c[1]].push(c); }
  });
  function through(c) { return c[3] === null ? -1 : c[3]; }
  function fillList(id, list, end) {
    var body = document.querySelector("#" + id + " tbody");
    body.textContent = "";
    list.slice().sort(function (a, b) { return through(b) - through(a) || a[end] - b[end]; }).forEach(function (c) {
      var tr = document.createElement("tr"), td = document.createElement("td"), a = document.createElement("a");
      td.className = "name";
      a.textContent = byId[c[end]].name;
      a.title = byId[c[end]].where;
      a.addEventListener("click", function () { select(c[end]); });
      td.appendChild(a);
      tr.appendChild(td);
      cell(tr, c[2] === null ? "" : fmtCount(c[2]));
      cell(tr, c[3] === null ? "" : fmtValue(c[3]) + " (" + fmtShare(c[3]) + ")");
      body.appendChild(tr);
    });
    if (!list.length) {
      var none = document.createElement("tr");
      cell(none, id === "callers" ? "nothing: a root" : "nothing: a leaf");
      body.appendChild(none);
    }
  }
  function select(id) {
    selected = id;
    var r = byId[id];
    $("function-panel").hidden = false;
    $("panel-name").textContent = r.name;
    $("panel-stats").textContent = (T ? "tottime " : "self ") + fmtValue(r.self) + " (" + fmtShare(r.self) + "), " +
      (T ? "cumtime " : "inclusive ") + fmtValue(r.incl) + " (" + fmtShare(r.incl) + ")" +
      (r.calls !== null ? ", " + fmtCount(r.calls) + " calls" : "") + (r.where ? ", " + r.where : "");
    fillList("callers", callersOf[id], 0);
    fillList("callees", calleesOf[id], 1);
    $("panel-icicle").disabled = framesOf(id).length === 0;
    Array.prototype.forEach.call(document.querySelectorAll("#table tbody tr"), function (tr) {
      tr.classList.toggle("selected", Number(tr.dataset.id) === id);
    });
  }

  // ---- the icicle ------------------------------------------------------
  var F = D.frames, n = F.length, depth = new Int32Array(n), zoomed = 0, drawn = [], canvas = $("icicle-canvas");
  for (var i = 1; i < n; ++i) depth[i] = depth[F[i][0]] + 1;
  function hash(s) {
    var h = 2166136261;
    for (var k = 0; k < s.length; ++k) h = Math.imul(h ^ s.charCodeAt(k), 16777619) >>> 0;
    return h;
  }
  function colour(k) {
    if (k === 0) return "rgb(200,200,200)";
    var module = D.modules[F[k][2]], hn = hash(D.names[F[k][1]]);
    if (!module) return "rgb(" + (205 + hn % 51) + "," + ((hn >>> 8) % 231) + "," + ((hn >>> 16) % 56) + ")";
    var hm = hash(module), hue = hm % 270;
    if (hue > 250) hue += 60;
    return "hsl(" + hue + "," + (55 + (hm >>> 12) % 25) + "%," + (58 + hn % 14) + "%)";
  }
  function isUnder(k, z) {
    if (depth[k] < depth[z]) return false;
    var s = F[k][3], zs = F[z][3], eps = 1e-9 * (F[0][4] || 1);
    return s >= zs - eps && s + F[k][4] <= zs + F[z][4] + eps;
  }
  function ancestors(z) {
    var a = [];
    for (var k = F[z][0]; k >= 0; k = F[k][0]) a.unshift(k);
    return a;
  }
  // The same frames as rings (SnakeViz's sunburst): the zoomed frame in the
  // middle, its callees around it, an angle for each frame's share.
  var mode = "icicle", arcs = [], SUN = 0, SUNX = 0;
  function drawIcicle() {
    if (mode === "sunburst") drawSunburst();
    else drawRows();
  }
  function drawSunburst() {
    if (n === 0 || F[0][4] <= 0) return;
    var ratio = window.devicePixelRatio || 1, size = Math.min(canvas.clientWidth || 800, 900);
    var z = F[zoomed], maxDepth = Number($("depth").value) || 0, rings = 1, visible = [];
    for (var k = 0; k < n; ++k) {
      if (!isUnder(k, zoomed)) continue;
      var ring = depth[k] - depth[zoomed];
      if (maxDepth > 0 && ring > maxDepth) continue;
      visible.push(k);
      rings = Math.max(rings, ring + 1);
    }
    rings = Math.min(rings, 24);
    SUN = size;
    SUNX = (canvas.clientWidth || size) / 2;
    var radius = size / 2 - 4, band = radius / (rings + 0.5), cx = SUNX, cy = size / 2;
    canvas.style.height = size + "px";
    canvas.width = Math.round((canvas.clientWidth || 800) * ratio);
    canvas.height = Math.round(size * ratio);
    var c = canvas.getContext("2d");
    c.setTransform(ratio, 0, 0, ratio, 0, 0);
    c.clearRect(0, 0, canvas.width, size);
    arcs = [];
    visible.forEach(function (k) {
      var ring = depth[k] - depth[zoomed];
      if (ring >= rings) return;
      var a0 = 2 * Math.PI * (F[k][3] - z[3]) / z[4], a1 = a0 + 2 * Math.PI * F[k][4] / z[4];
      var inner = ring === 0 ? 0 : band * (ring + 0.5) - band, outer = ring === 0 ? band / 2 : band * (ring + 0.5);
      if (ring > 0 && (a1 - a0) * outer < 0.5) return;  // under a pixel
      c.beginPath();
      if (ring === 0) c.arc(cx, cy, outer, 0, 2 * Math.PI);
      else {
        c.arc(cx, cy, outer, a0 - Math.PI / 2, a1 - Math.PI / 2);
        c.arc(cx, cy, inner, a1 - Math.PI / 2, a0 - Math.PI / 2, true);
      }
      c.closePath();
      c.fillStyle = colour(k);
      c.fill();
      c.strokeStyle = "#fff";
      c.lineWidth = 0.5;
      c.stroke();
      arcs.push([k, a0, a1, inner, outer]);
    });
    c.fillStyle = "#000";
    c.font = "12px Verdana, 'DejaVu Sans', sans-serif";
    c.textAlign = "center";
    c.textBaseline = "middle";
    var name = zoomed === 0 ? "all" : D.names[F[zoomed][1]];
    c.fillText(name.length <= 18 ? name : name.slice(0, 16) + "..", cx, cy);
    c.textAlign = "start";
    drawn = [];
    crumbsOf(ancestors(zoomed));
  }
  function drawRows() {
    if (n === 0 || F[0][4] <= 0) return;
    var ratio = window.devicePixelRatio || 1, width = canvas.clientWidth || 800;
    var up = ancestors(zoomed), top = up.length, z = F[zoomed];
    var scale = width / z[4], rowsNeeded = top + 1, maxDepth = Number($("depth").value) || 0;
    drawn = [];
    var visible = [];
    for (var k = 0; k < n; ++k) {
      if (!isUnder(k, zoomed)) continue;
      var w = F[k][4] * scale;
      if (w < 0.5) continue;  // under a pixel: skipped, as are its children
      var row = top + depth[k] - depth[zoomed];
      if (maxDepth > 0 && depth[k] - depth[zoomed] > maxDepth) continue;
      visible.push([k, (F[k][3] - z[3]) * scale, w, row]);
      rowsNeeded = Math.max(rowsNeeded, row + 1);
    }
    var height = Math.min(rowsNeeded * ROW, 30000);
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    var c = canvas.getContext("2d");
    c.setTransform(ratio, 0, 0, ratio, 0, 0);
    c.clearRect(0, 0, width, height);
    c.font = "12px Verdana, 'DejaVu Sans', sans-serif";
    c.textBaseline = "middle";
    function bar(k, x, w, row, faded) {
      c.globalAlpha = faded ? 0.45 : 1;
      c.fillStyle = colour(k);
      c.fillRect(x, row * ROW, Math.max(w - 0.5, 0.5), ROW - 1);
      if (w > 30) {
        var name = k === 0 ? "all" : D.names[F[k][1]], room = Math.floor((w - 6) / 7);
        c.fillStyle = "#000";
        c.fillText(name.length <= room ? name : name.slice(0, Math.max(room - 2, 0)) + "..", x + 3, row * ROW + ROW / 2);
      }
      drawn.push([k, x, w, row]);
    }
    up.forEach(function (k, row) { bar(k, 0, width, row, true); });
    visible.forEach(function (v) { bar(v[0], v[1], v[2], v[3], false); });
    c.globalAlpha = 1;
    crumbsOf(up);
  }
  function crumbsOf(up) {
    $("unzoom").disabled = zoomed === 0;
    var crumbs = $("crumbs");
    crumbs.textContent = "";
    up.concat([zoomed]).forEach(function (k, i) {
      if (i) crumbs.appendChild(document.createTextNode(" \u203a "));
      var a = document.createElement(k === zoomed ? "span" : "a");
      a.textContent = k === 0 ? "all" : D.names[F[k][1]];
      if (k !== zoomed) a.addEventListener("click", function () { zoomTo(k); });
      crumbs.appendChild(a);
    });
  }
  function frameAt(x, y) {
    if (mode === "sunburst") {
      var dx = x - SUNX, dy = y - SUN / 2, r = Math.sqrt(dx * dx + dy * dy);
      var a = Math.atan2(dy, dx) + Math.PI / 2;
      if (a < 0) a += 2 * Math.PI;
      for (var j = 0; j < arcs.length; ++j) {
        var s = arcs[j];
        if (r >= s[3] && r < s[4] && (s[3] === 0 || (a >= s[1] && a < s[2]))) return s[0];
      }
      return -1;
    }
    var row = Math.floor(y / ROW);
    for (var k = 0; k < drawn.length; ++k) {
      var d = drawn[k];
      if (d[3] === row && x >= d[1] && x < d[1] + d[2]) return d[0];
    }
    return -1;
  }
  function describe(k) {
    var name = k === 0 ? "all" : D.names[F[k][1]], module = k === 0 ? "" : D.modules[F[k][2]];
    return name + "  " + fmtValue(F[k][4]) + " (" + fmtShare(F[k][4]) + ")" + (module ? "  in " + module : "");
  }
  function zoomTo(k) { zoomed = k; drawIcicle(); }
  // The frames of a function row, the widest first: re-rooting from the
  // table zooms to the widest and says how many more there are.
  function framesOf(id) {
    var out = [];
    for (var k = 1; k < n; ++k) if (F[k][5] === id) out.push(k);
    return out.sort(function (a, b) { return F[b][4] - F[a][4] || a - b; });
  }
  function reroot(id) {
    var frames = framesOf(id);
    if (!frames.length) return;
    show("icicle");
    zoomTo(frames[0]);
    $("icicle-details").textContent = describe(frames[0]) + (frames.length > 1 ? "  (the widest of its " +
      frames.length + " places in the stacks)" : "");
  }
  $("panel-icicle").addEventListener("click", function () { if (selected >= 0) reroot(selected); });
  $("depth").addEventListener("input", function () { drawIcicle(); });
  canvas.addEventListener("click", function (e) {
    var r = canvas.getBoundingClientRect(), k = frameAt(e.clientX - r.left, e.clientY - r.top);
    if (k >= 0 && mode === "sunburst" && k === zoomed) k = zoomed === 0 ? 0 : F[zoomed][0];  // the middle: up
    if (k >= 0) zoomTo(k);
  });
  function setMode(m) {
    mode = m;
    $("as-icicle").classList.toggle("active", m === "icicle");
    $("as-sunburst").classList.toggle("active", m === "sunburst");
    drawIcicle();
  }
  $("as-icicle").addEventListener("click", function () { setMode("icicle"); });
  $("as-sunburst").addEventListener("click", function () { setMode("sunburst"); });
  canvas.addEventListener("mousemove", function (e) {
    var r = canvas.getBoundingClientRect(), k = frameAt(e.clientX - r.left, e.clientY - r.top);
    $("icicle-details").textContent = k >= 0 ? describe(k) : "\u00a0";
  });
  $("unzoom").addEventListener("click", function () { zoomTo(0); });

  // ---- ranks -----------------------------------------------------------
  function ranksTable() {
    var R = D.ranks;
    if (!R) return;
    $("ranks-note").textContent = R.count + " ranks" + (R.by_position ? " (numbered by position: the file names have no numbers)" : "") +
      "; inclusive cost; Imb = max \u2212 mean, Imb% = (max \u2212 mean) / max \u00d7 N/(N\u22121) (CrayPat); a function missing in a rank counts 0 there. The " + R.rows.length + " most imbalanced functions:";
    var tr = document.querySelector("#ranks-table thead tr");
    ["Imb%", "Imb", "Mean", "Min", "min rank", "Max", "max rank", "Std dev", "Ranks", "Function"].forEach(function (h) {
      var th = document.createElement("th");
      th.textContent = h;
      if (h === "Function") th.className = "name";
      tr.appendChild(th);
    });
    var body = document.querySelector("#ranks-table tbody");
    if (R.skipped && R.skipped.length) {
      $("ranks-skipped").hidden = false;
      $("ranks-skipped").textContent = "Not counted: " + R.skipped.length + " rank" + (R.skipped.length > 1 ? "s" : "") +
        " whose input could not be read (--keep-going): " + R.skipped.join(", ") + ".";
    }
    R.rows.forEach(function (r, i) {
      var row = document.createElement("tr");
      if (R.series && i < R.series.length) {
        row.className = "pick";
        row.title = "Show this function on every rank";
        row.addEventListener("click", function () { showFunction(i); });
      }
      cell(row, r[1].toFixed(1) + "%");
      cell(row, fmtValue(r[2]));
      cell(row, fmtValue(r[3]));
      cell(row, fmtValue(r[4]));
      cell(row, String(r[5]));
      cell(row, fmtValue(r[6]));
      cell(row, String(r[7]));
      cell(row, fmtValue(r[8]));
      cell(row, r[9] + "/" + R.count);
      cell(row, r[0], "name", r[0]);
      body.appendChild(row);
    });
  }

  // ---- one function across the ranks, one rank's functions ------------
  var SVGNS = "http://www.w3.org/2000/svg", shownRow = -1, byValue = false;
  function svgEl(parent, name, attrs, text) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function stats(v) {
    var n = v.length, sum = 0, sq = 0, min = Infinity, max = -Infinity;
    v.forEach(function (x) { sum += x; sq += x * x; if (x < min) min = x; if (x > max) max = x; });
    var mean = sum / n, variance = Math.max(0, sq / n - mean * mean);
    return { mean: mean, std: Math.sqrt(variance), min: min, max: max };
  }
  // Bars: one per rank, in rank order or sorted by value; lines at the
  // mean, min, max and mean +- 1 std. A click on a bar shows that rank.
  function drawBars() {
    var R = D.ranks, v = R.series[shownRow], svg = $("rank-bars"), W = 960, H = 240, L = 70, B = 20, T = 8;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var idx = v.map(function (_, i) { return i; });
    if (byValue) idx.sort(function (a, b) { return v[a] - v[b] || R.numbers[a] - R.numbers[b]; });
    var s = stats(v), top = s.max > 0 ? s.max : 1, n = v.length, w = (W - L) / n;
    var y = function (x) { return T + (H - T - B) * (1 - x / top); };
    idx.forEach(function (r, k) {
      var bar = svgEl(svg, "rect", { x: L + k * w, y: y(v[r]), width: Math.max(w - (w > 3 ? 1 : 0), 0.5),
        height: Math.max(H - B - y(v[r]), 0), "class": "rank-bar", "data-rank": R.numbers[r] });
      svgEl(bar, "title", {}, "rank " + R.numbers[r] + ": " + fmtValue(v[r]));
      bar.addEventListener("click", function () { showRank(r); });
      if (n <= 64) svgEl(svg, "text", { x: L + k * w + w / 2, y: H - B + 12, "text-anchor": "middle", "class": "rank-label" },
        String(R.numbers[r]));
    });
    // (Labels that would overlap one already written are left out, the
    // mean's and the extremes' first.)
    var labelled = [];
    [["mean", s.mean, "mean"], ["max", s.max, "max"], ["min", s.min, "min"], ["mean + std", s.mean + s.std, "std"],
     ["mean \u2212 std", Math.max(0, s.mean - s.std), "std"]].forEach(function (l) {
      var at = y(l[1]);
      svgEl(svg, "line", { x1: L, x2: W, y1: at, y2: at, "class": "rank-line " + l[2] });
      if (labelled.some(function (u) { return Math.abs(u - at) < 11; })) return;
      labelled.push(at);
      svgEl(svg, "text", { x: L - 4, y: at + 4, "text-anchor": "end", "class": "rank-label" }, l[0]);
    });
    svgEl(svg, "text", { x: 4, y: H - 8, "class": "rank-label" }, byValue ? "by value" : "rank");
    $("by-rank").classList.toggle("active", !byValue);
    $("by-value").classList.toggle("active", byValue);
  }
  // A histogram of the ranks' values: 20 bins from min to max.
  function drawHistogram() {
    var v = D.ranks.series[shownRow], svg = $("rank-histogram"), W = 960, H = 150, L = 70, B = 20, BINS = 20;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var s = stats(v), span = s.max - s.min, counts = [];
    for (var i = 0; i < BINS; ++i) counts.push(0);
    v.forEach(function (x) { counts[span > 0 ? Math.min(BINS - 1, Math.floor((x - s.min) / span * BINS)) : 0]++; });
    var most = Math.max.apply(null, counts), w = (W - L) / BINS;
    counts.forEach(function (c, i) {
      var h = most ? (H - B - 8) * c / most : 0;
      var bar = svgEl(svg, "rect", { x: L + i * w, y: H - B - h, width: w - 2, height: h, "class": "rank-bin" });
      svgEl(bar, "title", {}, c + " ranks from " + fmtValue(s.min + span * i / BINS) + " to " +
        fmtValue(s.min + span * (i + 1) / BINS));
    });
    svgEl(svg, "text", { x: L - 4, y: 16, "text-anchor": "end", "class": "rank-label" }, most + " ranks");
    svgEl(svg, "text", { x: L, y: H - 4, "class": "rank-label" }, fmtValue(s.min));
    svgEl(svg, "text", { x: W, y: H - 4, "text-anchor": "end", "class": "rank-label" }, fmtValue(s.max));
  }
  function showFunction(i) {
    var R = D.ranks, s = stats(R.series[i]);
    shownRow = i;
    $("rank-function").hidden = false;
    $("rank-function-name").textContent = R.rows[i][0];
    $("rank-function-stats").textContent = "mean " + fmtValue(s.mean) + ", std " + fmtValue(s.std) + ", min " +
      fmtValue(s.min) + " (r" + R.rows[i][5] + "), max " + fmtValue(s.max) + " (r" + R.rows[i][7] + "), Imb% " +
      R.rows[i][1].toFixed(1) + "; a rank without it counts 0";
    drawBars();
    drawHistogram();
  }
  // One rank: its heaviest functions by self cost, and how much of its
  // self cost is MPI's.
  function showRank(r) {
    var R = D.ranks;
    if (!R.rank_top) return;
    $("rank-view").hidden = false;
    $("rank-pick").value = String(r);
    var m = R.mpi[r], share = m[1] > 0 ? m[0] / m[1] : 0;
    $("rank-mpi").textContent = "rank " + R.numbers[r] + ": MPI " + (share * 100).toFixed(1) + "% of its self cost (" +
      fmtValue(m[0]) + "), compute " + ((1 - share) * 100).toFixed(1) + "% (" + fmtValue(m[1] - m[0]) + ")";
    var bar = $("rank-mpi-bar");
    while (bar.firstChild) bar.removeChild(bar.firstChild);
    svgEl(bar, "rect", { x: 0, y: 2, width: 960 * share, height: 18, "class": "mpi" });
    svgEl(bar, "rect", { x: 960 * share, y: 2, width: 960 * (1 - share), height: 18, "class": "compute" });
    var body = document.querySelector("#rank-top tbody");
    while (body.firstChild) body.removeChild(body.firstChild);
    R.rank_top[r].forEach(function (e) {
      var row = document.createElement("tr");
      cell(row, fmtValue(e[1]));
      cell(row, m[1] > 0 ? (e[1] / m[1] * 100).toFixed(1) + "%" : "");
      cell(row, R.rank_names[e[0]], "name", R.rank_names[e[0]]);
      body.appendChild(row);
    });
  }
  function rankViews() {
    var R = D.ranks;
    if (!R || !R.series) return;
    $("by-rank").addEventListener("click", function () { byValue = false; drawBars(); });
    $("by-value").addEventListener("click", function () { byValue = true; drawBars(); });
    var pick = $("rank-pick");
    R.numbers.forEach(function (n, r) {
      var o = document.createElement("option");
      o.value = String(r);
      o.textContent = String(n);
      pick.appendChild(o);
    });
    pick.addEventListener("change", function () { showRank(Number(pick.value)); });
    if (R.series.length) showFunction(0);
    showRank(0);
  }

  // ---- tabs and start ------------------------------------------------
  function show(tab) {
    Array.prototype.forEach.call(document.querySelectorAll("nav#tabs button"), function (b) {
      b.classList.toggle("active", b.dataset.tab === tab);
      $(b.dataset.tab).hidden = b.dataset.tab !== tab;
    });
    if (tab === "icicle") drawIcicle();
  }
  Array.prototype.forEach.call(document.querySelectorAll("nav#tabs button"), function (b) {
    b.addEventListener("click", function () { show(b.dataset.tab); });
  });
  if (!D.ranks) document.querySelector("nav#tabs button[data-tab=ranks]").disabled = true;
  $("filter").addEventListener("input", function () { filter(this.value); });
  $("prev").addEventListener("click", function () { --page; render(); });
  $("next").addEventListener("click", function () { ++page; render(); });
  window.addEventListener("resize", function () { if (!$("icicle").hidden) drawIcicle(); });
  $("summary").textContent = (D.event ? D.event + ": " : "") + fmtValue(D.total) + " in all, " + rows.length + " functions" +
    (D.creator ? "; written by " + D.creator : "");
  if (D.approximate) {
    $("icicle-note").textContent = "Approximate: built from call ratios. This profile records a call graph, not stacks; " +
      "each call's share of its caller is assumed the same on every path.";
    $("icicle-note").classList.add("warn");
  }
  shown.sort(compare);
  header();
  render();
  ranksTable();
  rankViews();

  function selftest() {
    var result = { errors: errors, functions: rows.length };
    try {
      var names = function () {
        return Array.prototype.map.call(document.querySelectorAll("#table tbody tr td.name"), function (td) { return td.textContent; });
      };
      result.first_rows = names().slice(0, 5);
      var th = document.querySelector("#table th[data-key=calls]");
      th.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      var calls = Array.prototype.map.call(document.querySelectorAll("#table tbody tr"), function (tr) {
        return parseInt(tr.children[5].textContent.replace(/,/g, ""), 10) || 0;
      });
      result.sorted_by_calls = calls.every(function (c, k) { return k === 0 || calls[k - 1] >= c; });
      result.first_by_calls = names()[0];
      // The first row of a recursive function (calls "nc/cc"), as shown.
      var recursive = Array.prototype.find.call(document.querySelectorAll("#table tbody tr"), function (tr) {
        return tr.children[5].textContent.indexOf("/") >= 0;
      });
      if (recursive)
        result.recursive_row = Array.prototype.map.call(recursive.children, function (td) { return td.textContent; });
      document.querySelector("#table th[data-key=self]").dispatchEvent(new MouseEvent("click", { bubbles: true }));
      result.resorted = names()[0] === result.first_rows[0];
      var f = $("filter");
      f.value = result.first_rows[0] || "";
      f.dispatchEvent(new Event("input"));
      result.filtered = shown.length;
      f.value = "";
      f.dispatchEvent(new Event("input"));
      if (rows.length > PAGE) {
        $("next").click();
        result.page = $("page").textContent;
        $("prev").click();
      }
      // An absolute path reads left to right: its first character is drawn
      // left of its last.
      var where = Array.prototype.filter.call(document.querySelectorAll("#table tbody td.where"), function (td) {
        return td.textContent.charAt(0) === "/";
      })[0];
      if (where) {
        var text = where.querySelector("bdi") ? where.querySelector("bdi").firstChild : where.firstChild;
        var range = document.createRange();
        range.setStart(text, 0);
        range.setEnd(text, 1);
        var first = range.getBoundingClientRect().left;
        range.setStart(text, text.length - 1);
        range.setEnd(text, text.length);
        result.where = where.textContent;
        result.where_reads_left_to_right = first < range.getBoundingClientRect().left;
      }
      show("icicle");
      result.frames = n;
      var widest = -1;
      drawn.forEach(function (d) { if (depth[d[0]] === 1 && (widest < 0 || d[2] > drawn[widest][2])) widest = drawn.indexOf(d); });
      if (widest >= 0) {
        var d = drawn[widest], r = canvas.getBoundingClientRect(), target = d[0];
        canvas.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: r.left + d[1] + d[2] / 2, clientY: r.top + d[3] * ROW + ROW / 2 }));
        result.zoomed = zoomed === target;
        var mine = drawn.filter(function (x) { return x[0] === target; })[0];
        result.zoom_fills = !!mine && Math.abs(mine[2] - (canvas.clientWidth || 800)) < 0.5;
        result.crumbs = $("crumbs").textContent;
        $("unzoom").click();
        result.unzoomed = zoomed === 0;
      }
      show("graph");
      result.graph = !!document.querySelector("#graph-svg svg g.node");
      if (D.ranks) {
        show("ranks");
        result.rank_rows = document.querySelectorAll("#ranks-table tbody tr").length;
        if (D.ranks.series) {
          var pickable = document.querySelectorAll("#ranks-table tbody tr.pick");
          pickable[1].click();
          result.function_shown = $("rank-function-name").textContent === D.ranks.rows[1][0];
          result.function_bars = document.querySelectorAll("#rank-bars rect").length;
          result.function_lines = document.querySelectorAll("#rank-bars line").length;
          $("by-value").click();
          var heights = Array.prototype.map.call(document.querySelectorAll("#rank-bars rect"), function (b) {
            return Number(b.getAttribute("height"));
          });
          result.sorted_by_value = heights.every(function (h, i) { return i === 0 || h >= heights[i - 1] - 1e-9; });
          result.histogram_ranks = Array.prototype.reduce.call(document.querySelectorAll("#rank-histogram rect"),
            function (n, b) { return n + Number(b.querySelector("title").textContent.split(" ")[0]); }, 0);
          var bars = document.querySelectorAll("#rank-bars rect");
          bars[bars.length - 1].dispatchEvent(new MouseEvent("click", { bubbles: true }));
          result.rank_shown = $("rank-mpi").textContent;
          result.rank_top_rows = document.querySelectorAll("#rank-top tbody tr").length;
        }
        result.skipped_banner = $("ranks-skipped").hidden ? "" : $("ranks-skipped").textContent;
      }
      // The chosen function's panel: chosen in the table, a callee
      // followed, re-rooted in the icicle, back by a breadcrumb, the
      // icicle cut to one row below its root.
      show("functions");
      var firstRow = document.querySelector("#table tbody tr");
      if (firstRow) {
        firstRow.click();
        result.panel = $("panel-name").textContent;
        result.panel_row_selected = firstRow.classList.contains("selected");
        result.callers_rows = document.querySelectorAll("#callers tbody a").length;
        result.callees_rows = document.querySelectorAll("#callees tbody a").length;
        var link = document.querySelector("#callees tbody a") || document.querySelector("#callers tbody a");
        if (link) {
          var to = link.textContent;
          link.click();
          result.followed = $("panel-name").textContent === to;
        }
        if (!$("panel-icicle").disabled) {
          $("panel-icicle").click();
          result.rerooted = zoomed > 0 && F[zoomed][5] === selected && !$("icicle").hidden;
          result.reroot_crumbs = $("crumbs").textContent;
          var crumb = document.querySelector("#crumbs a");
          if (crumb) {
            crumb.click();
            result.crumb_back = zoomed === 0;
          }
        }
        show("icicle");
        setMode("sunburst");
        result.sunburst_arcs = arcs.length;
        var widest = -1;
        arcs.forEach(function (s, j) { if (s[3] > 0 && (widest < 0 || s[2] - s[1] > arcs[widest][2] - arcs[widest][1])) widest = j; });
        if (widest >= 0) {
          var arc = arcs[widest], mid = (arc[1] + arc[2]) / 2 - Math.PI / 2, rad = (arc[3] + arc[4]) / 2;
          var box = canvas.getBoundingClientRect(), target = arc[0];
          canvas.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: box.left + SUNX + rad * Math.cos(mid),
                                                         clientY: box.top + SUN / 2 + rad * Math.sin(mid) }));
          result.sunburst_zoomed = zoomed === target;
          canvas.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: box.left + SUNX, clientY: box.top + SUN / 2 }));
          result.sunburst_up = zoomed === F[target][0];
        }
        zoomTo(0);
        setMode("icicle");
        $("depth").value = "1";
        drawIcicle();
        result.depth_rows = drawn.reduce(function (m, d) { return Math.max(m, d[3] + 1); }, 0);
        $("depth").value = "0";
        drawIcicle();
        result.all_rows = drawn.reduce(function (m, d) { return Math.max(m, d[3] + 1); }, 0);
        result.headers = Array.prototype.map.call(document.querySelectorAll("#table thead th"), function (th) {
          return th.textContent;
        });
      }
      if ($("memory")) {
        show("memory");
        var plot = document.querySelector("#memory-svg svg");
        result.memory_width = plot ? Math.round(plot.getBoundingClientRect().width) : 0;
        result.memory_lines = document.querySelectorAll("#memory-svg svg polyline").length;
      }
      show("functions");
    } catch (e) {
      errors.push(String(e && e.stack || e));
    }
    result.ready_ms = Math.round(performance.now());
    result.pass = errors.length === 0 && result.sorted_by_calls && result.resorted && result.filtered > 0 &&
      result.where_reads_left_to_right !== false &&
      (result.zoomed === undefined || (result.zoomed && result.zoom_fills && result.unzoomed));
    document.body.setAttribute("data-selftest", JSON.stringify(result));
  }
  if (window.location.hash === "#selftest") selftest();
  else if (window.location.hash === "#sunburst") { show("icicle"); setMode("sunburst"); }
  else if (/^#(icicle|graph|ranks|memory)$/.test(window.location.hash) && $(window.location.hash.slice(1))) show(window.location.hash.slice(1));
})();
