#include "cairo_png.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "graphgen/thread.h"
#include "graphgen/zlib_api.h"

// Why not libpng: it deflates on one thread, and a call graph's picture is
// tens of millions of pixels (the sympy graph: 7831 x 5419, 170 MB of
// scanlines, 0.3 s of zlib at level 1). The container is three kinds of
// chunk; the compression stays zlib's. Parts joined with byte-aligned
// flushes and primed with the previous 32 KiB are how pigz makes one
// deflate stream on many cores.

namespace graphgen::render {

namespace {

constexpr std::size_t kWindow = 32768;                    // deflate's window: a part's dictionary
constexpr std::size_t kIdatBytes = std::size_t{1} << 16;  // bytes of the stream per IDAT chunk

// One row of cairo's pixels as a scanline: filter byte 0 (None), then RGB
// or RGBA with the colours unpremultiplied as cairo's writer rounds them.
// Each pixel is stored as one word ("o" has a spare byte after the row for
// RGB's last one): opaque and transparent pixels, nearly all of a call
// graph, take no division.
void scanline(const std::uint32_t* row, unsigned width, bool alpha, unsigned char* o) {
  *o++ = 0;
  const std::size_t step = alpha ? 4 : 3;
  for (unsigned x = 0; x < width; ++x, o += step) {
    const std::uint32_t p = row[x];
    const std::uint32_t a = p >> 24;
    std::uint32_t r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
    if (a == 0) {
      r = g = b = 0;
    } else if (a != 0xff) {
      r = (r * 255 + a / 2) / a;
      g = (g * 255 + a / 2) / a;
      b = (b * 255 + a / 2) / a;
    }
    const std::uint32_t bytes = r | g << 8 | b << 16 | a << 24;  // R, G, B, A in memory order
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(o, &bytes, 4);
    } else {
      o[0] = static_cast<unsigned char>(r);
      o[1] = static_cast<unsigned char>(g);
      o[2] = static_cast<unsigned char>(b);
      o[3] = static_cast<unsigned char>(a);
    }
  }
}

bool opaque(const std::uint32_t* argb, std::size_t n) {
  for (std::size_t i = 0; i < n;) {  // blocks of words ANDed: the loop vectorises
    const std::size_t end = std::min(n, i + 4096);
    std::uint32_t all = 0xffffffffu;
    for (; i < end; ++i) all &= argb[i];
    if ((all >> 24) != 0xff) return false;
  }
  return true;
}

struct Part {
  unsigned first = 0, rows = 0;
  std::string deflated;
  uLong adler = 1;  // of this part's scanlines alone
  bool ok = false;
};

struct Picture {
  const std::uint32_t* argb;
  unsigned width, height;
  bool alpha;
  std::size_t line;  // bytes of a scanline, filter byte included
};

// Deflates one part's scanlines as raw deflate: primed with the scanlines
// before it (up to 32 KiB), ended by a sync flush (byte-aligned, not final)
// unless it is the last part.
void deflate_part(const ZlibApi& zlib, const Picture& pic, Part& part, bool last) {
  z_stream z{};
  if (deflate_init(zlib, &z, 1, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return;
  struct End {
    const ZlibApi& zlib;
    z_stream* z;
    ~End() { zlib.deflate_end(z); }
  } end{zlib, &z};
  std::vector<unsigned char> line(pic.line + 1);  // + scanline()'s spare byte
  if (part.first > 0) {
    const unsigned before = std::min<unsigned>(part.first, static_cast<unsigned>((kWindow + pic.line - 1) / pic.line));
    std::vector<unsigned char> dict(before * pic.line + 1);
    for (unsigned i = 0; i < before; ++i)
      scanline(pic.argb + std::size_t{part.first - before + i} * pic.width, pic.width, pic.alpha,
               dict.data() + i * pic.line);
    const std::size_t use = std::min(dict.size() - 1, kWindow);
    if (zlib.deflate_set_dictionary(&z, dict.data() + dict.size() - 1 - use, static_cast<uInt>(use)) != Z_OK) return;
  }
  unsigned char staging[1 << 16];
  for (unsigned y = part.first; y < part.first + part.rows; ++y) {
    scanline(pic.argb + std::size_t{y} * pic.width, pic.width, pic.alpha, line.data());
    part.adler = zlib.adler32(part.adler, line.data(), static_cast<uInt>(pic.line));
    const bool final_row = y + 1 == part.first + part.rows;
    const int flush = !final_row ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH;
    z.next_in = line.data();
    z.avail_in = static_cast<uInt>(pic.line);
    for (;;) {
      z.next_out = staging;
      z.avail_out = sizeof staging;
      const int rc = zlib.deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) return;
      part.deflated.append(reinterpret_cast<const char*>(staging), sizeof staging - z.avail_out);
      if (flush == Z_FINISH ? rc == Z_STREAM_END : z.avail_out != 0) break;
    }
  }
  part.ok = true;
}

void put32(std::string& out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
  out.append(b, 4);
}

void chunk(const ZlibApi& zlib, std::string& out, const char* type, const char* data, std::size_t size) {
  put32(out, static_cast<std::uint32_t>(size));
  const std::size_t at = out.size();
  out.append(type, 4);
  out.append(data, size);
  put32(out, static_cast<std::uint32_t>(zlib.crc32(0, reinterpret_cast<const Bytef*>(out.data() + at), size + 4)));
}

}  // namespace

bool encode_cairo_png(const std::uint32_t* argb, unsigned width, unsigned height, std::string* out,
                      std::size_t part_bytes) {
  // PNG allows 2^31 - 1 in each (a scanline must fit zlib's 32-bit
  // lengths here); cairo draws at most 32767.
  if (!argb || width == 0 || height == 0 || width > (1u << 28) || height > 0x7fffffffu) return false;
  std::string missing;
  const ZlibApi* zlib = zlib_api(missing);
  if (!zlib) return false;  // (Graphviz's own PNG writer draws it)
  const bool alpha = !opaque(argb, std::size_t{width} * height);
  const Picture pic{argb, width, height, alpha, 1 + std::size_t{width} * (alpha ? 4 : 3)};
  try {
    const unsigned per_part = static_cast<unsigned>(std::clamp<std::size_t>(part_bytes / pic.line, 1, height));
    std::vector<Part> parts((height + per_part - 1) / per_part);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      parts[i].first = static_cast<unsigned>(i * per_part);
      parts[i].rows = std::min(per_part, height - parts[i].first);
    }
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      try {
        for (std::size_t i; (i = next++) < parts.size();) deflate_part(*zlib, pic, parts[i], i + 1 == parts.size());
      } catch (const std::exception&) {  // out of memory: that part stays not ok
      }
    };
    std::vector<BesideThread> helpers;
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    try {
      for (std::size_t i = 1; i < std::min(cores, parts.size()); ++i) helpers.emplace_back(work);
    } catch (const std::exception&) {  // no thread: this one does the rest
    }
    work();
    for (auto& t : helpers) t.join();

    std::size_t stream = 6;
    for (const Part& p : parts) {
      if (!p.ok) return false;
      stream += p.deflated.size();
    }
    out->reserve(out->size() + 8 + 25 + stream + (stream / kIdatBytes + 1) * 12 + 12);
    out->append("\x89PNG\r\n\x1a\n", 8);
    std::string ihdr;
    put32(ihdr, width);
    put32(ihdr, height);
    ihdr += static_cast<char>(8);              // bits per sample
    ihdr += static_cast<char>(alpha ? 6 : 2);  // RGBA or RGB
    ihdr.append(3, '\0');                      // deflate, adaptive filtering (method 0), no interlace
    chunk(*zlib, *out, "IHDR", ihdr.data(), ihdr.size());
    // The zlib stream: header of a level-1 stream (as zlib writes it), the
    // parts, the Adler-32 of all scanlines; cut into IDAT chunks.
    std::string pending("\x78\x01", 2);
    uLong adler = 1;
    auto emit = [&](const char* data, std::size_t size, bool flush) {
      while (size > 0 || (flush && !pending.empty())) {
        const std::size_t take = std::min(size, kIdatBytes - pending.size());
        pending.append(data, take);
        data += take;
        size -= take;
        if (pending.size() == kIdatBytes || (flush && size == 0)) {
          chunk(*zlib, *out, "IDAT", pending.data(), pending.size());
          pending.clear();
        }
      }
    };
    for (const Part& p : parts) {
      emit(p.deflated.data(), p.deflated.size(), false);
      adler = zlib->adler32_combine(adler, p.adler, static_cast<z_off_t>(std::size_t{p.rows} * pic.line));
    }
    std::string trailer;
    put32(trailer, static_cast<std::uint32_t>(adler));
    emit(trailer.data(), trailer.size(), true);
    chunk(*zlib, *out, "IEND", "", 0);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace graphgen::render
