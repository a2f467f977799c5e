#include "render.h"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvcjob.h>
#include <graphviz/gvplugin.h>
#include <graphviz/gvplugin_device.h>
#include <graphviz/types.h>

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cairo_png.h"
#include "graphgen/shared_lib.h"
#include "graphgen/thread.h"
#include "graphgen/utf8.h"

// Exported by libgvc, declared only in its private gvio.h.
extern "C" size_t gvwrite(GVJ_t* job, const char* s, size_t len);

namespace graphgen::render {

namespace {

// Graphviz, loaded the first time a graph is laid out: libgvc and the
// cgraph, cdt, pathplan and ltdl it brings were 0.4 ms of every start of
// graphgen (a 35 ms conversion to dot draws nothing). The functions called,
// as (member, Graphviz's name).
#define GRAPHGEN_GRAPHVIZ_FUNCTIONS(X)  \
  X(seterrf, agseterrf)                 \
  X(seterr, agseterr)                   \
  X(memread, agmemread)                 \
  X(close, agclose)                     \
  X(nnodes, agnnodes)                   \
  X(nedges, agnedges)                   \
  X(context, gvContext)                 \
  X(add_library, gvAddLibrary)          \
  X(layout, gvLayout)                   \
  X(free_layout, gvFreeLayout)          \
  X(render_data, gvRenderData)          \
  X(free_render_data, gvFreeRenderData) \
  X(write, gvwrite)

GRAPHGEN_LIBRARY_API(GraphvizApi, GRAPHGEN_GRAPHVIZ_FUNCTIONS);

// The loaded functions, once render() has loaded them.
const GraphvizApi* g_gv = nullptr;

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

// PNG: cairo draws as always, and this device writes its pixels. cairo's
// own writer spent 70 % of a 360-node picture's time compressing 55
// million pixels at zlib's default level with adaptive filters; written at
// level 1 without filters, on every core (cairo_png.h), the picture decodes to
// the same pixels, in the same colour type (RGB when every pixel is
// opaque, as cairo chooses), at a small part of the time (docs/speed.md).

bool g_png_failed = false;  // out of memory: an error, not an empty file

// Graphviz hands the device cairo's image: premultiplied ARGB, one native
// 32-bit word per pixel, rows without padding.
void write_png(GVJ_t* job) {
  if (!job->imagedata) return;
  std::string out;
  if (encode_cairo_png(reinterpret_cast<const std::uint32_t*>(job->imagedata), job->width, job->height, &out))
    g_gv->write(job, out.data(), out.size());
  else
    g_png_failed = true;
}

gvdevice_engine_t g_png_engine = {nullptr, write_png, nullptr};
// As Graphviz's devices that format cairo's pixels: binary, truecolour,
// no margin, 96 dpi.
gvdevice_features_t g_png_features = {GVDEVICE_BINARY_FORMAT | GVDEVICE_DOES_TRUECOLOR, {0., 0.}, {0., 0.}, {96., 96.}};
gvplugin_installed_t g_png_devices[] = {{0, "png:cairo", 1, &g_png_engine, &g_png_features},
                                        {0, nullptr, 0, nullptr, nullptr}};
gvplugin_api_t g_apis[] = {{API_device, g_png_devices}, {static_cast<api_t>(0), nullptr}};
char g_package[] = "graphgen";
gvplugin_library_t g_library = {g_package, g_apis};
constexpr const char* kPng = "png:cairo:graphgen";

// One Graphviz context for the process, never freed. A context's font
// names outlive it in Graphviz's pango plugin, which caches a pointer to the
// last one: a second context measuring text compares against freed memory
// (AddressSanitizer caught it when --each renders several pictures in one
// worker). Rendering is serialised: Graphviz's state is global.
GVC_t* context() {
  static GVC_t* gvc = [] {
    GVC_t* c = g_gv->context();
    if (c) g_gv->add_library(c, &g_library);
    return c;
  }();
  return gvc;
}
std::mutex g_render;

// What Graphviz's text layout takes of the address space: pango's font
// threads and fontconfig's caches, about 40 MiB. Neither fontconfig nor
// cairo checks its allocations: short of room they crash (`-T png` of a
// 1 KB profile under `ulimit -v 68000`, every run), so under an
// address-space limit the drawing is refused first.
constexpr std::size_t kTextLayoutNeeds = std::size_t{64} << 20;
// Drawing a bitmap after the layout: cairo's glyph caches and the PNG
// encoder, beside the surface and the file (a 1 KB profile's PNG, 8.5 MiB
// of pixels, drew with 21 MiB left and crashed with 10).
constexpr std::size_t kBitmapNeeds = std::size_t{8} << 20;

std::optional<Error> short_of_address_space(std::size_t needs, std::string_view what) {
  const std::optional<std::size_t> left = address_space_left();
  if (!left || *left >= needs) return std::nullopt;
  return io_error(fmt::format(
      "graphviz: not enough address space left for {}: {} under the limit (ulimit -v), about {} needed; raise "
      "the limit, or write dot (-T dot) and draw it where the limit is higher",
      what, format_size(*left / (std::size_t{1} << 20) * (std::size_t{1} << 20)), format_size(needs)));
}

// The pixels cairo draws a laid-out graph on at 96 dpi (4 bytes each,
// Graphviz's 4-point pad around the drawing).
std::size_t raster_bytes(Agraph_t* graph) {
  const boxf bb = GD_bb(graph);
  const double px = 96.0 / 72.0, w = (bb.UR.x - bb.LL.x + 8) * px, h = (bb.UR.y - bb.LL.y + 8) * px;
  if (!(w > 0 && h > 0)) return 0;
  const double bytes = w * h * 4;
  return bytes >= 1e15 ? std::size_t{1} << 50 : static_cast<std::size_t>(bytes);
}

}  // namespace

bool available() { return true; }

namespace {

// The graph's name, which SVG shows as the document's <title>: a quoted dot
// ID on one line, of text an SVG can hold (the title is the inputs' names,
// which can be any bytes).
std::string graph_name(std::string_view title) {
  std::string line(title);
  for (char& c : line)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string id = "\"";
  for (char c : printable_utf8(line)) {
    if (c == '"' || c == '\\') id += '\\';
    id += c;
  }
  return id + "\"";
}

}  // namespace

namespace {

LayoutProgress g_progress;
std::chrono::milliseconds g_progress_after{2000};

// Calls g_progress every half second from g_progress_after on, in a thread
// of its own, until it is destroyed (when the layout and drawing are done).
class ProgressWatch {
 public:
  ProgressWatch(std::size_t nodes, std::size_t edges) : nodes_(nodes), edges_(edges) {
    if (!g_progress) return;
    if (g_progress_after.count() == 0) report();
    // (No thread, under ulimit -v: the layout runs without progress lines.)
    thread_ = BesideThread::try_start([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      auto next = g_progress_after.count() == 0 ? std::chrono::milliseconds(500) : g_progress_after;
      while (!wake_.wait_for(lock, next, [this] { return done_; })) {
        report();
        next = std::chrono::milliseconds(500);
      }
    });
  }
  ~ProgressWatch() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
    if (reported_) g_progress(-1, nodes_, edges_);
  }

 private:
  void report() {
    reported_ = true;
    g_progress(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(), nodes_, edges_);
  }
  std::size_t nodes_, edges_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false, reported_ = false;
  BesideThread thread_;
};

}  // namespace

void set_layout_progress(LayoutProgress f, std::chrono::milliseconds after) {
  g_progress = std::move(f);
  g_progress_after = after;
}

namespace {
const GraphvizApi* load_graphviz(std::string& why) {
  return load_api<GraphvizApi>(GRAPHGEN_GVC_SONAME,
                               "lays out and draws graphs (PNG, SVG, PDF, the HTML report's call graph)",
                               "Graphviz's libraries (Debian: libgvc6)", why);
}
}  // namespace

std::string missing() {
  std::string why;
  load_graphviz(why);
  return why;
}

Expected<std::string> render(std::string_view dot_source, std::string_view format, std::string_view title,
                             const char* engine) {
  std::lock_guard<std::mutex> lock(g_render);
  if (auto e = short_of_address_space(kTextLayoutNeeds, "its fonts and layout")) return *e;
  std::string why;
  g_gv = load_graphviz(why);
  if (!g_gv) return io_error(fmt::format("graphviz: {}", why));
  g_errors.clear();
  g_gv->seterrf(collect_error);
  g_gv->seterr(AGERR);
  GVC_t* gvc = context();
  if (!gvc) return io_error("graphviz: cannot create a rendering context");
  std::string source(dot_source);
  if (!title.empty() && source.starts_with("digraph {")) source.replace(0, 9, "digraph " + graph_name(title) + " {");
  Agraph_t* graph = g_gv->memread(source.c_str());
  if (!graph) return io_error(fmt::format("graphviz: cannot parse the graph: {}", g_errors));
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph_owner(graph, g_gv->close);
  // (Only graphs are laid out: a drawing's positions are given.)
  std::optional<ProgressWatch> watch;
  if (std::string_view(engine) == "dot")
    watch.emplace(static_cast<std::size_t>(g_gv->nnodes(graph)), static_cast<std::size_t>(g_gv->nedges(graph)));
  if (g_gv->layout(gvc, graph, engine) != 0) return io_error(fmt::format("graphviz: layout failed: {}", g_errors));
  char* data = nullptr;
  unsigned int length = 0;
  std::string fmt_name(format);
  int rc = -1;
  // A bitmap's surface and the file made of it, beside what the layout holds.
  if (fmt_name == "png" || fmt_name == "jpg" || fmt_name == "gif")
    if (auto e = short_of_address_space(kBitmapNeeds + 2 * raster_bytes(graph), "the picture's pixels")) {
      g_gv->free_layout(gvc, graph);
      return *e;
    }
  if (fmt_name == "png") {
    // Our PNG device (above); where it cannot render, Graphviz's own.
    g_png_failed = false;
    rc = g_gv->render_data(gvc, graph, kPng, &data, &length);
    if (g_png_failed) rc = -1;
    if (rc != 0 && data) {
      g_gv->free_render_data(data);
      data = nullptr;
    }
  }
  if (rc != 0) rc = g_gv->render_data(gvc, graph, fmt_name.c_str(), &data, &length);
  std::string out;
  if (rc == 0 && data) out.assign(data, length);
  if (data) g_gv->free_render_data(data);
  g_gv->free_layout(gvc, graph);
  if (rc != 0)
    return io_error(fmt::format("graphviz: cannot render {} (is the Graphviz {} plugin installed?){}{}", format, format,
                                g_errors.empty() ? "" : ": ", g_errors));
  return out;
}

}  // namespace graphgen::render
