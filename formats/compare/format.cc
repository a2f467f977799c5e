// compare: its rows in the table of formats (registry.cc). Both need the
// two profiles of --compare A B, which the pipeline writes itself
// (pipeline.cc compare()); without --compare they say so.
#include <fmt/format.h>

#include "registry.h"

namespace graphgen::compare {

using namespace formats;

namespace {

Expected<std::string> needs_two(const WriteInput&, Diagnostics&) {
  return bad_usage("-T compare and -T compare.csv compare two profiles: give --compare BEFORE AFTER");
}

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"compare",
       "with --compare: each function's cost before and after, change and ratio, inclusive and self, and how it "
       "was paired; largest changes first",
       {".compare", ".compare.txt"},
       Needs::kGraph,
       false,
       needs_two},
      {"compare.csv",
       "with --compare: the same for every function, full precision, for spreadsheets and pandas",
       {".compare.csv"},
       Needs::kGraph,
       false,
       needs_two},
  };
  return kRows;
}

}  // namespace graphgen::compare
