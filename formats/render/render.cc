#include "render.h"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvcjob.h>
#include <graphviz/gvplugin.h>
#include <graphviz/gvplugin_device.h>
#ifdef GRAPHGEN_HAVE_LIBPNG
#include <png.h>
#endif

#include <condition_variable>
#include <csetjmp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "graphgen/utf8.h"

// Exported by libgvc, declared only in its private gvio.h.
extern "C" size_t gvwrite(GVJ_t* job, const char* s, size_t len);

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

#ifdef GRAPHGEN_HAVE_LIBPNG
// PNG: cairo draws as always, and this device writes its pixels. cairo's
// own writer spent 70 % of a 360-node picture's time compressing 55
// million pixels at zlib's default level with adaptive filters; written at
// level 1 without filters the picture decodes to the same pixels, in the
// same colour type (RGB when every pixel is opaque, as cairo chooses), at
// a third of the time and a fifth more bytes (docs/speed.md).

bool g_png_failed = false;  // libpng failed (out of memory): an error, not an empty file

void append_png(png_structp png, png_bytep data, png_size_t size) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), size);
}
void flush_png(png_structp) {}

// Rows of `pixels` (RGB or RGBA bytes) as a PNG into `out`; false when
// libpng fails (it long-jumps here: nothing with a destructor lives in
// this frame).
bool encode_png(const unsigned char* pixels, unsigned width, unsigned height, bool alpha, std::string* out) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, out, append_png, flush_png);
  png_set_IHDR(png, info, width, height, 8, alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 1);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_write_info(png, info);
  const std::size_t stride = std::size_t{width} * (alpha ? 4 : 3);
  for (unsigned y = 0; y < height; ++y) png_write_row(png, pixels + y * stride);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

// Graphviz hands the device cairo's image: premultiplied ARGB, one native
// 32-bit word per pixel, rows without padding. It is converted in place
// (as Graphviz's own gd and gdk devices do) to RGB, or to RGBA with the
// colours unpremultiplied exactly as cairo's writer rounds them.
void write_png(GVJ_t* job) {
  auto* bytes = reinterpret_cast<unsigned char*>(job->imagedata);
  if (!bytes) return;
  const std::size_t n = std::size_t{job->width} * job->height;
  bool opaque = true;
  for (std::size_t i = 0; i < n && opaque; ++i) {
    std::uint32_t p;
    std::memcpy(&p, bytes + 4 * i, 4);
    opaque = (p >> 24) == 0xff;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t p;
    std::memcpy(&p, bytes + 4 * i, 4);
    unsigned a = p >> 24, r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
    unsigned char* o = bytes + (opaque ? 3 : 4) * i;
    if (!opaque) {
      if (a == 0) {
        r = g = b = 0;
      } else if (a != 0xff) {
        r = (r * 255 + a / 2) / a;
        g = (g * 255 + a / 2) / a;
        b = (b * 255 + a / 2) / a;
      }
      o[3] = static_cast<unsigned char>(a);
    }
    o[0] = static_cast<unsigned char>(r);
    o[1] = static_cast<unsigned char>(g);
    o[2] = static_cast<unsigned char>(b);
  }
  std::string out;
  if (encode_png(bytes, job->width, job->height, !opaque, &out))
    gvwrite(job, out.data(), out.size());
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
#else
constexpr const char* kPng = "png";
#endif

// One Graphviz context for the process, never freed. A context's font
// names outlive it in Graphviz's pango plugin, which caches a pointer to the
// last one: a second context measuring text compares against freed memory
// (AddressSanitizer caught it when --each renders several pictures in one
// worker). Rendering is serialised: Graphviz's state is global.
GVC_t* context() {
  static GVC_t* gvc = [] {
    GVC_t* c = gvContext();
#ifdef GRAPHGEN_HAVE_LIBPNG
    if (c) gvAddLibrary(c, &g_library);
#endif
    return c;
  }();
  return gvc;
}
std::mutex g_render;

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
    thread_ = std::thread([this] {
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
  std::thread thread_;
};

}  // namespace

void set_layout_progress(LayoutProgress f, std::chrono::milliseconds after) {
  g_progress = std::move(f);
  g_progress_after = after;
}

Expected<std::string> render(std::string_view dot_source, std::string_view format, std::string_view title,
                             const char* engine) {
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
  // (Only graphs are laid out: a drawing's positions are given.)
  std::optional<ProgressWatch> watch;
  if (std::string_view(engine) == "dot")
    watch.emplace(static_cast<std::size_t>(agnnodes(graph)), static_cast<std::size_t>(agnedges(graph)));
  if (gvLayout(gvc, graph, engine) != 0) return io_error(fmt::format("graphviz: layout failed: {}", g_errors));
  char* data = nullptr;
  unsigned int length = 0;
  std::string fmt_name(format);
  int rc = -1;
  if (fmt_name == "png") {
    // Our PNG device (above); where it cannot render, Graphviz's own.
#ifdef GRAPHGEN_HAVE_LIBPNG
    g_png_failed = false;
#endif
    rc = gvRenderData(gvc, graph, kPng, &data, &length);
#ifdef GRAPHGEN_HAVE_LIBPNG
    if (g_png_failed) rc = -1;
#endif
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
