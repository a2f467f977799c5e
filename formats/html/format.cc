// html: the report's row in the table of formats (registry.cc).
#include <fmt/format.h>

#include <algorithm>

#include "dot/dot_writer.h"
#include "graphgen/analysis/flame.h"
#include "html/report.h"
#include "mprof/writer.h"
#include "registry.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif

namespace graphgen::html {

using namespace formats;

namespace {

Expected<std::string> write_report(const WriteInput& in, [[maybe_unused]] Diagnostics& diag) {  // (used with Graphviz)
  Options o;
  o.title = in.options.title;
  o.creator = in.options.creator;
  o.max_bytes = in.options.max_output;
  o.rank_rows = in.options.top;
#ifdef GRAPHGEN_HAVE_RENDER
  bool any = std::any_of(in.graph->nodes.begin(), in.graph->nodes.end(), [](const GraphNode& n) { return n.kept; });
  // (Asked only when there is a graph to draw: it loads Graphviz.)
  const std::string missing = in.options.report_graph && any ? render::missing() : std::string();
  if (!in.options.report_graph) {
    o.graph_note = "The call graph was left out.";
  } else if (!missing.empty()) {
    // The tables, icicle, ranks and memory need no layout: the report
    // without its graph, and a warning, rather than no report.
    diag.warn(fmt::format("-T html: the report has no call graph: graphviz: {}", missing));
    o.graph_note =
        "Graphviz's libraries were not found when this report was written, so it has no call graph "
        "(install them, or write the graph with -T dot).";
  } else if (any) {
    const dot::Options options = dot::write_options(in);
    const dot::Chains chains = dot::find_chains(*in.graph, options.collapse_chains_over);
    if (options.collapse_chains_over && chains.collapsed)
      o.graph_caption = fmt::format(
          "{} of single calls ({} functions, each calling only the next) {} drawn as one node{}, so that this "
          "graph lays out in seconds; graphgen --no-collapse-chains draws every function.",
          chains.collapsed == 1 ? "A chain" : fmt::format("{} chains", chains.collapsed),
          chains.absorbed + chains.collapsed, chains.collapsed == 1 ? "is" : "are",
          chains.collapsed == 1 ? "" : " each");
    auto text = dot::write(in.profile, *in.graph, in.options.theme, options, diag);
    if (!text) return text.error();
    auto svg = render::render(*text, "svg", in.options.title);
    if (!svg) return svg.error();
    o.graph_svg = std::move(svg).value();
  } else {
    o.graph_note = "The thresholds left no function to draw: lower -n/-e.";
  }
#else
  o.graph_note = "This graphgen was built without Graphviz: write the call graph with -T dot.";
#endif
  if (!in.profile.memory.empty()) {
    auto plot = mprof::plot(in.profile, {});
    if (!plot) return plot.error();
    o.memory_svg = plot->svg("Memory used over time");
  }
  FlameTree tree = flame_tree(in.profile, in.event, in.totals);
  return write(in.profile, in.event, *in.totals, tree, in.ranks, o);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"html",
       "one self-contained HTML report: function table, icicle, call graph, per-rank views, memory plot",
       {".html", ".htm"},
       Needs::kReport,
       false,
       write_report,
       true},
  };
  return kRows;
}

}  // namespace graphgen::html
