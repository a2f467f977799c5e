// callgrind, also read on two cores for a graph (the second half from the
// first fn= line past the middle, its state at the cut guessed): both
// reads give the same tables, warnings and error.
#include "callgrind/reader.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  InputFile in = fuzz::input(data, size);
  fuzz::check(callgrind::read(in, fuzz::options(size), diag));
  formats::ReadOptions graph = fuzz::options(size);
  graph.keep_positions = false;
  Diagnostics one, two;
  const std::string whole = fuzz::tables(callgrind::read_from(in, graph, one, std::string_view::npos), one);
  const std::string split = fuzz::tables(callgrind::read_from(in, graph, two, size / 2), two);
  if (whole != split) fuzz::fail();
  return 0;
}
