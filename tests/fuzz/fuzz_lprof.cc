// line_profiler: the pickle decoder, the validation and the text report
// (which must not open what the profile names: no source root is allowed).
#include "fuzz.h"
#include "lprof/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  auto p = lprof::read(fuzz::input(data, size), diag);
  fuzz::check(p);
  if (p) {
    lprof::TextOptions o;
    o.source_root = "/nonexistent-fuzz-root";
    o.max_bytes = formats::default_budget(size);
    fuzz::check(lprof::write_text(*p, o, diag));
  }
  return 0;
}
