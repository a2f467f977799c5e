// callgrind, also read on two cores for a graph (the second half from the
// first fn= line past the middle, its state at the cut guessed): both
// reads give the same tables, warnings and error; and the same functions,
// first lines and self costs as a read that keeps positions.
#include "callgrind/reader.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  Diagnostics diag;
  InputFile in = fuzz::input(data, size);
  formats::ReadOptions positions = fuzz::options(size);
  positions.keep_positions = true;
  Expected<Profile> kept = callgrind::read(in, positions, diag);
  fuzz::check(kept);
  formats::ReadOptions graph = fuzz::options(size);
  graph.keep_positions = false;
  Diagnostics one, two;
  Expected<Profile> quick = callgrind::read_from(in, graph, one, std::string_view::npos);
  const std::string whole = fuzz::tables(quick, one);
  const std::string split = fuzz::tables(callgrind::read_from(in, graph, two, size / 2), two);
  if (whole != split) fuzz::fail();
  // Read for a graph (self cost lines in runs, straight from the bytes) or
  // line by line keeping positions: the same functions, first lines and
  // self costs.
  if (kept && quick) {
    if (kept->functions.size() != quick->functions.size() || kept->self_cost != quick->self_cost) fuzz::fail();
    for (FuncId f = 0; f < kept->functions.size(); ++f)
      if (kept->functions[f].line != quick->functions[f].line ||
          kept->str(kept->functions[f].name) != quick->str(quick->functions[f].name))
        fuzz::fail();
  }
  return 0;
}
