// perf script, also split in two at a sample boundary as large files are,
// and with the second part's tail taken as a third part (the thread done
// first takes it): every read gives the same trace of the samples' times,
// and the same profile and stack tree (strings compared by their text: a
// part interns a process name where its first sample is).
#include "fuzz.h"
#include "perf/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  InputFile in = fuzz::input(data, size);
  const std::string whole = fuzz::trace(perf::read(in, fuzz::timed(size), diag));
  const std::string split = fuzz::trace(perf::read(in, fuzz::timed(size), diag, size / 2 + 1));
  if (!whole.empty() && !split.empty() && whole != split) fuzz::fail();
  Diagnostics one_diag, three_diag;
  const auto one = perf::read(in, fuzz::options(size), one_diag);
  const auto three = perf::read(in, fuzz::options(size), three_diag, size / 2 + 1, size * 3 / 4 + 1);
  fuzz::check(one);
  if (fuzz::tables(one, one_diag, true) + fuzz::stacks(one, true) !=
      fuzz::tables(three, three_diag, true) + fuzz::stacks(three, true))
    fuzz::fail();
  return 0;
}
