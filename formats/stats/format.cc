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
    const Options& o = in.options.stats;
    if (o.sort.size() > 1 || o.report != Report::kStats || o.strip_dirs ||
        o.restrictions.size() > (in.options.top ? 1u : 0u))
      return bad_usage(
          "-T stats of a tracemalloc snapshot prints Snapshot.statistics(KEY): one --sort KEY (lineno, traceback "
          "or filename) and --top N; --restrict, --strip-dirs, --callers and --callees are pstats'");
    return tracemalloc::statistics(in.profile, o.sort.empty() ? "lineno" : o.sort[0], in.options.top);
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
