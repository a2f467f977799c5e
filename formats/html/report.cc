#include "html/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <unordered_map>

#include "common/markup.h"
#include "flame/writer.h"
#include "graphgen/labels.h"
#include "graphgen/text.h"
#include "graphgen/utf8.h"
#include "html/report_css.h"
#include "html/report_js.h"
#include "ranks/writer.h"

namespace graphgen::html {
namespace {

using formats::append_json_text;
using formats::json_text;
using formats::xml_text;

// A number to nine significant digits (what a table or a tooltip can show,
// at half the bytes of the shortest round trip), appended: to_chars'
// general form, which is fmt's {:.9g} (the test of append_printf_general
// holds them equal); null for NaN and infinities.
void append_num(std::string& out, double v) {
  if (!std::isfinite(v))
    out += "null";
  else
    append_printf_general(out, v, 9);
}

// append_num() into a string of its own.
std::string num(double v) {
  std::string s;
  append_num(s, v);
  return s;
}

// A count, or null when unknown.
void append_count(std::string& out, std::int64_t c) {
  if (c == kUnknownCount)
    out += "null";
  else
    append_integer(out, c);
}

// Strings used many times (frame names, modules), sent once each.
class StringList {
 public:
  std::size_t id(std::string_view s) {
    // (Found by the view first: a string made for each of 300 000 frames'
    // names and modules was a sixth of a report's time.)
    if (auto it = ids_.find(s); it != ids_.end()) return it->second;
    const std::string& kept = kept_.emplace_back(s);
    ids_.emplace(kept, list_.size());
    list_.push_back(&kept);
    return list_.size() - 1;
  }
  void write(std::string& out) const {
    out += '[';
    for (std::size_t i = 0; i < list_.size(); ++i) {
      if (i) out += ',';
      out += json_text(visible_text(*list_[i]), true);
    }
    out += ']';
  }

 private:
  std::deque<std::string> kept_;
  std::unordered_map<std::string_view, std::size_t> ids_;  // (views of kept_)
  std::vector<const std::string*> list_;
};

constexpr std::size_t kMaxFrames = 300'000;

}  // namespace

namespace {

// The table: [label, file, line, self, inclusive, calls, primitive calls].
Expected<bool> function_rows(std::string& data, const Profile& p, const CallGraph& totals, const Options& o) {
  data += "\"functions\":[";
  // (Appended in place: a formatted string and six more made for each of
  // 200 000 functions were a fifth of a report's time.)
  std::string visible;
  for (FuncId f = 0; f < p.functions.size() && f < totals.nodes.size(); ++f) {
    const Function& fn = p.functions[f];
    const GraphNode& n = totals.nodes[f];
    double self = node_self(totals, f), incl = node_total(totals, f);
    std::int64_t calls = fn.calls != kUnknownCount ? fn.calls : n.called;
    std::string_view where = p.str(fn.file);
    if (where.empty()) where = p.str(fn.object);
    data += f == 0 ? "[" : ",\n[";
    visible.clear();
    append_visible(visible, function_label(p, f));
    append_json_text(data, visible, true);
    data += ',';
    visible.clear();
    append_visible(visible, where);
    append_json_text(data, visible, true);
    data += ',';
    append_integer(data, fn.line);
    data += ',';
    append_num(data, self);
    data += ',';
    append_num(data, incl);
    data += ',';
    append_count(data, calls);
    data += ',';
    append_count(data, fn.primitive_calls);
    data += ']';
    if (o.max_bytes && data.size() > o.max_bytes) return output_too_large("html", o.max_bytes);
  }
  data += "],\n";
  return true;
}

// The icicle: frames parents first, [parent, name, module, start, total],
// their names and modules as lists of their own.
Expected<bool> icicle_frames(std::string& data, const Profile& p, const Event& ev, const FlameTree& tree,
                             const Options& o) {
  data += fmt::format("\"approximate\":{},\"frames\":[", tree.approximate ? "true" : "false");
  StringList names, modules;
  if (!tree.frames.empty() && tree.frames[0].total > 0) {
    flame::Layout l = flame::lay_out(p, tree, tree.frames[0].total * 1e-5);
    std::vector<std::int64_t> index(tree.frames.size(), -1);
    // Each function's module found once (frames of a process have none).
    constexpr std::size_t kUnknown = SIZE_MAX;
    std::vector<std::size_t> module_of(p.functions.size(), kUnknown);
    const std::size_t no_module = modules.id("");
    std::size_t written = 0;
    for (std::uint32_t k : l.order) {
      if (written >= kMaxFrames) break;
      const FlameFrame& f = tree.frames[k];
      std::int64_t parent = k == 0 ? -1 : index[f.parent];
      if (k != 0 && parent < 0) continue;
      index[k] = static_cast<std::int64_t>(written++);
      const long function = k == 0 || f.process != kNoString ? -1 : static_cast<long>(f.function);
      std::size_t module = no_module;
      if (k != 0 && f.process == kNoString) {
        if (module_of[f.function] == kUnknown) module_of[f.function] = modules.id(frame_module(p, f));
        module = module_of[f.function];
      }
      // ("[parent,name,module,start,total,function]", without a string made for each)
      if (k != 0) data += ',';
      data += '[';
      append_integer(data, parent);
      data += ',';
      append_integer(data, names.id(l.name(k)));
      data += ',';
      append_integer(data, module);
      data += ',';
      append_num(data, shown_value(ev, l.start[k]));
      data += ',';
      append_num(data, shown_value(ev, f.total));
      data += ',';
      append_integer(data, function);
      data += ']';
      if (o.max_bytes && data.size() > o.max_bytes) return output_too_large("html", o.max_bytes);
    }
  }
  data += "],\n\"names\":";
  names.write(data);
  data += ",\n\"modules\":";
  modules.write(data);
  return true;
}

// The calls, for the callers and callees of a function chosen in the
// table: [caller, callee, calls (null: unknown), the callee's inclusive
// cost through this call (null: unknown)], rows of the function table.
Expected<bool> call_rows(std::string& data, const CallGraph& totals, const Options& o) {
  data += ",\n\"calls\":[";
  bool first = true;
  for (const GraphEdge& e : totals.edges) {
    if (e.caller >= totals.nodes.size() || e.callee >= totals.nodes.size()) continue;
    data += first ? "[" : ",[";  // ([caller,callee,calls,total], appended in place)
    first = false;
    append_integer(data, e.caller);
    data += ',';
    append_integer(data, e.callee);
    data += ',';
    append_count(data, e.calls);
    data += ',';
    if (e.total_ratio)
      append_num(data, *e.total_ratio * totals.whole);
    else
      data += "null";
    data += ']';
    if (o.max_bytes && data.size() > o.max_bytes) return output_too_large("html", o.max_bytes);
  }
  data += "]";
  return true;
}

// MPI's own time: MPI_*/PMPI_* (C, and mpi_* from Fortran) and mpi4py's
// Comm methods, as a rank view tells communication from compute.
bool is_mpi(const Profile& p, FuncId f) {
  std::string_view name = p.str(p.functions[f].name);
  return name.starts_with("MPI_") || name.starts_with("PMPI_") || name.starts_with("mpi_") ||
         name.find("mpi4py.MPI") != std::string_view::npos ||
         p.str(p.functions[f].file).find("mpi4py") != std::string_view::npos;
}

// Every rank's values, where the table kept them: the inclusive value of
// each of the first rows' functions on every rank (the function view), and
// each rank's heaviest functions by self cost and its MPI share (the rank
// view).
void rank_values(std::string& data, const Profile& p, const RankTable& t, const std::vector<FuncId>& order,
                 std::size_t rows) {
  const RankMatrix& m = t.matrix;
  if (!m.kept || m.begin.size() != t.ranks + 1) return;
  const std::size_t series = std::min<std::size_t>(rows, t.ranks > 20000 ? 10 : 40);
  std::vector<std::int32_t> series_of(p.functions.size(), -1);
  for (std::size_t i = 0; i < series; ++i) series_of[order[i]] = static_cast<std::int32_t>(i);
  std::vector<double> values(series * t.ranks, 0.0);  // a rank without the function: 0
  for (std::size_t r = 0; r < t.ranks; ++r)
    for (std::uint32_t k = m.begin[r]; k < m.begin[r + 1]; ++k)
      if (m.function[k] < series_of.size() && series_of[m.function[k]] >= 0)
        values[static_cast<std::size_t>(series_of[m.function[k]]) * t.ranks + r] = m.inclusive[k];
  data += ",\"series\":[";
  for (std::size_t i = 0; i < series; ++i) {
    data += i ? ",[" : "[";
    for (std::size_t r = 0; r < t.ranks; ++r) {
      if (r) data += ',';
      data += num(values[i * t.ranks + r]);
    }
    data += ']';
  }
  data += "],\"rank_top\":[";
  constexpr std::size_t kTop = 8;
  StringList names;
  std::vector<std::uint32_t> entries;
  std::string mpi;
  for (std::size_t r = 0; r < t.ranks; ++r) {
    entries.clear();
    double mpi_self = 0, all_self = 0;
    for (std::uint32_t k = m.begin[r]; k < m.begin[r + 1]; ++k) {
      if (m.function[k] >= p.functions.size()) continue;
      entries.push_back(k);
      all_self += m.self[k];
      if (is_mpi(p, m.function[k])) mpi_self += m.self[k];
    }
    std::size_t top = std::min(kTop, entries.size());
    std::partial_sort(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(top), entries.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return m.self[a] > m.self[b]; });
    data += r ? ",[" : "[";
    for (std::size_t i = 0; i < top; ++i)
      data += fmt::format("{}[{},{}]", i ? "," : "", names.id(function_label(p, m.function[entries[i]])),
                          num(m.self[entries[i]]));
    data += ']';
    mpi += fmt::format("{}[{},{}]", r ? "," : "", num(mpi_self), num(all_self));
  }
  data += "],\"rank_names\":";
  names.write(data);
  data += ",\"mpi\":[" + mpi + "]";
}

// Per-rank statistics of inclusive cost, most imbalanced first.
void rank_rows(std::string& data, const Profile& p, const RankTable* ranks, const Options& o) {
  data += ",\n\"ranks\":";
  if (ranks && ranks->ranks > 1) {
    data += fmt::format("{{\"count\":{},\"by_position\":{},\"numbers\":[{}],\"skipped\":[{}],\"rows\":[", ranks->ranks,
                        ranks->numbered_by_position ? "true" : "false", fmt::join(ranks->rank_numbers, ","),
                        fmt::join(ranks->skipped_ranks, ","));
    std::vector<FuncId> order = ranks::by_imbalance(*ranks);
    std::size_t rows = std::min(order.size(), o.rank_rows ? o.rank_rows : 200);
    for (std::size_t i = 0; i < rows; ++i) {
      const FunctionRanks& fr = ranks->functions[order[i]];
      const RankMeasure& m = fr.inclusive;
      data += fmt::format("{}[{},{},{},{},{},{},{},{},{},{}]", i ? "," : "",
                          json_text(visible_text(function_label(p, order[i])), true), num(m.imbalance_percent),
                          num(m.imbalance), num(m.mean), num(m.min), m.min_rank, num(m.max), m.max_rank, num(m.stddev),
                          fr.present);
    }
    data += "]";
    rank_values(data, p, *ranks, order, rows);
    data += "}";
  } else {
    data += "null";
  }
}

// An SVG document as an element of the page: without its XML declaration
// and DOCTYPE.
std::string_view inline_svg(const std::string& svg) {
  std::size_t at = svg.find("<svg");
  return at == std::string::npos ? std::string_view() : std::string_view(svg).substr(at);
}

// The page before the data: styles, tabs, the call graph, the memory plot,
// up to the data's element, in a string with room for `data_bytes` of data
// and the rest of the page (the data is written into the page itself, not
// copied there: a 17.5 MB report held both).
std::string page_head(const Options& o, std::size_t data_bytes) {
  std::string out;
  out.reserve(output_reservation(o.max_bytes, data_bytes + o.graph_svg.size() + o.memory_svg.size() + kReportJs.size() +
                                                  kReportCss.size() + 16384));
  std::string title = xml_text(o.title.empty() ? std::string("profile") : o.title);
  out += fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"{}\">\n<title>{} - graphgen report</title>\n<style>\n",
      xml_text(o.creator), title);
  out += kReportCss;
  out += "</style>\n</head>\n<body>\n";
  out += fmt::format("<header><h1>{}</h1><p id=\"summary\"></p></header>\n", title);
  out +=
      "<nav id=\"tabs\"><button data-tab=\"functions\" class=\"active\">Functions</button>"
      "<button data-tab=\"icicle\">Icicle</button><button data-tab=\"graph\">Call graph</button>"
      "<button data-tab=\"ranks\">Ranks</button>";
  if (!o.memory_svg.empty()) out += "<button data-tab=\"memory\">Memory</button>";
  out +=
      "</nav>\n<main>\n<section id=\"functions\">\n<div class=\"bar\"><input id=\"filter\" type=\"search\" "
      "placeholder=\"Filter: text, or /regular expression/\" aria-label=\"filter functions\"> "
      "<span id=\"count\"></span></div>\n<table id=\"table\"><thead><tr></tr></thead><tbody></tbody></table>\n"
      "<div class=\"bar pager\"><button id=\"prev\">&#8249; Previous</button> <span id=\"page\"></span> "
      "<button id=\"next\">Next &#8250;</button></div>\n"
      "<div id=\"function-panel\" hidden><h2 id=\"panel-name\"></h2>\n<div class=\"bar\"><button "
      "id=\"panel-icicle\">Show in the icicle</button> <span id=\"panel-stats\"></span></div>\n"
      "<div class=\"panel-lists\"><table id=\"callers\"><caption>Called by</caption><thead><tr><th "
      "class=\"name\">Caller</th><th>Calls</th><th>Through it</th></tr></thead><tbody></tbody></table>\n"
      "<table id=\"callees\"><caption>Calls</caption><thead><tr><th class=\"name\">Callee</th><th>Calls</th>"
      "<th>Through it</th></tr></thead><tbody></tbody></table></div></div>\n</section>\n"
      "<section id=\"icicle\" hidden>\n<p id=\"icicle-note\" class=\"note\"></p>\n"
      "<div class=\"bar\"><button id=\"as-icicle\" class=\"active\">Icicle</button> <button "
      "id=\"as-sunburst\">Sunburst</button> <button id=\"unzoom\" disabled>Reset zoom</button> <label>Depth <input "
      "id=\"depth\" "
      "type=\"number\" min=\"0\" value=\"0\" title=\"rows below the zoomed frame (0: all)\"></label> <span "
      "id=\"crumbs\"></span></div>\n"
      "<canvas id=\"icicle-canvas\" height=\"100\"></canvas>\n<p id=\"icicle-details\" class=\"details\">&#160;</p>\n"
      "</section>\n<section id=\"graph\" hidden>\n";
  if (!o.graph_svg.empty()) {
    if (!o.graph_caption.empty()) out += fmt::format("<p class=\"note\">{}</p>\n", xml_text(o.graph_caption));
    out += "<div id=\"graph-svg\">";
    out += inline_svg(o.graph_svg);
    out += "</div>\n";
  } else {
    out += fmt::format("<p class=\"note\">{}</p>\n", xml_text(o.graph_note));
  }
  out +=
      "</section>\n<section id=\"ranks\" hidden>\n<p id=\"ranks-note\" class=\"note\"></p>\n"
      "<p id=\"ranks-skipped\" class=\"note warn\" hidden></p>\n"
      "<div id=\"rank-function\" hidden><h2 id=\"rank-function-name\"></h2>\n<div class=\"bar\">"
      "<button id=\"by-rank\" class=\"active\">by rank</button> <button id=\"by-value\">by value</button> "
      "<span id=\"rank-function-stats\"></span></div>\n"
      "<svg id=\"rank-bars\" width=\"960\" height=\"240\" role=\"img\"></svg>\n"
      "<svg id=\"rank-histogram\" width=\"960\" height=\"150\" role=\"img\"></svg></div>\n"
      "<div id=\"rank-view\" hidden><h2>One rank</h2>\n<div class=\"bar\"><label>Rank <select id=\"rank-pick\">"
      "</select></label> <span id=\"rank-mpi\"></span></div>\n<svg id=\"rank-mpi-bar\" width=\"960\" height=\"22\">"
      "</svg>\n<table id=\"rank-top\"><thead><tr><th>Self</th><th>Share</th><th class=\"name\">Function</th></tr>"
      "</thead><tbody></tbody></table></div>\n"
      "<table id=\"ranks-table\"><thead><tr></tr></thead><tbody></tbody></table>\n</section>\n";
  if (!o.memory_svg.empty()) {
    out += "<section id=\"memory\" hidden>\n<div id=\"memory-svg\">";
    out += inline_svg(o.memory_svg);
    out += "</div>\n</section>\n";
  }
  out += "</main>\n";
  out += "<script type=\"application/json\" id=\"data\">";
  return out;
}

// The page after the data: the script.
void page_tail(std::string& out) {
  out += "</script>\n<script>\n";
  out += kReportJs;
  out += "</script>\n</body>\n</html>\n";
}

}  // namespace

Expected<std::string> write(const Profile& p, std::size_t event, const CallGraph& totals, const FlameTree& tree,
                            const RankTable* ranks, const Options& o) {
  const Event& ev = p.events[event];
  const bool time = is_time(ev);
  const std::string unit = flame::unit_name(p, event);
  std::string out = page_head(o, 4096 + p.functions.size() * 120 + tree.frames.size() * 24);
  // The total is what the self column adds up to, as pstats' "in T seconds"
  // (cProfile's cumulative times can run a little over it).
  double self_sum = 0;
  for (FuncId f = 0; f < p.functions.size() && f < totals.nodes.size(); ++f) self_sum += node_self(totals, f);
  out += fmt::format("{{\"title\":{},\"creator\":{},\"event\":{},\"unit\":{},\"time\":{},\"total\":{},",
                     json_text(o.title, true), json_text(o.creator, true), json_text(p.str(ev.name), true),
                     json_text(unit, true), time ? "true" : "false", num(self_sum));
  if (auto ok = function_rows(out, p, totals, o); !ok) return ok.error();
  if (auto ok = icicle_frames(out, p, ev, tree, o); !ok) return ok.error();
  if (auto ok = call_rows(out, totals, o); !ok) return ok.error();
  rank_rows(out, p, ranks, o);
  out += "}";
  page_tail(out);
  if (o.max_bytes && out.size() > o.max_bytes) return output_too_large("html", o.max_bytes);
  return out;
}

}  // namespace graphgen::html
