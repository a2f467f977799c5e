// tau: its row in the table of formats (registry.cc): TAU's text profiles
// and ParaProf's packed files, told apart by their first bytes.
#include "registry.h"
#include "tau/reader.h"

namespace graphgen::tau {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) {
  return sniff_text(head) || sniff_packed(head) ? Confidence::kStrong : Confidence::kNo;
}

Expected<Profile> read_row(const InputFile& input, const ReadOptions& options, Diagnostics& diag) {
  if (sniff_packed(input.bytes())) return read_packed(input, options, diag);
  return read_text(input, options, diag);
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "tau",
      .description = "TAU profiles: profile.N.C.T files (a folder of them, MULTI__ metric folders) or ParaProf's .ppk",
      .extensions = {".ppk"},
      .sniff = sniff_row,
      .read = read_row,
      .provides = kCallGraph | kLocations,
      .lone_file_is_merged = always_merged,  // (one function per name, one call per pair: the merge's keys)
  };
  return kRow;
}

}  // namespace graphgen::tau
