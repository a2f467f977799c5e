// sleepy: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "registry.h"
#include "sleepy/reader.h"

namespace graphgen::sleepy {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) {
  return sniff(head) ? Confidence::kStrong : sniff_zip(head) ? Confidence::kWeak : Confidence::kNo;
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "sleepy",
      .description = "Very Sleepy profiles (.sleepy zip archives, read with libarchive); several files are summed",
      .extensions = {".sleepy"},
      .sniff = sniff_row,
      .read = read,
      .lone_file_is_merged = always_merged,  // (StackBuilder keys: the merge's)
  };
  return kRow;
}

}  // namespace graphgen::sleepy
