#include "writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "common/markup.h"
#include "graphgen/labels.h"
#include "graphgen/utf8.h"

namespace graphgen::ranks {

namespace {

using formats::csv_field;
using formats::json_number;
using formats::json_text;
using formats::xml_text;

std::string unit_of(const Profile& p, std::size_t event) {
  const Event& e = p.events[event];
  if (is_time(e)) return "s";
  return std::string(p.str(e.name));
}

std::string number(double v) { return fmt::format("{:.6g}", v); }

// CSV for pandas and spreadsheets: every digit, the shortest text that
// reads back as the same double (Python's repr).
std::string exact(double v) { return fmt::format("{}", v); }

std::string rank_name(std::int64_t r) { return r < 0 ? "-" : fmt::format("r{}", r); }

std::size_t shown(std::size_t available, std::size_t top, std::size_t fallback) {
  std::size_t want = top ? top : fallback;
  return want ? std::min(want, available) : available;
}

void table(std::string& out, const Profile& p, const RankTable& t, const std::vector<FuncId>& order, std::size_t rows,
           bool self) {
  out += fmt::format("{:>7} {:>11} {:>11} {:>11} {:>7} {:>11} {:>7} {:>11} {:>11} {:>7}  {}\n", "Imb%", "Imb", "Mean",
                     "Min", "rank", "Max", "rank", "Stddev", "Total", "ranks", "function");
  std::vector<FuncId> sorted = order;
  if (self)
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](FuncId a, FuncId b) { return t.functions[a].self.imbalance > t.functions[b].self.imbalance; });
  for (std::size_t i = 0; i < rows; ++i) {
    const FunctionRanks& fr = t.functions[sorted[i]];
    const RankMeasure& m = self ? fr.self : fr.inclusive;
    out += fmt::format("{:>6.1f}% {:>11} {:>11} {:>11} {:>7} {:>11} {:>7} {:>11} {:>11} {:>7}  {}\n",
                       m.imbalance_percent, number(m.imbalance), number(m.mean), number(m.min), rank_name(m.min_rank),
                       number(m.max), rank_name(m.max_rank), number(m.stddev), number(m.total),
                       fmt::format("{}/{}", fr.present, t.ranks), visible_text(function_label(p, sorted[i])));
  }
}

std::string json_measure(const RankMeasure& m) {
  return fmt::format(
      "{{\"total\": {}, \"mean\": {}, \"stddev\": {}, \"min\": {}, \"min_rank\": {}, \"max\": {}, \"max_rank\": {}, "
      "\"imbalance\": {}, \"imbalance_percent\": {}}}",
      json_number(m.total), json_number(m.mean), json_number(m.stddev), json_number(m.min), m.min_rank,
      json_number(m.max), m.max_rank, json_number(m.imbalance), json_number(m.imbalance_percent));
}

// Blue (below the mean) through white (the mean) to red (above it).
std::string heat_colour(double value, double mean) {
  double x = mean > 0 ? value / mean - 1.0 : 0.0;  // -1 .. +inf
  x = std::clamp(x, -1.0, 1.0);
  auto mix = [](double a, double b, double t) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  int r, g, b;
  if (x >= 0) {
    r = 255;
    g = mix(255, 40, x);
    b = mix(255, 40, x);
  } else {
    r = mix(255, 40, -x);
    g = mix(255, 90, -x);
    b = 255;
  }
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

}  // namespace

std::vector<FuncId> by_imbalance(const RankTable& t) {
  std::vector<FuncId> order;
  for (const FunctionRanks& fr : t.functions)
    if (fr.present > 0) order.push_back(fr.function);
  std::stable_sort(order.begin(), order.end(), [&](FuncId a, FuncId b) {
    const RankMeasure &x = t.functions[a].inclusive, &y = t.functions[b].inclusive;
    if (x.imbalance != y.imbalance) return x.imbalance > y.imbalance;
    return x.total > y.total;
  });
  return order;
}

std::string write_text(const Profile& p, const RankTable& t, const Options& o) {
  std::vector<FuncId> order = by_imbalance(t);
  std::size_t rows = shown(order.size(), o.top, 25);
  std::string unit = unit_of(p, o.event);
  std::string out = fmt::format(
      "Per-rank statistics of {} ranks ({}), in {}; a function missing in a rank counts as 0 there.\n"
      "Imb = Max - Mean, Imb% = (Max - Mean) / Max * N / (N - 1); Stddev over the N ranks. Highest Imb first, {} of "
      "{} functions (--top N for more).\n",
      t.ranks,
      t.numbered_by_position ? std::string("numbered by their order: not every input names its own rank number")
                             : "numbered " + t.numbered_by,
      unit == "s" ? "seconds" : visible_text(unit), rows, order.size());
  if (!t.skipped_ranks.empty())
    out += fmt::format("Not counted: {} {} whose input could not be read (--keep-going): {}.\n", t.skipped_ranks.size(),
                       t.skipped_ranks.size() == 1 ? "rank" : "ranks", fmt::join(t.skipped_ranks, ", "));
  out += "\nInclusive time\n";
  table(out, p, t, order, rows, false);
  out += "\nSelf time\n";
  table(out, p, t, order, rows, true);
  return out;
}

std::string write_matrix_csv(const Profile& p, const RankTable& t, const Options& o) {
  std::string out;
  if (!t.skipped_ranks.empty())
    out += fmt::format("# not counted, input could not be read: ranks {}\n", fmt::join(t.skipped_ranks, " "));
  out += "function,name,file,line,object,unit,value";
  for (std::int64_t r : t.rank_numbers) out += fmt::format(",r{}", r);
  out += "\n";
  // Each function's values by rank: the kept rows, transposed.
  const RankMatrix& m = t.matrix;
  const std::size_t nf = p.functions.size(), nr = t.ranks;
  std::vector<std::uint32_t> begin(nf + 1, 0), rank_of(m.function.size()), at(m.function.size());
  for (FuncId f : m.function)
    if (f < nf) ++begin[f + 1];
  for (std::size_t f = 0; f < nf; ++f) begin[f + 1] += begin[f];
  std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
  for (std::size_t r = 0; r < nr && r + 1 < m.begin.size(); ++r)
    for (std::uint32_t i = m.begin[r]; i < m.begin[r + 1]; ++i) {
      if (m.function[i] >= nf) continue;
      std::uint32_t k = fill[m.function[i]]++;
      rank_of[k] = static_cast<std::uint32_t>(r);
      at[k] = i;
    }
  std::vector<FuncId> order = by_imbalance(t);
  std::string unit = unit_of(p, o.event);
  std::vector<double> row(nr);
  for (std::size_t n = 0; n < shown(order.size(), o.top, 0); ++n) {
    FuncId f = order[n];
    const Function& fn = p.functions[f];
    for (int self = 0; self < 2; ++self) {
      std::fill(row.begin(), row.end(), 0.0);  // a rank without the function: 0 there
      for (std::uint32_t k = begin[f]; k < begin[f + 1]; ++k)
        row[rank_of[k]] = self ? m.self[at[k]] : m.inclusive[at[k]];
      out += fmt::format("{},{},{},{},{},{},{}", csv_field(function_label(p, f)), csv_field(p.str(fn.name)),
                         csv_field(p.str(fn.file)), fn.line, csv_field(p.str(fn.object)), csv_field(unit),
                         self ? "self" : "inclusive");
      for (double v : row) {
        out += ',';
        out += exact(v);
      }
      out += "\n";
      if (o.max_bytes && out.size() > o.max_bytes) return {};
    }
  }
  return out;
}

std::string write_csv(const Profile& p, const RankTable& t, const Options& o) {
  std::string out;
  // (A comment line, as pandas' comment='#' reads; only when there is one.)
  if (!t.skipped_ranks.empty())
    out += fmt::format("# not counted, input could not be read: ranks {}\n", fmt::join(t.skipped_ranks, " "));
  out += "function,name,file,line,object,ranks,ranks_present,missing_rank,unit";
  for (const char* kind : {"inclusive", "self"})
    for (const char* m : {"total", "mean", "stddev", "min", "min_rank", "max", "max_rank", "imb", "imb_percent"})
      out += fmt::format(",{}_{}", kind, m);
  out += "\n";
  std::vector<FuncId> order = by_imbalance(t);
  std::string unit = unit_of(p, o.event);
  for (std::size_t i = 0; i < shown(order.size(), o.top, 0); ++i) {
    FuncId f = order[i];
    const Function& fn = p.functions[f];
    const FunctionRanks& fr = t.functions[f];
    out += fmt::format("{},{},{},{},{},{},{},{},{}", csv_field(function_label(p, f)), csv_field(p.str(fn.name)),
                       csv_field(p.str(fn.file)), fn.line, csv_field(p.str(fn.object)), t.ranks, fr.present,
                       fr.missing_rank < 0 ? std::string() : std::to_string(fr.missing_rank), csv_field(unit));
    for (const RankMeasure* m : {&fr.inclusive, &fr.self})
      out +=
          fmt::format(",{},{},{},{},{},{},{},{},{}", exact(m->total), exact(m->mean), exact(m->stddev), exact(m->min),
                      m->min_rank, exact(m->max), m->max_rank, exact(m->imbalance), exact(m->imbalance_percent));
    out += "\n";
  }
  return out;
}

std::string write_json(const Profile& p, const RankTable& t, const Options& o) {
  std::string out = fmt::format("{{\"ranks\": {}, \"numbered_by_position\": {}, \"unit\": {}, \"rank_numbers\": [",
                                t.ranks, t.numbered_by_position ? "true" : "false", json_text(unit_of(p, o.event)));
  for (std::size_t i = 0; i < t.rank_numbers.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", t.rank_numbers[i]);
  out += fmt::format("], \"skipped_ranks\": [{}],\n \"functions\": [", fmt::join(t.skipped_ranks, ", "));
  std::vector<FuncId> order = by_imbalance(t);
  for (std::size_t i = 0; i < shown(order.size(), o.top, 0); ++i) {
    FuncId f = order[i];
    const Function& fn = p.functions[f];
    const FunctionRanks& fr = t.functions[f];
    out += fmt::format(
        "{}\n  {{\"label\": {}, \"name\": {}, \"file\": {}, \"line\": {}, \"object\": {}, \"present\": {}, "
        "\"missing_rank\": {}, \"inclusive\": {}, \"self\": {}}}",
        i ? "," : "", json_text(function_label(p, f)), json_text(p.str(fn.name)), json_text(p.str(fn.file)), fn.line,
        json_text(p.str(fn.object)), fr.present, fr.missing_rank < 0 ? "null" : std::to_string(fr.missing_rank),
        json_measure(fr.inclusive), json_measure(fr.self));
  }
  out += "\n]}\n";
  return out;
}

std::string heatmap_dot(const Profile& p, const RankTable& t, const Options& o) {
  const RankHeatmap& h = t.heatmap;
  std::vector<FuncId> order = by_imbalance(t);
  std::size_t rows = shown(order.size(), o.top, 30);
  const std::string unit = unit_of(p, o.event);
  bool binned = h.columns < t.ranks;
  std::string title = fmt::format(
      "Inclusive time per rank, against each function's mean ({} ranks{}); rows: the {} functions of "
      "highest imbalance (Imb = max - mean)",
      t.ranks,
      binned ? fmt::format(", {}{} per column: each cell the largest of its ranks", t.ranks / h.columns,
                           t.ranks % h.columns ? fmt::format("-{}", t.ranks / h.columns + 1) : "")
             : "",
      rows);
  // An opaque background, margin included (pad, not margin, is filled): a PNG
  // pasted on a dark page stays readable.
  // The title is a node above the table, not a row of it: a row wider
  // than the cells would widen some columns and misplace the rank axis.
  std::string out = fmt::format(
      "digraph {{\n\tgraph [fontname=Arial, pad=0.2, bgcolor=white, nodesep=0, ranksep=0.05];\n"
      "\tnode [shape=plaintext, fontname=Arial];\n\ttitle [fontsize=12, label=<{}>];\n\ttitle -> heatmap "
      "[style=invis];\n",
      xml_text(title));
  out += "\theatmap [label=<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"0\">\n";
  // Rank axis: a label over every few columns (the first rank of each group).
  std::size_t every = std::max<std::size_t>(1, (h.columns + 7) / 8);
  out += "<TR><TD ALIGN=\"RIGHT\"><FONT POINT-SIZE=\"9\">rank </FONT></TD>";
  for (std::size_t c = 0; c < h.columns; c += every) {
    std::size_t span = std::min(every, h.columns - c);
    // Columns of one rank each are labelled by the first rank they show.
    out += fmt::format("<TD COLSPAN=\"{}\" ALIGN=\"CENTER\"><FONT POINT-SIZE=\"8\">{}</FONT></TD>", span,
                       !binned || h.first_rank[c] == h.last_rank[c + span - 1]
                           ? fmt::format("{}", h.first_rank[c])
                           : fmt::format("{}-{}", h.first_rank[c], h.last_rank[c + span - 1]));
  }
  out +=
      "<TD><FONT POINT-SIZE=\"9\"> Imb%</FONT></TD><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"9\"> max, "
      "min</FONT></TD></TR>\n";
  const std::size_t width = std::max<std::size_t>(2, 640 / std::max<std::size_t>(1, h.columns));
  for (std::size_t i = 0; i < rows; ++i) {
    FuncId f = order[i];
    const FunctionRanks& fr = t.functions[f];
    std::string name = function_label(p, f);
    if (name.size() > 60) name = name.substr(0, 57) + "...";
    out += fmt::format("<TR><TD ALIGN=\"RIGHT\"><FONT POINT-SIZE=\"9\">{} </FONT></TD>", xml_text(name));
    for (std::size_t c = 0; c < h.columns; ++c) {
      double v = h.cells[static_cast<std::size_t>(f) * h.columns + c];
      std::string ranks = h.first_rank[c] == h.last_rank[c]
                              ? fmt::format("rank {}", h.first_rank[c])
                              : fmt::format("ranks {}-{} (largest)", h.first_rank[c], h.last_rank[c]);
      std::string ratio = fr.inclusive.mean > 0 ? fmt::format(", {:.2f}x the mean", v / fr.inclusive.mean) : "";
      // A rank more than 3 standard deviations above the mean: outlined,
      // and said in the tooltip.
      const double sd = fr.inclusive.stddev;
      const bool outlier = sd > 0 && v > fr.inclusive.mean + 3 * sd;
      if (outlier) ratio += fmt::format(", {:.1f} std above the mean", (v - fr.inclusive.mean) / sd);
      // Graphviz writes a cell's TOOLTIP into SVG only for a cell with a link.
      out += fmt::format("<TD BGCOLOR=\"{}\" WIDTH=\"{}\" HEIGHT=\"14\" HREF=\"#\" TOOLTIP=\"{}\"{}> </TD>",
                         heat_colour(v, fr.inclusive.mean), width,
                         xml_text(fmt::format("{}, {}: {} {}{}", name, ranks, number(v), unit, ratio)),
                         outlier ? " BORDER=\"1\" COLOR=\"#000000\"" : "");
    }
    out += fmt::format(
        "<TD ALIGN=\"RIGHT\"><FONT POINT-SIZE=\"9\"> {:.0f}%</FONT></TD><TD ALIGN=\"LEFT\"><FONT "
        "POINT-SIZE=\"9\"> {}, {}</FONT></TD></TR>\n",
        fr.inclusive.imbalance_percent, rank_name(fr.inclusive.max_rank), rank_name(fr.inclusive.min_rank));
  }
  // The colour key.
  out += fmt::format("<TR><TD></TD><TD COLSPAN=\"{}\" ALIGN=\"LEFT\"><FONT POINT-SIZE=\"9\">", h.columns + 2);
  out += fmt::format(
      "<FONT COLOR=\"{}\">&#9632;</FONT> 0 (or missing)  <FONT COLOR=\"{}\">&#9632;</FONT> half the mean  "
      "<FONT COLOR=\"#999999\">&#9633;</FONT> the mean  <FONT COLOR=\"{}\">&#9632;</FONT> 1.5x  "
      "<FONT COLOR=\"{}\">&#9632;</FONT> 2x the mean or more  &#9633; outlined: a rank more than 3 std above the "
      "mean",
      heat_colour(0, 1), heat_colour(0.5, 1), heat_colour(1.5, 1), heat_colour(2, 1));
  out += "</FONT></TD></TR>\n</TABLE>>];\n}\n";
  return out;
}

}  // namespace graphgen::ranks
