// stats: pstats' report's row in the table of formats (registry.cc).
#include "mprof/writer.h"
#include "registry.h"
#include "stats/writer.h"
#include "tracemalloc/reader.h"
#include "tracemalloc/statistics.h"

namespace graphgen::stats {

using namespace formats;

namespace {

Expected<std::string> write_report(const WriteInput& in, Diagnostics&) {
  if (!in.profile.memory.empty()) return mprof::write_peaks(in.profile);  // mprof peak, per function
  if (tracemalloc::is_snapshot(in.profile)) {
    // tracemalloc's own statistics, grouped by the one --sort key.
    auto key = tracemalloc::key_of(in.options.stats, in.options.top, "Snapshot.statistics");
    if (!key) return key.error();
    return tracemalloc::statistics(in.profile, *key, in.options.top);
  }
  return write(in.profile, in.event, in.graph, in.options.stats);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"stats",
       "pstats' report: print_stats, or with --callers/--callees their tables; sorted by --sort (tracemalloc "
       "snapshots: Snapshot.statistics)",
       {".stats"},
       Needs::kTotals,
       false,
       write_report},
  };
  return kRows;
}

}  // namespace graphgen::stats
