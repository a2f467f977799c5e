// prof: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "graphgen/analysis/integrate.h"
#include "prof/reader.h"
#include "registry.h"

namespace graphgen::prof {

using namespace formats;

namespace {

// gprof2dot's totals for gprof: seconds integrated along call-count ratios.
std::optional<CallGraph> gprof_graph(const Profile& p, std::size_t event, Diagnostics& diag, Profile* /*releasable*/) {
  RatioRule rule;
  rule.split = RatioRule::Split::kCallCount;
  rule.in_values = true;
  return graph_from_call_ratios(p, event, diag, rule);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "prof",
      .description = "GNU gprof's call graph text (gprof prog gmon.out), BSD and Darwin too",
      .extensions = {".gprof", ".prof", ".txt"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .graph = gprof_graph,
      .counts_samples = false,  // (gprof times what it measured: no samples (gprof2dot keeps none))
  };
  return kRow;
}

}  // namespace graphgen::prof
