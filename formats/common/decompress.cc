#include "common/decompress.h"

#include <bzlib.h>
#include <fmt/format.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

#include "graphgen/shared_lib.h"
#include "graphgen/zlib_api.h"

namespace graphgen::formats {

std::string_view compression_of(std::string_view head) {
  auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts("\x1f\x8b")) return "gzip";
  if (starts("BZh") && head.size() > 3 && head[3] >= '1' && head[3] <= '9') return "bzip2";
  if (starts(std::string_view("\xfd"
                              "7zXZ\0",
                              6)))
    return "xz";
  if (starts("\x28\xb5\x2f\xfd")) return "zstd";
  return {};
}

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 20;
// The most one call of a library inflates (progress is heard between calls).
constexpr std::size_t kStep = std::size_t{1} << 20;

// The decompressors, loaded the first time a file needs one (shared_lib.h):
// (member, the library's name) of the functions called.
#define GRAPHGEN_BZ2_FUNCTIONS(X) \
  X(init, BZ2_bzDecompressInit)   \
  X(decompress, BZ2_bzDecompress) \
  X(end, BZ2_bzDecompressEnd)
GRAPHGEN_LIBRARY_API(Bz2Api, GRAPHGEN_BZ2_FUNCTIONS);
#define GRAPHGEN_LZMA_FUNCTIONS(X)       \
  X(stream_decoder, lzma_stream_decoder) \
  X(code, lzma_code)                     \
  X(end, lzma_end)
GRAPHGEN_LIBRARY_API(LzmaApi, GRAPHGEN_LZMA_FUNCTIONS);
#define GRAPHGEN_ZSTD_FUNCTIONS(X)                \
  X(frame_content_size, ZSTD_getFrameContentSize) \
  X(create, ZSTD_createDStream)                   \
  X(free, ZSTD_freeDStream)                       \
  X(decompress, ZSTD_decompressStream)            \
  X(is_error, ZSTD_isError)                       \
  X(error_name, ZSTD_getErrorName)
GRAPHGEN_LIBRARY_API(ZstdApi, GRAPHGEN_ZSTD_FUNCTIONS);

// The inflated bytes of one input as they come: the buffer grows a chunk at
// a time within the limits, and the head is checked once, as soon as it is
// there, so a file that is no profile stops after its first MiB.
class Inflation {
 public:
  Inflation(const InputFile& input, std::string_view kind, const InflateLimits& limits)
      : path_(input.path()), kind_(kind), limits_(limits), passed_(&input) {}

  // The whole size the compressed bytes announce (gzip's ISIZE, zstd's
  // frame content size): once the head is checked, the buffer grows to it
  // in one step instead of by half its size each time (an 11 MB pprof
  // profile was inflated into 16.8 MB, zero-filled, after copies). A hint,
  // never trusted: believed only within deflate's largest ratio of the
  // compressed size (so a made-up one costs no more than a bomb may), and
  // the buffer grows on as before when the input goes past it.
  void expect(std::size_t total, std::size_t compressed) {
    constexpr std::size_t kDeflateMaxRatio = 1032;
    if (compressed <= SIZE_MAX / kDeflateMaxRatio && total <= compressed * kDeflateMaxRatio) expected_ = total;
  }

  // Room for more output, `consumed` compressed bytes having been read
  // (their pages given back, and counted for the read's progress).
  Expected<bool> room(std::size_t consumed) {
    passed_.at(consumed);
    if (!head_checked_ && used >= kHeadBytes)
      if (auto ok = check_head(); !ok) return ok.error();
    if (used < out.size()) return true;
    std::size_t by_ratio = consumed > (SIZE_MAX - kMaxSlack) / kMaxRatio ? SIZE_MAX : kMaxSlack + consumed * kMaxRatio;
    std::size_t cap = limits_.max_bytes ? std::min(by_ratio, limits_.max_bytes) : by_ratio;
    if (used >= cap) return too_big(consumed, cap == limits_.max_bytes);
    const std::size_t size = out.size() + std::max(kChunk, out.size() / 2);
    // (With room past the announced end: for the stream's end to be read,
    // and for the readers that read past the bytes, simdjson's padding.)
    if (expected_ + kInflatedSpare > used && (head_checked_ || !limits_.check_head)) {
      // Exactly that much: resize() would round the capacity up to twice
      // the last.
      std::string exact;
      exact.reserve(std::min(cap, expected_ + kInflatedSpare));
      exact.append(out, 0, used);
      exact.resize(exact.capacity());
      out.swap(exact);
      return true;
    }
    out.resize(std::min(cap, size));
    return true;
  }
  char* next() { return out.data() + used; }
  // At most kStep a call of the library, so that room() hears how far the
  // input is (a buffer sized from gzip's ISIZE was inflated in one call).
  std::size_t avail() const { return std::min(out.size() - used, kStep); }

  // Once the whole input is inflated: checks a head not yet checked.
  Expected<std::string> finish() {
    out.resize(used);
    if (!head_checked_)
      if (auto ok = check_head(); !ok) return ok.error();
    return std::move(out);
  }

  Error fail(std::string_view why) const {
    return bad_input(fmt::format("{}: cannot decompress ({}){}{}", path_, kind_, why.empty() ? "" : ": ", why));
  }
  // The compressed bytes went wrong `offset` bytes in: cut short there, or
  // (`why`, the library's word if it has one) not what the format allows.
  Error cut_at(std::size_t offset) const {
    return bad_input(
        fmt::format("{}:+0x{:x}: expected more {}-compressed data, found the end of the file", path_, offset, kind_));
  }
  Error corrupt_at(std::size_t offset, std::string_view why = {}) const {
    return bad_input(fmt::format("{}:+0x{:x}: expected {}-compressed data, found corrupt data{}{}{}", path_, offset,
                                 kind_, why.empty() ? "" : " (", why, why.empty() ? "" : ")"));
  }

  std::string out;
  std::size_t used = 0;

 private:
  Expected<bool> check_head() {
    head_checked_ = true;
    if (!limits_.check_head) return true;
    std::string_view head = std::string_view(out).substr(0, std::min(used, kHeadBytes));
    if (head.starts_with("\xff\xfe") || head.starts_with("\xfe\xff")) return true;  // UTF-16: converted later
    return limits_.check_head(InputFile::from_bytes(path_, std::string(head)));
  }

  Error too_big(std::size_t consumed, bool budget) const {
    if (budget)
      return bad_input(fmt::format("{}: cannot decompress ({}): it expands to more than --max-memory ({} MiB)", path_,
                                   kind_, limits_.max_bytes >> 20));
    return bad_input(
        fmt::format("{}: cannot decompress ({}): its first {} bytes expand to more than {} MiB, {}x as much (a "
                    "decompression bomb?); decompress it yourself if it is real",
                    path_, kind_, consumed, used >> 20, kMaxRatio));
  }

  const std::string& path_;
  std::string_view kind_;
  const InflateLimits& limits_;
  bool head_checked_ = false;
  std::size_t expected_ = 0;
  PassedPages passed_;
};

Expected<std::string> gunzip(std::string_view in, Inflation& out) {
  std::string missing;
  const ZlibApi* zlib = zlib_api(missing);
  if (!zlib) return out.fail(missing);
  // ISIZE, the last four bytes: the size mod 2^32 of the last member (of
  // the whole file when it is one member under 4 GiB, as gzip writes it).
  if (in.size() >= 18)
    out.expect(static_cast<unsigned char>(in[in.size() - 4]) | static_cast<unsigned char>(in[in.size() - 3]) << 8 |
                   static_cast<unsigned char>(in[in.size() - 2]) << 16 |
                   static_cast<std::size_t>(static_cast<unsigned char>(in[in.size() - 1])) << 24,
               in.size());
  std::size_t pos = 0;
  while (pos < in.size()) {  // each gzip member (concatenated files, as gzip -d reads them)
    z_stream z{};
    if (inflate_init(*zlib, &z, 16 + MAX_WBITS) != Z_OK) return out.fail("");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + pos));
    const std::size_t given = std::min<std::size_t>(in.size() - pos, UINT32_MAX);
    z.avail_in = static_cast<uInt>(given);
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      if (auto ok = out.room(pos + given - z.avail_in); !ok) {
        zlib->inflate_end(&z);
        return ok.error();
      }
      z.next_out = reinterpret_cast<Bytef*>(out.next());
      z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.avail(), UINT32_MAX));
      const uInt before = z.avail_out;
      rc = zlib->inflate(&z, Z_NO_FLUSH);
      out.used += before - z.avail_out;
      if (rc == Z_BUF_ERROR && z.avail_in == 0) rc = Z_DATA_ERROR;
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        const std::size_t at = pos + given - z.avail_in;
        Error e = z.avail_in == 0 && rc == Z_DATA_ERROR && !z.msg ? out.cut_at(at)
                                                                  : out.corrupt_at(at, z.msg ? quote_input(z.msg) : "");
        zlib->inflate_end(&z);
        return e;
      }
    }
    pos += given - z.avail_in;
    zlib->inflate_end(&z);
    if (pos < in.size() && in[pos] != '\x1f') break;  // trailing garbage: gzip -d ignores it with a warning
  }
  return out.finish();
}

Expected<std::string> bunzip2(std::string_view in, Inflation& out) {
  std::string missing;
  const Bz2Api* bz2 =
      load_api<Bz2Api>(GRAPHGEN_BZ2_SONAME, "reads .bz2 inputs", "bzip2's library (Debian: libbz2-1.0)", missing);
  if (!bz2) return out.fail(missing);
  std::size_t pos = 0;
  while (pos < in.size()) {
    bz_stream b{};
    if (bz2->init(&b, 0, 0) != BZ_OK) return out.fail("");
    b.next_in = const_cast<char*>(in.data() + pos);
    const std::size_t given = std::min<std::size_t>(in.size() - pos, UINT32_MAX);
    b.avail_in = static_cast<unsigned>(given);
    int rc = BZ_OK;
    while (rc != BZ_STREAM_END) {
      if (auto ok = out.room(pos + given - b.avail_in); !ok) {
        bz2->end(&b);
        return ok.error();
      }
      b.next_out = out.next();
      b.avail_out = static_cast<unsigned>(std::min<std::size_t>(out.avail(), UINT32_MAX));
      const unsigned before = b.avail_out;
      rc = bz2->decompress(&b);
      out.used += before - b.avail_out;
      if (rc == BZ_OK && b.avail_in == 0 && b.avail_out > 0) rc = BZ_UNEXPECTED_EOF;
      if (rc != BZ_OK && rc != BZ_STREAM_END) {
        bz2->end(&b);
        const std::size_t at = pos + given - b.avail_in;
        return rc == BZ_UNEXPECTED_EOF ? out.cut_at(at) : out.corrupt_at(at);
      }
    }
    pos += given - b.avail_in;
    bz2->end(&b);
    if (pos < in.size() && compression_of(in.substr(pos)) != "bzip2") break;
  }
  return out.finish();
}

Expected<std::string> unxz(std::string_view in, Inflation& out) {
  std::string missing;
  const LzmaApi* xz =
      load_api<LzmaApi>(GRAPHGEN_LZMA_SONAME, "reads .xz inputs", "xz's library (Debian: liblzma5)", missing);
  if (!xz) return out.fail(missing);
  lzma_stream s = LZMA_STREAM_INIT;
  if (xz->stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) return out.fail("");
  s.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  s.avail_in = in.size();
  lzma_ret rc = LZMA_OK;
  while (rc != LZMA_STREAM_END) {
    if (auto ok = out.room(in.size() - s.avail_in); !ok) {
      xz->end(&s);
      return ok.error();
    }
    s.next_out = reinterpret_cast<std::uint8_t*>(out.next());
    s.avail_out = out.avail();
    const std::size_t before = s.avail_out;
    rc = xz->code(&s, s.avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
    out.used += before - s.avail_out;
    if (rc != LZMA_OK && rc != LZMA_STREAM_END) {
      xz->end(&s);
      const std::size_t at = in.size() - s.avail_in;
      return rc == LZMA_BUF_ERROR ? out.cut_at(at) : out.corrupt_at(at);
    }
  }
  xz->end(&s);
  return out.finish();
}

Expected<std::string> unzstd(std::string_view in, Inflation& out) {
  std::string missing;
  const ZstdApi* zstd =
      load_api<ZstdApi>(GRAPHGEN_ZSTD_SONAME, "reads .zst inputs", "zstd's library (Debian: libzstd1)", missing);
  if (!zstd) return out.fail(missing);
  // The first frame's size, when its header has one (zstd's command does).
  if (const unsigned long long first = zstd->frame_content_size(in.data(), in.size());
      first != ZSTD_CONTENTSIZE_UNKNOWN && first != ZSTD_CONTENTSIZE_ERROR && first <= SIZE_MAX)
    out.expect(static_cast<std::size_t>(first), in.size());
  ZSTD_DStream* z = zstd->create();
  if (!z) return out.fail("");
  // The input given 64 KiB at a time: a call that fails does not say how
  // far it read, so the error is placed at the end of what it was given,
  // within 64 KiB after the damage (given whole, at the start of the file).
  constexpr std::size_t kSlice = std::size_t{64} << 10;
  ZSTD_inBuffer src{in.data(), std::min(in.size(), kSlice), 0};
  std::size_t rc = 1;
  while (src.pos < in.size() || rc != 0) {
    if (auto ok = out.room(src.pos); !ok) {
      zstd->free(z);
      return ok.error();
    }
    if (src.pos == src.size) src.size = std::min(in.size(), src.pos + kSlice);
    ZSTD_outBuffer dst{out.next(), out.avail(), 0};
    std::size_t before = src.pos;
    rc = zstd->decompress(z, &dst, &src);
    out.used += dst.pos;
    if (zstd->is_error(rc)) {
      std::string why = zstd->error_name(rc);
      zstd->free(z);
      return out.corrupt_at(src.size, quote_input(why));
    }
    if (src.pos == in.size() && rc != 0 && dst.pos == 0 && src.pos == before) {
      zstd->free(z);
      return out.cut_at(src.pos);
    }
  }
  zstd->free(z);
  return out.finish();
}

}  // namespace

Expected<InputFile> as_utf8(InputFile input) {
  std::string_view b = input.bytes();
  if (b.starts_with("\xef\xbb\xbf")) return InputFile::from_bytes(input.path(), std::string(b.substr(3)));
  bool le = b.starts_with("\xff\xfe"), be = b.starts_with("\xfe\xff");
  if (!le && !be) return input;
  std::string out;
  out.reserve(b.size() / 2 + 16);
  std::size_t i = 2;
  auto unit = [&](std::size_t at) -> unsigned {
    auto lo = static_cast<unsigned char>(b[at + (le ? 0 : 1)]), hi = static_cast<unsigned char>(b[at + (le ? 1 : 0)]);
    return lo | hi << 8;
  };
  auto put = [&](unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | cp >> 6);
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | cp >> 12);
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | cp >> 18);
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  for (; i + 1 < b.size(); i += 2) {
    unsigned u = unit(i);
    if (u >= 0xD800 && u < 0xDC00 && i + 3 < b.size()) {
      unsigned v = unit(i + 2);
      if (v >= 0xDC00 && v < 0xE000) {
        put(0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
        i += 2;
        continue;
      }
    }
    if (u >= 0xD800 && u < 0xE000)
      return bad_input(
          fmt::format("{}:+0x{:x}: expected UTF-16 text (it starts with a byte-order mark), found a "
                      "lone surrogate 0x{:04x}",
                      input.path(), i, u));
    put(u);
  }
  if (i < b.size())
    return bad_input(
        fmt::format("{}:+0x{:x}: expected UTF-16 text (it starts with a byte-order mark), found an odd "
                    "number of bytes",
                    input.path(), i));
  return InputFile::from_bytes(input.path(), std::move(out));
}

Expected<InputFile> prepared(InputFile input, const InflateLimits& limits) {
  auto plain = decompressed(std::move(input), limits);
  if (!plain) return plain.error();
  return as_utf8(std::move(plain).value());
}

Expected<InputFile> decompressed(InputFile input, const InflateLimits& limits) {
  std::string_view kind = compression_of(input.bytes().substr(0, 8));
  if (kind.empty()) return input;
  Inflation out(input, kind, limits);
  Expected<std::string> bytes = kind == "gzip"    ? gunzip(input.bytes(), out)
                                : kind == "bzip2" ? bunzip2(input.bytes(), out)
                                : kind == "xz"    ? unxz(input.bytes(), out)
                                                  : unzstd(input.bytes(), out);
  if (!bytes) return bytes.error();
  return InputFile::from_bytes(input.path(), std::move(bytes).value());
}

}  // namespace graphgen::formats
