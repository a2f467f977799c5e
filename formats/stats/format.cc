// stats: pstats' report's row in the table of formats (registry.cc).
#include "registry.h"
#include "stats/writer.h"

namespace graphgen::stats {

using namespace formats;

namespace {

Expected<std::string> write_report(const WriteInput& in, Diagnostics&) {
  return write(in.profile, in.event, in.graph, in.options.stats);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"stats",
       "pstats' report: print_stats, or with --callers/--callees their tables; sorted by --sort",
       {".stats"},
       Needs::kTotals,
       false,
       write_report},
  };
  return kRows;
}

}  // namespace graphgen::stats
