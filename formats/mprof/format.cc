// mprof: its rows in the table of formats (registry.cc): memory_profiler's
// mprof files read, their plot written.
#include "mprof/reader.h"
#include "mprof/writer.h"
#include "registry.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif

namespace graphgen::mprof {

using namespace formats;

const InputFormat& input_format() {
  static const InputFormat kRow = {
      .name = "mprof",
      .description = "memory_profiler's mprof run files (mprofile_*.dat): memory over time, @profile'd calls",
      .extensions = {".dat"},
      .sniff = strong_or_no<sniff>,
      .read = read,
      .provides = kCallGraph | kMemory,
      .lone_file_is_merged = always_merged,  // (StackBuilder keys: the merge's)
      .graph = graph_from_stacks,
      .counts_samples = false,  // (memory)
  };
  return kRow;
}

namespace {

Expected<std::string> write_plot(const WriteInput& in, bool png) {
  PlotOptions o;
  o.title = in.options.title.empty() ? "" : "Memory used over time: " + in.options.title;
  auto drawing = plot(in.profile, o);
  if (!drawing) return drawing.error();
  std::string text = png ? drawing->dot_graph() : drawing->svg(o.title.empty() ? "Memory used over time" : o.title);
  if (in.options.max_output && text.size() > in.options.max_output)
    return output_too_large(png ? "memplot.png" : "memplot", in.options.max_output);
  if (!png) return text;
#ifdef GRAPHGEN_HAVE_RENDER
  return render::render(text, "png", in.options.title, "nop2");
#else
  return bad_usage(
      "this graphgen was built without Graphviz, so it cannot draw PNG; write -T memplot (SVG), or install "
      "libgraphviz-dev and rebuild");
#endif
}

Expected<std::string> write_svg(const WriteInput& in, Diagnostics&) { return write_plot(in, false); }
Expected<std::string> write_png(const WriteInput& in, Diagnostics&) { return write_plot(in, true); }

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"memplot",
       "memory over time as mprof plot draws it (SVG): each run a line, children dashed, @profile'd calls as "
       "brackets, the peak marked (mprof files)",
       {".mem.svg"},
       Needs::kMemory,
       false,
       write_svg},
      {"memplot.png", "the memory plot as PNG", {".mem.png"}, Needs::kMemory, true, write_png},
  };
  return kRows;
}

}  // namespace graphgen::mprof
