#include "fuzz.h"
#include "pprof/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  fuzz::check(pprof::read(fuzz::input(data, size), fuzz::options(size), diag));
  return 0;
}
