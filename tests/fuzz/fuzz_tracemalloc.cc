// tracemalloc snapshots, then tracemalloc's statistics of what was read
// (every key: they walk the stack tree and the functions).
#include "fuzz.h"
#include "tracemalloc/reader.h"
#include "tracemalloc/statistics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  auto p = tracemalloc::read(fuzz::input(data, size), fuzz::options(size), diag);
  fuzz::check(p);
  if (!p) return 0;
  for (const char* key : {"lineno", "traceback", "filename"}) {
    fuzz::check(tracemalloc::statistics(*p, key, 0));
    fuzz::check(tracemalloc::compare_to(*p, *p, key, 10));
  }
  return 0;
}
