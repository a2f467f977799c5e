// pstats: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include <fmt/format.h>

#include "pstats/reader.h"
#include "pstats/writer.h"
#include "registry.h"

namespace graphgen::pstats {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) {
  return pstats::sniff_strong(head) ? Confidence::kStrong
         : pstats::sniff_weak(head) ? Confidence::kWeak
                                    : Confidence::kNo;
}

Expected<Profile> read_file(const InputFile& in, const ReadOptions& options, Diagnostics& diag) {
  return read(in.bytes(), in.path(), diag, &in, /*keep_call_self=*/!options.graph_only);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "pstats",
      .description = "Python cProfile/profile statistics (marshal); several files merge as pstats.Stats does",
      .extensions = {".pstats", ".prof", ".profile", ".cprof"},
      .sniff = sniff_row,
      .read = read_file,
      .merge_order = MergeOrder::kPstats,
      .lone_file_is_merged = always_merged,  // (pstats keys are unique)
  };
  return kRow;
}

namespace {

Expected<std::string> write_file(const WriteInput& in, Diagnostics& diag) {
  const Event& e = in.profile.events[in.event];
  if (!e.floating && e.seconds_per_unit <= 0)
    diag.warn(
        fmt::format("pstats holds seconds, and this profile's {} are counts: they are written as if each were "
                    "one second (percentages and order are right, times are not)",
                    quote_input(in.profile.str(e.name))));
  return write(in.profile, in.event, in.options.max_output);
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"pstats",
       "Python pstats (marshal version 2: Python 2.5+ and 3 load it)",
       {".pstats", ".prof"},
       Needs::kProfile,
       false,
       write_file},
  };
  return kRows;
}

}  // namespace graphgen::pstats
