// speedscope: its rows in the table of formats (registry.cc): speedscope's
// JSON file format, read and written.
#include "flame/writer.h"
#include "registry.h"
#include "speedscope/reader.h"
#include "speedscope/writer.h"

namespace graphgen::speedscope {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) {
  const int c = sniff(head);
  return c == 3 ? Confidence::kStrong : c == 1 ? Confidence::kWeak : Confidence::kNo;
}

Expected<std::string> write_row(const WriteInput& in, Diagnostics& diag) {
  WriteOptions o;
  o.name = in.options.title;
  o.exporter = in.options.creator;
  o.max_bytes = in.options.max_output;
  return write(in.profile, flame::output_stacks(in.profile, in.event, in.totals, diag, "-T speedscope"), in.event, o);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "speedscope",
      .description = "speedscope's JSON file format, sampled and evented profiles (py-spy -f speedscope, ...)",
      .extensions = {".speedscope.json"},
      .sniff = sniff_row,
      .read = read,
      .provides = kCallGraph | kLocations | kTimeline,
      .graph = graph_from_stacks,
      .counts_samples = false,  // (times and bytes; a unitless file's event is named samples)
  };
  return kRow;
}

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"speedscope",
       "speedscope's JSON file format, one sampled profile per process (stacks rebuilt from call ratios for call "
       "graphs)",
       {".speedscope.json"},
       Needs::kStacks,
       false,
       write_row},
  };
  return kRows;
}

}  // namespace graphgen::speedscope
