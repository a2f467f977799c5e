// line_profiler: the streaming path and the whole pickle decoded first must
// give the same profile whenever the streaming path takes a file, and a read
// without line rows the same functions and costs; then the validation and
// the text report (which must not open what the profile names: no source
// root is allowed).
#include "fuzz.h"
#include "lprof/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphgen;
  const InputFile in = fuzz::input(data, size);
  auto both = fuzz::two_paths(
      in, fuzz::options(size),
      [](const InputFile& f, const formats::ReadOptions&, Diagnostics& d) { return lprof::read_streaming(f, d); },
      [](const InputFile& f, const formats::ReadOptions&, Diagnostics& d) { return lprof::read_general(f, d); });
  if (both.fast && *both.fast != both.general) fuzz::fail();
  Diagnostics diag;
  auto p = lprof::read(in, diag);
  fuzz::check(p);
  // Without line rows (a graph's read): the same functions and costs, no row.
  Diagnostics graph_diag;
  auto graph = lprof::read(in, graph_diag, false);
  if (graph.has_value() != p.has_value()) fuzz::fail();
  if (graph && (!graph->line_costs.empty() || fuzz::tables(graph, graph_diag) != fuzz::tables(p, diag))) fuzz::fail();
  if (p) {
    lprof::TextOptions o;
    o.source_root = "/nonexistent-fuzz-root";
    o.max_bytes = formats::default_budget(size);
    fuzz::check(lprof::write_text(*p, o, diag));
  }
  return 0;
}
