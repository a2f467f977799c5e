// ranks: the per-rank statistics' rows in the table of formats
// (registry.cc): a table, CSV, JSON and the heatmap.
#include <fmt/format.h>

#include "ranks/writer.h"
#include "registry.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif

namespace graphgen::ranks {

using namespace formats;

namespace {

Options rank_options(const WriteInput& in) { return {in.event, in.options.top}; }

Expected<std::string> write_ranks_text(const WriteInput& in, Diagnostics&) {
  return write_text(in.profile, *in.ranks, rank_options(in));
}
Expected<std::string> write_ranks_csv(const WriteInput& in, Diagnostics&) {
  return write_csv(in.profile, *in.ranks, rank_options(in));
}
Expected<std::string> write_ranks_matrix(const WriteInput& in, Diagnostics&) {
  Options o = rank_options(in);
  o.max_bytes = in.options.max_output;
  std::string out = write_matrix_csv(in.profile, *in.ranks, o);
  if (out.empty())
    return bad_input(
        fmt::format("-T ranks.matrix.csv: {} functions x {} ranks would be more than {} bytes; --top N "
                    "keeps the N most imbalanced functions",
                    in.profile.functions.size(), in.ranks->ranks, in.options.max_output));
  return out;
}
Expected<std::string> write_ranks_json(const WriteInput& in, Diagnostics&) {
  return write_json(in.profile, *in.ranks, rank_options(in));
}

Expected<std::string> write_heatmap(const WriteInput& in, std::string_view format) {
#ifdef GRAPHGEN_HAVE_RENDER
  return render::render(heatmap_dot(in.profile, *in.ranks, rank_options(in)), format, in.options.title);
#else
  (void)in;
  return bad_usage(
      fmt::format("this graphgen was built without Graphviz, so it cannot draw the heatmap ({}); write "
                  "-T ranks or -T ranks.csv, or install libgraphviz-dev and rebuild",
                  format));
#endif
}
Expected<std::string> write_heatmap_svg(const WriteInput& in, Diagnostics&) { return write_heatmap(in, "svg"); }
Expected<std::string> write_heatmap_png(const WriteInput& in, Diagnostics&) { return write_heatmap(in, "png"); }

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"ranks",
       "per-rank statistics, one input per rank: the functions of highest imbalance (Imb, Imb%)",
       {".ranks", ".ranks.txt"},
       Needs::kRanks,
       false,
       write_ranks_text},
      {"ranks.csv",
       "per-rank statistics of every function, for spreadsheets and pandas",
       {".csv", ".ranks.csv"},
       Needs::kRanks,
       false,
       write_ranks_csv},
      {"ranks.matrix.csv",
       "every rank's own values: functions x ranks, inclusive and self, for pandas",
       {".matrix.csv"},
       Needs::kRanks,
       false,
       write_ranks_matrix,
       true},
      {"ranks.json",
       "per-rank statistics of every function, for scripts",
       {".ranks.json"},
       Needs::kRanks,
       false,
       write_ranks_json},
      {"heatmap",
       "SVG heatmap: the most imbalanced functions by ranks, each cell against the function's mean",
       {".heatmap.svg"},
       Needs::kRanks,
       true,
       write_heatmap_svg},
      {"heatmap.png", "the heatmap as PNG", {".heatmap.png"}, Needs::kRanks, true, write_heatmap_png},
  };
  return kRows;
}

}  // namespace graphgen::ranks
