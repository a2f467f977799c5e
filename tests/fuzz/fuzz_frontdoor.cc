// The front door: decompression, format detection, the reader it picks,
// then the passes and every writer that is not Graphviz's (dot, callgrind,
// pstats, the text report, folded stacks, the flame graph, the HTML report),
// with a selection and a strip for good measure; the text report also as
// pstats' callers and callees tables.
#include "common/decompress.h"
#include "fuzz.h"
#include "pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  auto in = formats::prepared(fuzz::input(data, size));
  fuzz::check(in);
  if (!in) return 0;
  auto format = formats::detect_input_format(*in);
  fuzz::check(format);
  if (!format) return 0;
  Diagnostics diag;
  for (const formats::OutputFormat& out : formats::output_formats())
    for (stats::Report report : {stats::Report::kStats, stats::Report::kCallers, stats::Report::kCallees}) {
      if (out.rendered || !formats::check_pair(**format, out)) continue;
      if (report != stats::Report::kStats && out.name != "stats") continue;
      auto profile = (*format)->read(*in, fuzz::options(in->bytes().size()), diag);  // each writer its own copy
      fuzz::check(profile);
      if (!profile) return 0;
      pipeline::Request r;
      r.output = &out;
      r.write.stats.report = report;
      r.graph.prune.node_threshold_percent = 0;
      r.graph.prune.edge_threshold_percent = 0;
      r.graph.root = "*";
      r.write.dot.strip = true;
      r.write.text.source_root = "/nonexistent-fuzz-root";
      r.write.report_graph = false;
      pipeline::Output o;
      o.input_bytes = size;
      fuzz::check(pipeline::convert_profile(std::move(profile).value(), **format, r, diag, o));
    }
  return 0;
}
