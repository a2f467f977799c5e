// dot: the call graph's rows in the table of formats (registry.cc): dot as
// gprof2dot writes it, and the images Graphviz draws from it in-process.
#include <fmt/format.h>

#include "dot/dot_writer.h"
#include "registry.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif

namespace graphgen::dot {

using namespace formats;

Options write_options(const WriteInput& in) {
  Options o = in.options.dot;
  o.max_bytes = in.options.max_output;
  if (in.options.imbalance) o.imbalance = in.ranks;
  return o;
}

namespace {

Expected<std::string> write_dot(const WriteInput& in, Diagnostics& diag) {
  return write(in.profile, *in.graph, in.options.theme, write_options(in), diag);
}

Expected<std::string> write_image(const WriteInput& in, std::string_view format, Diagnostics& diag) {
#ifdef GRAPHGEN_HAVE_RENDER
  auto text = write(in.profile, *in.graph, in.options.theme, write_options(in), diag);
  if (!text) return text.error();
  return render::render(*text, format, in.options.title);
#else
  (void)in;
  (void)diag;
  return bad_usage(
      fmt::format("this graphgen was built without Graphviz, so it cannot write {}; write .dot, or "
                  "install libgraphviz-dev and rebuild",
                  format));
#endif
}

template <const char* kFormat>
Expected<std::string> write_rendered(const WriteInput& in, Diagnostics& diag) {
  return write_image(in, kFormat, diag);
}

constexpr char kPng[] = "png";
constexpr char kSvg[] = "svg";
constexpr char kPdf[] = "pdf";
constexpr char kJpg[] = "jpg";
constexpr char kGif[] = "gif";
constexpr char kPs[] = "ps";

}  // namespace

const std::vector<OutputFormat>& output_formats() {
  static const std::vector<OutputFormat> kRows = {
      {"dot", "Graphviz source, as gprof2dot writes it", {".dot", ".gv"}, Needs::kGraph, false, write_dot},
      {"png",
       "PNG image, laid out and rendered in-process by Graphviz",
       {".png"},
       Needs::kGraph,
       true,
       write_rendered<kPng>},
      {"svg",
       "SVG image with tooltips, rendered in-process by Graphviz",
       {".svg"},
       Needs::kGraph,
       true,
       write_rendered<kSvg>},
      {"pdf", "PDF document, rendered in-process by Graphviz", {".pdf"}, Needs::kGraph, true, write_rendered<kPdf>},
      {"jpg",
       "JPEG image, when Graphviz has its jpg plugin",
       {".jpg", ".jpeg"},
       Needs::kGraph,
       true,
       write_rendered<kJpg>},
      {"gif", "GIF image, when Graphviz has its gif plugin", {".gif"}, Needs::kGraph, true, write_rendered<kGif>},
      {"ps", "PostScript, rendered in-process by Graphviz", {".ps"}, Needs::kGraph, true, write_rendered<kPs>},
  };
  return kRows;
}

}  // namespace graphgen::dot
