// perf script, also split in two at a sample boundary as large files are.
#include "fuzz.h"
#include "perf/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  InputFile in = fuzz::input(data, size);
  fuzz::check(perf::read(in, fuzz::options(size), diag));
  fuzz::check(perf::read(in, fuzz::options(size), diag, size / 2 + 1));
  return 0;
}
