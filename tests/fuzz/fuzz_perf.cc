// perf script, also split in two at a sample boundary as large files are;
// both reads give the same trace of the samples' times.
#include "fuzz.h"
#include "perf/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  InputFile in = fuzz::input(data, size);
  const std::string whole = fuzz::trace(perf::read(in, fuzz::timed(size), diag));
  const std::string split = fuzz::trace(perf::read(in, fuzz::timed(size), diag, size / 2 + 1));
  if (!whole.empty() && !split.empty() && whole != split) fuzz::fail();
  fuzz::check(perf::read(in, fuzz::options(size), diag));
  return 0;
}
