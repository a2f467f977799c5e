// graphgen's PNG device (formats/render) against cairo's own PNG writer:
// the same picture, pixel for pixel, in the same colour type.
#include "render/render.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "common/drawing.h"
#include "render/cairo_png.h"
#include "util/test_util.h"

namespace graphgen::render_test {
namespace {

struct Decoded {
  unsigned width = 0, height = 0;
  png_uint_32 format = 0;  // as the file stores it
  std::vector<unsigned char> rgba;
};

Decoded decode(const std::string& png) {
  Decoded d;
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    ADD_FAILURE() << "not a PNG: " << image.message;
    return d;
  }
  d.width = image.width;
  d.height = image.height;
  d.format = image.format;
  image.format = PNG_FORMAT_RGBA;
  d.rgba.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, d.rgba.data(), 0, nullptr)) ADD_FAILURE() << image.message;
  return d;
}

// What cairo's own writer makes of the same graph (Graphviz's png:cairo
// device of the cairo package), from a context of the test's own.
std::string cairo_png(const std::string& dot) {
  static GVC_t* gvc = gvContext();
  Agraph_t* g = agmemread(dot.c_str());
  EXPECT_NE(g, nullptr);
  if (!g) return {};
  EXPECT_EQ(gvLayout(gvc, g, "dot"), 0);
  char* data = nullptr;
  unsigned length = 0;
  EXPECT_EQ(gvRenderData(gvc, g, "png:cairo:cairo", &data, &length), 0);
  std::string out(data ? data : "", data ? length : 0);
  gvFreeRenderData(data);
  gvFreeLayout(gvc, g);
  agclose(g);
  return out;
}

// `format`: the colour type the file must have, or 0 for cairo's choice.
void expect_same_picture(const std::string& dot, png_uint_32 format = 0) {
  auto mine = render::render(dot, "png");
  ASSERT_TRUE(mine) << mine.error().message;
  Decoded a = decode(*mine), b = decode(cairo_png(dot));
  if (format != 0) {
    EXPECT_EQ(a.format, format);
  }
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  ASSERT_FALSE(a.rgba.empty());
  EXPECT_TRUE(a.rgba == b.rgba) << "the pixels differ";
}

TEST(Render, PngHasCairosPixels) {
  auto dot = test::graphgen({(test::testdata_dir() / "demo.pstats").string()});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  expect_same_picture(dot.out);
}

TEST(Render, OpaquePngIsRgbAsCairoWritesIt) {
  expect_same_picture(
      "digraph { bgcolor=\"#ffffff\"; pad=0.5; node [style=filled, fillcolor=red, fontname=Arial];"
      " a -> b -> c }",
      PNG_FORMAT_RGB);
}

TEST(Render, PngUnpremultipliesTranslucentPixelsAsCairoDoes) {
  // A transparent background and half-transparent fills: every alpha from
  // 0 to 255 occurs along the antialiased edges.
  expect_same_picture(
      "digraph { bgcolor=transparent; node [style=filled];"
      " a [fillcolor=\"#ff000080\"]; b [fillcolor=\"#10e0a033\"]; c [fillcolor=\"#2030f0f0\"];"
      " a -> b [color=\"#00000040\", penwidth=3]; b -> c; a -> c [label=\"70%\"] }",
      PNG_FORMAT_RGBA);
}

// Names are bytes: a NUL ended Graphviz's reading of the dot text (SVG,
// PNG, PDF and the HTML report failed with exit 1) and bytes that are not
// UTF-8 reached the SVG raw (not XML; Chromium drew it cut short).
// A picture of more than one part (formats/render/cairo_png.h: 8 MiB of
// scanlines each, compressed on every core): cairo's pixels still, in one
// zlib stream whose Adler-32 zlib accepts.
TEST(Render, PngOfManyPartsHasCairosPixels) {
  const std::string dot =
      "digraph { dpi=600; bgcolor=transparent; node [style=filled, fontname=Arial];"
      " a [fillcolor=\"#ff000080\"]; b [fillcolor=\"#10e0a033\"]; c [fillcolor=\"#2030f0f0\"];"
      " a -> b -> c -> d -> e; a -> c [label=\"70%\", color=\"#00000040\", penwidth=3]; b -> e;"
      " x -> y -> z -> e; a -> x }";
  auto mine = render::render(dot, "png");
  ASSERT_TRUE(mine) << mine.error().message;
  const Decoded picture = decode(*mine);
  EXPECT_GT(std::size_t{picture.width} * 4 * picture.height, 2 * render::kPngPartBytes);
  expect_same_picture(dot, PNG_FORMAT_RGBA);
}

// The chunks of a PNG graphgen wrote, checked as a decoder checks them
// (length, CRC), and its IDATs' zlib stream inflated with its Adler-32.
std::string inflated_idat(const std::string& png) {
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::string stream, types;
  std::size_t size = 0;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    auto u32 = [&](std::size_t i) {
      return std::uint32_t{static_cast<unsigned char>(png[i])} << 24 |
             std::uint32_t{static_cast<unsigned char>(png[i + 1])} << 16 |
             std::uint32_t{static_cast<unsigned char>(png[i + 2])} << 8 | static_cast<unsigned char>(png[i + 3]);
    };
    const std::uint32_t n = u32(at);
    EXPECT_LE(at + 12 + n, png.size());
    if (at + 12 + n > png.size()) return {};
    const std::string type = png.substr(at + 4, 4);
    EXPECT_EQ(u32(at + 8 + n), crc32(0, reinterpret_cast<const Bytef*>(png.data() + at + 4), n + 4)) << type;
    if (type == "IHDR") size = std::size_t{u32(at + 8)} * u32(at + 12) * (png[at + 17] == 6 ? 4 : 3) + u32(at + 12);
    if (type == "IDAT") stream.append(png, at + 8, n);
    if (types.empty() || types.substr(types.size() - 4) != type) types += type;
    at += 12 + n;
  }
  EXPECT_EQ(types, "IHDRIDATIEND");
  std::string raw(size, '\0');
  uLongf got = raw.size();
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &got, reinterpret_cast<const Bytef*>(stream.data()),
                       stream.size()),
            Z_OK);  // Z_DATA_ERROR for a wrong Adler-32
  EXPECT_EQ(got, size);
  return raw;
}

// Every way of cutting the rows into parts (one row each, a few, all in
// one) gives the same scanlines in a valid stream, every alpha and colour
// unpremultiplied the same; the file depends on the picture and the part
// size only.
TEST(Render, PngPartsJoinIntoOneStream) {
  for (bool translucent : {true, false}) {
    SCOPED_TRACE(translucent ? "RGBA" : "RGB");
    const unsigned width = 301, height = 157;
    std::vector<std::uint32_t> argb(std::size_t{width} * height);
    std::uint32_t seed = 12345;
    for (std::size_t i = 0; i < argb.size(); ++i) {
      seed = seed * 1664525u + 1013904223u;
      // Runs of one colour (as pictures have) between noisy pixels.
      const std::uint32_t a = translucent ? (i / 7) % 256 : 255;
      const std::uint32_t level = (i % 13 < 9) ? (i / 500) % 256 : seed >> 24;
      const std::uint32_t c = a == 0 ? 0 : level * a / 255;  // premultiplied: at most alpha
      argb[i] = a << 24 | c << 16 | ((c * 3) % (a + 1)) << 8 | ((seed >> 8) & 0xff) % (a + 1);
    }
    std::string whole;
    ASSERT_TRUE(render::encode_cairo_png(argb.data(), width, height, &whole, std::size_t{1} << 30));
    const std::string expected = inflated_idat(whole);
    const Decoded reference = decode(whole);
    EXPECT_EQ(reference.format, translucent ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB);
    for (std::size_t part : {std::size_t{1}, std::size_t{3 * 1205}, std::size_t{40000}}) {
      SCOPED_TRACE(part);
      std::string cut, again;
      ASSERT_TRUE(render::encode_cairo_png(argb.data(), width, height, &cut, part));
      ASSERT_TRUE(render::encode_cairo_png(argb.data(), width, height, &again, part));
      EXPECT_TRUE(cut == again) << "the same parts gave another file";
      EXPECT_NE(cut, whole);  // really cut: the sync flushes are in the stream
      EXPECT_TRUE(inflated_idat(cut) == expected) << "the scanlines differ";
      const Decoded d = decode(cut);
      EXPECT_EQ(d.format, reference.format);
      EXPECT_TRUE(d.rgba == reference.rgba) << "the pixels differ";
    }
    // Pixels spot-checked against cairo's rounding, from the stored words.
    for (std::size_t i : {std::size_t{0}, std::size_t{7 * 128 + 3}, std::size_t{7 * 255}, argb.size() - 1}) {
      const std::uint32_t p = argb[i], a = p >> 24;
      auto un = [&](std::uint32_t c) { return a == 0 ? 0 : a == 255 ? c : (c * 255 + a / 2) / a; };
      EXPECT_EQ(reference.rgba[4 * i], un((p >> 16) & 0xff)) << i;
      EXPECT_EQ(reference.rgba[4 * i + 1], un((p >> 8) & 0xff)) << i;
      EXPECT_EQ(reference.rgba[4 * i + 2], un(p & 0xff)) << i;
      EXPECT_EQ(reference.rgba[4 * i + 3], a) << i;
    }
  }
  std::string none;
  const std::uint32_t pixel = 0xff000000u;
  EXPECT_FALSE(render::encode_cairo_png(&pixel, 0, 1, &none));
  EXPECT_FALSE(render::encode_cairo_png(&pixel, 1, 0, &none));
  EXPECT_TRUE(none.empty());
}

TEST(Render, NamesWithAnyByteRender) {
  std::filesystem::path dir = test::temp_dir();
  const char bytes[] = "main;bad\xff\xfename;x\x00y\x01z 10\nmain;<a href=\"x\">]]>;\"q\" 5\nmain;=cmd|calc 3\n";
  std::string names(bytes, sizeof bytes - 1);
  {
    std::ofstream out(dir / "h.folded", std::ios::binary);
    out << names;
  }
  for (const char* format : {"dot", "svg", "png", "pdf", "html"}) {
    SCOPED_TRACE(format);
    auto r = test::graphgen({(dir / "h.folded").string(), "-T", format});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (std::string(format) == "png" || std::string(format) == "pdf") continue;
    EXPECT_EQ(r.out.find('\0'), std::string::npos);
    EXPECT_EQ(r.out.find('\x01'), std::string::npos);
    EXPECT_EQ(r.out.find('\xff'), std::string::npos);
    EXPECT_NE(r.out.find("bad\xEF\xBF\xBD\xEF\xBF\xBDname"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

// The SVG's <title> is the inputs' names, and a file name is any bytes: one
// that was not UTF-8 made every SVG, and the HTML report's call graph, a
// document XML parsers refuse (and DEL reached HTML5 raw).
TEST(Render, InputNamesOfAnyByteGiveATitleOfText) {
  std::filesystem::path dir = test::temp_dir();
  const std::string name = "bad\xff\x01name\x7f\n.folded";
  std::ofstream(dir / name) << "main;f 3\nmain 1\n";
  for (const char* format : {"svg", "html"}) {
    SCOPED_TRACE(format);
    auto r = test::graphgen({name, "-T", format}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find('\xff'), std::string::npos);
    EXPECT_EQ(r.out.find('\x01'), std::string::npos);
    EXPECT_EQ(r.out.find('\x7f'), std::string::npos);
    EXPECT_NE(r.out.find("<title>bad\xEF\xBF\xBD\xEF\xBF\xBDname\xEF\xBF\xBD .folded</title>"), std::string::npos)
        << r.out.substr(0, 600);
  }
  std::filesystem::remove_all(dir);
}

// The memory plot's PNG is its SVG drawn by Graphviz (formats/common/
// drawing.h): the peak's red dashed lines lie where the SVG puts them, at
// 96 dpi, in a picture of the SVG's size (Graphviz cropped it to the
// extent of the lines' points, cutting the tick labels, until two corner
// nodes fixed the size).
TEST(Render, MemoryPlotPngDrawsWhereItsSvgDraws) {
  const std::filesystem::path dir = test::temp_dir(), dat = test::testdata_dir() / "mprof" / "children.dat";
  auto svg_run = test::graphgen({dat.string(), "-o", (dir / "c.mem.svg").string()});
  ASSERT_EQ(svg_run.exit_code, 0) << svg_run.err;
  auto png_run = test::graphgen({dat.string(), "-o", (dir / "c.mem.png").string()});  // the name picks PNG
  ASSERT_EQ(png_run.exit_code, 0) << png_run.err;
  const std::string svg = test::read_file(dir / "c.mem.svg");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("<svg [^>]* width=\"([0-9.]+)\" height=\"([0-9.]+)\"")));
  const double width = std::stod(m[1]), height = std::stod(m[2]);
  // The peak: a red dashed line across (y) and one down (x).
  const std::regex across("stroke=\"#ff0000\"[^>]*points=\"80.0,([0-9.]+) 930.0,[0-9.]+\"");
  const std::regex down("stroke=\"#ff0000\"[^>]*points=\"([0-9.]+),60.0 [0-9.]+,[0-9.]+\"");
  ASSERT_TRUE(std::regex_search(svg, m, across)) << svg;
  const double peak_y = std::stod(m[1]);
  ASSERT_TRUE(std::regex_search(svg, m, down)) << svg;
  const double peak_x = std::stod(m[1]);
  EXPECT_NE(svg.find(">peak 72.008 MiB</text>"), std::string::npos);

  Decoded png = decode(test::read_file(dir / "c.mem.png"));
  const double scale = 96.0 / 72.0;
  EXPECT_NEAR(png.width, width * scale, 1.0);
  EXPECT_NEAR(png.height, height * scale, 1.0);
  ASSERT_EQ(png.rgba.size(), std::size_t{png.width} * png.height * 4);
  auto red = [&](unsigned x, unsigned y) {
    const unsigned char* px = &png.rgba[(std::size_t{y} * png.width + x) * 4];
    return px[0] > 200 && px[1] < 90 && px[2] < 90;
  };
  std::vector<unsigned> rows(png.height), columns(png.width);
  for (unsigned y = 0; y < png.height; ++y)
    for (unsigned x = 0; x < png.width; ++x)
      if (red(x, y)) ++rows[y], ++columns[x];
  const auto most_row = std::max_element(rows.begin(), rows.end()) - rows.begin();
  const auto most_column = std::max_element(columns.begin(), columns.end()) - columns.begin();
  EXPECT_NEAR(static_cast<double>(most_row), peak_y * scale, 1.5);
  EXPECT_NEAR(static_cast<double>(most_column), peak_x * scale, 1.5);
  // Dashed across most of the plot's width: dashes, not a stray pixel.
  EXPECT_GT(rows[static_cast<std::size_t>(most_row)], png.width / 3);
  std::filesystem::remove_all(dir);
}

// A drawing's text is any bytes: quotes and backslashes inside the dot
// string Graphviz reads, NUL and controls, bytes that are not UTF-8.
TEST(Render, DrawingTextOfAnyByteRenders) {
  formats::Drawing d(200, 100);
  const char bytes[] = "a\"b\\\"c\\\x00\x01\xff\n<&>\\";
  const std::string hostile(bytes, sizeof bytes - 1);
  d.text(10, 20, hostile);
  d.text(190, 50, "\\", formats::Drawing::Anchor::kEnd);
  d.line({{0, 0}, {200, 100}}, {"#123456", 2, true}, hostile);
  const std::string dot = d.dot_graph();
  EXPECT_EQ(dot.find('\0'), std::string::npos);
  auto png = render::render(dot, "png", "", "nop2");
  ASSERT_TRUE(png) << png.error().message << "\n" << dot;
  Decoded picture = decode(*png);
  EXPECT_NEAR(picture.width, 200 * 96.0 / 72.0, 1.0);
  const std::string svg = d.svg(hostile);
  for (char c : {'\0', '\x01', '\xff'}) EXPECT_EQ(svg.find(c), std::string::npos);
  EXPECT_NE(svg.find("a&quot;b\\&quot;c\\\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD &lt;&amp;&gt;\\</text>"),
            std::string::npos)
      << svg;
}

// Under an address-space limit (`ulimit -v`, a batch system's h_vmem),
// Graphviz's text layout crashed: each of pango's font threads got a malloc
// arena reserving 64 MiB, and fontconfig and cairo do not check their
// allocations (a 1 KB profile's -T svg under 200000 KiB: SIGSEGV in a third
// of runs; -T png under 150000: GLib's abort; under 68000, with one arena:
// SIGSEGV in every run). Now a picture is drawn, or refused in one line
// saying so, never a signal.
TEST(Render, UnderAnAddressSpaceLimitDrawsOrRefusesInOneLine) {
#ifdef GRAPHGEN_SANITIZE
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no address-space limit can be set";
#endif
  const std::string profile = (test::testdata_dir() / "austin" / "threads.pstats").string();
  const std::string out = (test::temp_dir() / "limited").string();
  std::size_t drawn = 0, refused = 0;
  for (int kib : {60000, 68000, 76000, 100000, 150000, 150000, 200000, 200000, 200000})
    for (const std::string format : {"svg", "png", "html"}) {
      SCOPED_TRACE("ulimit -v " + std::to_string(kib) + ", -T " + format);
      auto r = test::run({"sh", "-c", "ulimit -v " + std::to_string(kib) + " && exec \"$0\" \"$@\"", GRAPHGEN_BINARY,
                          profile, "-T", format, "-o", out + "." + format});
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "exit " << r.exit_code << ": " << r.err;
      if (r.exit_code == 0) {
        ++drawn;
        const std::string picture = test::read_file(out + "." + format);
        EXPECT_EQ(picture.substr(0, format == "png" ? 4 : 0), format == "png" ? "\x89PNG" : "");
        EXPECT_NE(picture.find(format == "png" ? "IEND" : "</svg>"), std::string::npos);
      } else {
        ++refused;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find("not enough address space left"), std::string::npos) << r.err;
      }
    }
  EXPECT_GT(drawn, 0u);
  EXPECT_GT(refused, 0u);
}

}  // namespace
}  // namespace graphgen::render_test
