// pstats: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "pstats/reader.h"
#include "registry.h"

namespace graphgen::pstats {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) {
  return pstats::sniff_strong(head) ? Confidence::kStrong
         : pstats::sniff_weak(head) ? Confidence::kWeak
                                    : Confidence::kNo;
}

Expected<Profile> read_file(const InputFile& in, const ReadOptions&, Diagnostics& diag) {
  return read(in.bytes(), in.path(), diag);
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
  };
  return kRow;
}

}  // namespace graphgen::pstats
