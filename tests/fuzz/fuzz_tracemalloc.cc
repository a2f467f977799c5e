// tracemalloc snapshots: the streaming path and the whole pickle decoded
// first must give the same profile, warnings and errors whenever the
// streaming path takes a file, with its memo switched to the values a GET
// takes anywhere; then tracemalloc's statistics of what was
// read (every key: they walk the stack tree and the functions).
#include "fuzz.h"
#include "tracemalloc/reader.h"
#include "tracemalloc/statistics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  const InputFile in = fuzz::input(data, size);
  auto both = fuzz::two_paths(in, fuzz::options(size), tracemalloc::read_streaming, tracemalloc::read_general);
  if (both.fast && *both.fast != both.general) fuzz::fail();
  // The memo switched to the values a GET takes at a point the input picks
  // (read_streaming() switches wherever the decoding is when its scan ends).
  if (both.fast) {
    Diagnostics d;
    auto switched = tracemalloc::read_streaming_switching(in, fuzz::options(size), d, size > 0 ? data[0] % 64 : 0);
    if (!switched || fuzz::tables(*switched, d) != *both.fast) fuzz::fail();
  }
  Diagnostics diag;
  auto p = tracemalloc::read(in, fuzz::options(size), diag);
  fuzz::check(p);
  if (!p) return 0;
  for (const char* key : {"lineno", "traceback", "filename"}) {
    fuzz::check(tracemalloc::statistics(*p, key, 0));
    fuzz::check(tracemalloc::compare_to(*p, *p, key, 10));
  }
  return 0;
}
