// axe: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "axe/reader.h"
#include "graphgen/analysis/integrate.h"
#include "registry.h"

namespace graphgen::axe {

using namespace formats;

namespace {

// The shares VTune printed, for one file (a merge drops them: they hold
// for one run); else the profile's own layers decide.
std::optional<CallGraph> shares_graph(const Profile& p, std::size_t event, Diagnostics& diag, Profile* /*releasable*/) {
  if (p.reported_share.empty()) return std::nullopt;
  return graph_from_reported_shares(p, event, diag);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "axe",
      .description = "VTune Amplifier XE's gprof-cc call graph report; its call shares are estimates, as in gprof2dot",
      .extensions = {".axe"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .graph = shares_graph,
      .counts_samples = false,  // (VTune's seconds: no samples (gprof2dot keeps none))
  };
  return kRow;
}

}  // namespace graphgen::axe
