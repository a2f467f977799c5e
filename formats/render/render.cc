#include "render.h"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <mutex>
#include <string>

namespace graphgen::render {

namespace {

// Graphviz reports problems through a global callback; collect the text so
// it reaches the user as one line instead of raw stderr chatter.
std::string g_errors;

int collect_error(char* message) {
  std::string_view m(message);
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.remove_suffix(1);
  if (!m.empty()) {
    if (!g_errors.empty()) g_errors += "; ";
    g_errors += m;
  }
  return 0;
}

// One Graphviz context for the process, never freed. A context's font
// names outlive it in Graphviz's pango plugin, which caches a pointer to the
// last one: a second context measuring text compares against freed memory
// (AddressSanitizer caught it when --each renders several pictures in one
// worker). Rendering is serialised: Graphviz's state is global.
GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}
std::mutex g_render;

}  // namespace

bool available() { return true; }

namespace {

// The graph's name, which SVG shows as the document's <title>: a quoted dot ID.
std::string graph_name(std::string_view title) {
  std::string id = "\"";
  for (char c : title) {
    if (c == '"' || c == '\\') id += '\\';
    if (c == '\n' || c == '\r') c = ' ';
    id += c;
  }
  return id + "\"";
}

}  // namespace

Expected<std::string> render(std::string_view dot_source, std::string_view format, std::string_view title) {
  std::lock_guard<std::mutex> lock(g_render);
  g_errors.clear();
  agseterrf(collect_error);
  agseterr(AGERR);
  GVC_t* gvc = context();
  if (!gvc) return io_error("graphviz: cannot create a rendering context");
  std::string source(dot_source);
  if (!title.empty() && source.starts_with("digraph {")) source.replace(0, 9, "digraph " + graph_name(title) + " {");
  Agraph_t* graph = agmemread(source.c_str());
  if (!graph) return io_error(fmt::format("graphviz: cannot parse the graph: {}", g_errors));
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph_owner(graph, agclose);
  if (gvLayout(gvc, graph, "dot") != 0) return io_error(fmt::format("graphviz: layout failed: {}", g_errors));
  char* data = nullptr;
  unsigned int length = 0;
  std::string fmt_name(format);
  int rc = -1;
  if (fmt_name == "png") {
    // Drawn by cairo as always, written by gd as a palette image: 70 % of
    // the time of cairo's own PNG went to compressing its truecolor pixels
    // (a 357-node graph: 2.4 s -> 0.9 s, a third of the bytes, the same
    // picture; README "Speed"). Without the gd plugin, cairo writes it.
    rc = gvRenderData(gvc, graph, "png:cairo:gd", &data, &length);
    if (rc != 0 && data) {
      gvFreeRenderData(data);
      data = nullptr;
    }
  }
  if (rc != 0) rc = gvRenderData(gvc, graph, fmt_name.c_str(), &data, &length);
  std::string out;
  if (rc == 0 && data) out.assign(data, length);
  if (data) gvFreeRenderData(data);
  gvFreeLayout(gvc, graph);
  if (rc != 0)
    return io_error(fmt::format("graphviz: cannot render {} (is the Graphviz {} plugin installed?){}{}", format, format,
                                g_errors.empty() ? "" : ": ", g_errors));
  return out;
}

}  // namespace graphgen::render
