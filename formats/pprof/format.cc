// pprof: its rows in the table of formats (registry.cc): profile.proto
// read and written.
#include "flame/writer.h"
#include "pprof/reader.h"
#include "pprof/writer.h"
#include "registry.h"

namespace graphgen::pprof {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) { return sniff(head) ? Confidence::kStrong : Confidence::kNo; }

Expected<std::string> write_row(const WriteInput& in, Diagnostics& diag) {
  // Recorded stacks are written exactly, every event; a call graph's are
  // rebuilt, for the event graphed.
  if (!in.profile.stack_nodes.empty()) return write(in.profile, in.event, nullptr, in.options.max_output);
  FlameTree tree = flame::output_stacks(in.profile, in.event, in.totals, diag, "-T pprof");
  return write(in.profile, in.event, &tree, in.options.max_output);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "pprof",
      .description = "pprof's profile.proto, gzipped or not (Go's runtime/pprof, gperftools via pprof -proto, ...)",
      .extensions = {".pb.gz", ".pprof", ".pb"},
      .sniff = sniff_row,
      .read = read,
      .graph = graph_from_stacks,
      .counts_samples = false,  // (nanoseconds, bytes, objects; a samples type counts them)
  };
  return kRow;
}

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"pprof",
       "pprof's profile.proto, gzipped, for go tool pprof, speedscope, Perfetto, Pyroscope (stacks rebuilt from call "
       "ratios for call graphs)",
       {".pb.gz", ".pprof"},
       Needs::kStacks,
       false,
       write_row},
  };
  return kRows;
}

}  // namespace graphgen::pprof
