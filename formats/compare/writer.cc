#include "writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/markup.h"
#include "graphgen/labels.h"
#include "graphgen/utf8.h"

namespace graphgen::compare {

namespace {

// One function of either side, or a pair.
struct Row {
  FuncId before = kNoMatch, after = kNoMatch;
  PairRule rule = PairRule::kNone;
  double self[2] = {0, 0}, total[2] = {0, 0};
  double delta() const { return total[1] - total[0]; }
};

double self_of(const Side& s, FuncId f) { return event_value(s.profile->events[s.event], s.profile->self(f, s.event)); }
double total_of(const Side& s, FuncId f) {
  return without_noise(s.profile->events[s.event], f < s.totals->nodes.size() ? node_total(*s.totals, f) : 0);
}

std::vector<Row> rows_of(const Side& a, const Side& b, const Pairing& pairing) {
  std::vector<Row> rows;
  std::vector<bool> taken(b.profile->functions.size(), false);
  for (FuncId f = 0; f < a.profile->functions.size(); ++f) {
    Row r;
    r.before = f;
    r.self[0] = self_of(a, f);
    r.total[0] = total_of(a, f);
    if (f < pairing.match.size() && pairing.match[f] != kNoMatch) {
      r.after = pairing.match[f];
      r.rule = pairing.rule[f];
      r.self[1] = self_of(b, r.after);
      r.total[1] = total_of(b, r.after);
      taken[r.after] = true;
    }
    rows.push_back(r);
  }
  for (FuncId g = 0; g < b.profile->functions.size(); ++g) {
    if (taken[g]) continue;
    Row r;
    r.after = g;
    r.self[1] = self_of(b, g);
    r.total[1] = total_of(b, g);
    rows.push_back(r);
  }
  // The largest change of inclusive cost first (ties: the larger cost).
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
    double dx = std::fabs(x.delta()), dy = std::fabs(y.delta());
    if (dx != dy) return dx > dy;
    return std::max(x.total[0], x.total[1]) > std::max(y.total[0], y.total[1]);
  });
  return rows;
}

// A table row's function: its label, and for JavaScript's functions (keyed
// by name, file and line, many of them `(anonymous)`) the file and line the
// graph shows above the name: `(anonymous) (loader:1257)`. (The CSV keeps
// the label alone, the name other tables are joined on.)
std::string row_name(const Profile& p, FuncId f) {
  std::string name = function_label(p, f);
  if (std::string where; p.line_in_identity && module_line(p, f, where)) name += " (" + where + ")";
  return name;
}

std::string label(const Side& a, const Side& b, const Row& r) {
  return r.before != kNoMatch ? row_name(*a.profile, r.before) : row_name(*b.profile, r.after);
}

std::string unit_of(const Side& s) {
  const Event& e = s.profile->events[s.event];
  if (is_time(e)) return "s";
  return std::string(s.profile->str(e.name));
}

// A cost as the table shows it: whole numbers whole (bytes, instructions:
// 12308910, not 1.23089e+07), others in six significant digits.
std::string amount(double v, bool sign = false) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return sign ? fmt::format("{:+.0f}", v) : fmt::format("{:.0f}", v);
  return sign ? fmt::format("{:+.6g}", v) : fmt::format("{:.6g}", v);
}

std::string ratio(double before, double after) {
  if (before == 0) return after == 0 ? "1" : "new";
  return fmt::format("{:.3f}", after / before);
}

}  // namespace

std::string write_text(const Side& a, const Side& b, const Pairing& pairing, const Options& o) {
  std::vector<Row> rows = rows_of(a, b, pairing);
  double sum[2] = {0, 0};
  for (const Row& r : rows) {
    sum[0] += r.self[0];
    sum[1] += r.self[1];
  }
  const auto by_rule = pairing.count();
  const std::size_t paired = pairing.paired();
  const std::string unit = unit_of(a);
  std::string out = fmt::format(
      "Comparison of {} (before) and {} (after), in {}: {} -> {} ({}, {}x).\n"
      "Paired {} of {} functions before with {} of {} after: by identity {}, by name and file {}, by name and "
      "object {}, by name alone {}, by name without clone suffix {}.\n",
      visible_text(a.name), visible_text(b.name), unit == "s" ? "seconds" : visible_text(unit), amount(sum[0]),
      amount(sum[1]), amount(sum[1] - sum[0], true), ratio(sum[0], sum[1]), paired, a.profile->functions.size(), paired,
      b.profile->functions.size(), by_rule[1], by_rule[2], by_rule[3], by_rule[4], by_rule[5]);
  const std::size_t shown = std::min(rows.size(), o.top ? o.top : 25);
  out += fmt::format(
      "Largest changes of inclusive cost first, {} of {} functions (--top N for more; -T compare.csv for all). "
      "Ratio: after / before.\n\n",
      shown, rows.size());
  out +=
      fmt::format("{:>12} {:>12} {:>12} {:>8}   {:>12} {:>12} {:>12} {:>8}  {:<15} {}\n", "incl before", "incl after",
                  "delta", "ratio", "self before", "self after", "delta", "ratio", "paired by", "function");
  for (std::size_t i = 0; i < shown; ++i) {
    const Row& r = rows[i];
    std::string rule = r.before == kNoMatch  ? "(after only)"
                       : r.after == kNoMatch ? "(before only)"
                                             : std::string(pair_rule_name(r.rule));
    out += fmt::format("{:>12} {:>12} {:>12} {:>8}   {:>12} {:>12} {:>12} {:>8}  {:<15} {}\n", amount(r.total[0]),
                       amount(r.total[1]), amount(r.delta(), true), ratio(r.total[0], r.total[1]), amount(r.self[0]),
                       amount(r.self[1]), amount(r.self[1] - r.self[0], true), ratio(r.self[0], r.self[1]), rule,
                       visible_text(label(a, b, r)));
  }
  return out;
}

std::string write_csv(const Side& a, const Side& b, const Pairing& pairing) {
  std::string out =
      "function,function_after,paired_by,unit,inclusive_before,inclusive_after,inclusive_delta,self_before,"
      "self_after,self_delta\n";
  const std::string unit = unit_of(a);
  for (const Row& r : rows_of(a, b, pairing)) {
    std::string before = r.before == kNoMatch ? std::string() : function_label(*a.profile, r.before);
    std::string after = r.after == kNoMatch ? std::string() : function_label(*b.profile, r.after);
    std::string_view rule = r.before == kNoMatch  ? "after only"
                            : r.after == kNoMatch ? "before only"
                                                  : pair_rule_name(r.rule);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", formats::csv_field(before), formats::csv_field(after), rule,
                       formats::csv_field(unit), r.total[0], r.total[1], r.total[1] - r.total[0], r.self[0], r.self[1],
                       r.self[1] - r.self[0]);
  }
  return out;
}

namespace {

constexpr std::string_view kPageScript = R"js((function () {
  "use strict";
  var body = document.querySelector("#rows tbody"), order = {};
  function key(tr, c) { var t = tr.children[c]; return t.dataset.v !== undefined ? Number(t.dataset.v) : t.textContent; }
  function sortBy(c) {
    var down = order[c] = !order[c], rows = Array.prototype.slice.call(body.children);
    rows.sort(function (a, b) {
      var x = key(a, c), y = key(b, c);
      if (typeof x === "number") return down ? Math.abs(y) - Math.abs(x) || y - x : x - y;
      return down ? (x < y ? -1 : x > y) : (x > y ? -1 : x < y);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("#rows th"), function (th, c) {
    th.addEventListener("click", function () { sortBy(c); });
  });
  var box = document.getElementById("filter");
  function filter(text) {
    var shown = 0, re = null;
    if (/^\/.*\/$/.test(text)) { try { re = new RegExp(text.slice(1, -1)); } catch (e) { re = null; } }
    Array.prototype.forEach.call(body.children, function (tr) {
      var name = tr.lastElementChild.textContent;
      var keep = !text || (re ? re.test(name) : name.indexOf(text) >= 0);
      tr.hidden = !keep;
      if (keep) ++shown;
    });
    document.getElementById("count").textContent = shown + " of " + body.children.length + " functions";
  }
  box.addEventListener("input", function () { filter(box.value); });
  filter("");
  if (window.location.hash === "#selftest") {
    var result = { rows: body.children.length };
    sortBy(4);
    var d = Array.prototype.map.call(body.children, function (tr) { return Number(tr.children[4].dataset.v); });
    result.sorted_by_self_delta = d.every(function (v, i) { return i === 0 || Math.abs(v) <= Math.abs(d[i - 1]); });
    result.first = body.children[0].lastElementChild.textContent;
    filter("is_even");
    result.filtered = document.getElementById("count").textContent;
    document.body.setAttribute("data-selftest", JSON.stringify(result));
  }
})();
)js";

std::string cell(double v, bool change) {
  std::string cls = change ? (v > 0 ? " class=\"up\"" : v < 0 ? " class=\"down\"" : "") : "";
  return fmt::format("<td data-v=\"{}\"{}>{}</td>", v, cls, amount(v, change && v > 0));
}

}  // namespace

std::string write_html(const Side& a, const Side& b, const Pairing& pairing, const std::string& creator) {
  std::vector<Row> rows = rows_of(a, b, pairing);
  std::string summary = write_text(a, b, pairing, Options{1});
  summary = summary.substr(0, summary.find("\nLargest"));
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"generator\" "
      "content=\"{}\">\n<title>{} vs {} - graphgen comparison</title>\n<style>\nbody{{font:14px "
      "sans-serif;margin:16px}}table{{border-collapse:collapse}}th{{cursor:pointer;text-align:right;padding:2px "
      "8px;border-bottom:1px solid #999}}td{{text-align:right;padding:2px 8px;font-variant-numeric:tabular-nums}}"
      "td.name,th.name{{text-align:left;font-family:monospace}}td.up{{color:#b00}}td.down{{color:#03c}}"
      "tr:nth-child(even){{background:#f4f6f8}}.note{{color:#555}}\n</style>\n</head>\n<body>\n<h1>{} vs {}</h1>\n",
      formats::xml_text(creator), formats::xml_text(a.name), formats::xml_text(b.name), formats::xml_text(a.name),
      formats::xml_text(b.name));
  out += "<p class=\"note\">" + formats::xml_text(summary) + "<br>A click on a header sorts by it (changes by size); " +
         "red: slower, blue: faster. Ratio: after / before.</p>\n";
  out +=
      "<p><input id=\"filter\" type=\"search\" placeholder=\"Filter: text, or /regular expression/\" "
      "aria-label=\"filter functions\"> <span id=\"count\"></span></p>\n";
  out +=
      "<table id=\"rows\"><thead><tr><th>incl before</th><th>incl after</th><th>incl change</th><th>self "
      "before</th><th>self change</th><th>self after</th><th>ratio (incl)</th><th class=\"name\">paired "
      "by</th><th class=\"name\">function</th></tr></thead><tbody>\n";
  for (const Row& r : rows) {
    std::string rule = r.before == kNoMatch  ? "after only"
                       : r.after == kNoMatch ? "before only"
                                             : std::string(pair_rule_name(r.rule));
    out += "<tr>" + cell(r.total[0], false) + cell(r.total[1], false) + cell(r.delta(), true) + cell(r.self[0], false) +
           cell(r.self[1] - r.self[0], true) + cell(r.self[1], false) +
           fmt::format("<td>{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td></tr>\n",
                       ratio(r.total[0], r.total[1]), rule, formats::xml_text(formats::valid_utf8(label(a, b, r))));
  }
  out += "</tbody></table>\n<script>\n";
  out += kPageScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace graphgen::compare
