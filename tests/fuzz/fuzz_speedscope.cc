#include "fuzz.h"
#include "speedscope/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  fuzz::check(speedscope::read(fuzz::input(data, size), fuzz::options(size), diag));
  return 0;
}
