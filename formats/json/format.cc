// json: its row in the table of formats (registry.cc): how it is named,
// recognised and read.
#include "json/reader.h"
#include "registry.h"

namespace graphgen::json {

using namespace formats;

namespace {

Confidence sniff_row(std::string_view head) {
  return sniff(head) ? Confidence::kStrong : sniff_object(head) ? Confidence::kMaybe : Confidence::kNo;
}

}  // namespace

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "json",
      .description = "gprof2dot's JSON profile format (its schema.json); several files are summed",
      .extensions = {".json"},
      .sniff = sniff_row,
      .read = read,
  };
  return kRow;
}

}  // namespace graphgen::json
