#include "common/decompress.h"

#include <bzlib.h>
#include <fmt/format.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

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

// Grows `out` by one chunk; false past the cap.
bool grow(std::string& out, std::size_t& used, std::size_t cap) {
  if (used >= cap) return false;
  out.resize(std::min(cap, out.size() + kChunk));
  return true;
}

Error too_big(const std::string& path, std::string_view kind, std::size_t cap) {
  return bad_input(
      fmt::format("{}: cannot decompress ({}): it expands to more than {} MiB, {}x its size (a "
                  "decompression bomb?); decompress it yourself if it is real",
                  path, kind, cap >> 20, kMaxRatio));
}

Expected<std::string> gunzip(std::string_view in, const std::string& path, std::size_t cap) {
  std::string out;
  std::size_t used = 0;
  std::size_t pos = 0;
  while (pos < in.size()) {  // each gzip member (concatenated files, as gzip -d reads them)
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return bad_input(fmt::format("{}: cannot decompress (gzip)", path));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + pos));
    z.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size() - pos, UINT32_MAX));
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      if (used == out.size() && !grow(out, used, cap)) {
        inflateEnd(&z);
        return too_big(path, "gzip", cap);
      }
      z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
      z.avail_out = static_cast<uInt>(out.size() - used);
      rc = inflate(&z, Z_NO_FLUSH);
      used = out.size() - z.avail_out;
      if (rc == Z_BUF_ERROR && z.avail_in == 0) rc = Z_DATA_ERROR;
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        std::string why = z.avail_in == 0 && rc == Z_DATA_ERROR && !z.msg ? "unexpected end of file"
                          : z.msg                                         ? quote_input(z.msg)
                                                                          : "corrupt data";
        inflateEnd(&z);
        return bad_input(fmt::format("{}: cannot decompress (gzip): {}", path, why));
      }
    }
    pos = in.size() - z.avail_in;
    inflateEnd(&z);
    if (pos < in.size() && in[pos] != '\x1f') break;  // trailing garbage: gzip -d ignores it with a warning
  }
  out.resize(used);
  return out;
}

Expected<std::string> bunzip2(std::string_view in, const std::string& path, std::size_t cap) {
  std::string out;
  std::size_t used = 0;
  std::size_t pos = 0;
  while (pos < in.size()) {
    bz_stream b{};
    if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) return bad_input(fmt::format("{}: cannot decompress (bzip2)", path));
    b.next_in = const_cast<char*>(in.data() + pos);
    b.avail_in = static_cast<unsigned>(std::min<std::size_t>(in.size() - pos, UINT32_MAX));
    int rc = BZ_OK;
    while (rc != BZ_STREAM_END) {
      if (used == out.size() && !grow(out, used, cap)) {
        BZ2_bzDecompressEnd(&b);
        return too_big(path, "bzip2", cap);
      }
      b.next_out = out.data() + used;
      b.avail_out = static_cast<unsigned>(out.size() - used);
      rc = BZ2_bzDecompress(&b);
      used = out.size() - b.avail_out;
      if (rc == BZ_OK && b.avail_in == 0 && b.avail_out > 0) rc = BZ_UNEXPECTED_EOF;
      if (rc != BZ_OK && rc != BZ_STREAM_END) {
        BZ2_bzDecompressEnd(&b);
        return bad_input(fmt::format("{}: cannot decompress (bzip2): {}", path,
                                     rc == BZ_UNEXPECTED_EOF ? "unexpected end of file" : "corrupt data"));
      }
    }
    pos = in.size() - b.avail_in;
    BZ2_bzDecompressEnd(&b);
    if (pos < in.size() && compression_of(in.substr(pos)) != "bzip2") break;
  }
  out.resize(used);
  return out;
}

Expected<std::string> unxz(std::string_view in, const std::string& path, std::size_t cap) {
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    return bad_input(fmt::format("{}: cannot decompress (xz)", path));
  std::string out;
  std::size_t used = 0;
  s.next_in = reinterpret_cast<const std::uint8_t*>(in.data());
  s.avail_in = in.size();
  lzma_ret rc = LZMA_OK;
  while (rc != LZMA_STREAM_END) {
    if (used == out.size() && !grow(out, used, cap)) {
      lzma_end(&s);
      return too_big(path, "xz", cap);
    }
    s.next_out = reinterpret_cast<std::uint8_t*>(out.data() + used);
    s.avail_out = out.size() - used;
    rc = lzma_code(&s, s.avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
    used = out.size() - s.avail_out;
    if (rc != LZMA_OK && rc != LZMA_STREAM_END) {
      lzma_end(&s);
      return bad_input(fmt::format("{}: cannot decompress (xz): {}", path,
                                   rc == LZMA_BUF_ERROR ? "unexpected end of file" : "corrupt data"));
    }
  }
  lzma_end(&s);
  out.resize(used);
  return out;
}

Expected<std::string> unzstd(std::string_view in, const std::string& path, std::size_t cap) {
  ZSTD_DStream* z = ZSTD_createDStream();
  if (!z) return bad_input(fmt::format("{}: cannot decompress (zstd)", path));
  std::string out;
  std::size_t used = 0;
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  std::size_t rc = 1;
  while (src.pos < src.size || rc != 0) {
    if (used == out.size() && !grow(out, used, cap)) {
      ZSTD_freeDStream(z);
      return too_big(path, "zstd", cap);
    }
    ZSTD_outBuffer dst{out.data() + used, out.size() - used, 0};
    std::size_t before = src.pos;
    rc = ZSTD_decompressStream(z, &dst, &src);
    used += dst.pos;
    if (ZSTD_isError(rc)) {
      std::string why = ZSTD_getErrorName(rc);
      ZSTD_freeDStream(z);
      return bad_input(fmt::format("{}: cannot decompress (zstd): {}", path, quote_input(why)));
    }
    if (src.pos == src.size && rc != 0 && dst.pos == 0 && src.pos == before) {
      ZSTD_freeDStream(z);
      return bad_input(fmt::format("{}: cannot decompress (zstd): unexpected end of file", path));
    }
  }
  ZSTD_freeDStream(z);
  out.resize(used);
  return out;
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

Expected<InputFile> prepared(InputFile input) {
  auto plain = decompressed(std::move(input));
  if (!plain) return plain.error();
  return as_utf8(std::move(plain).value());
}

Expected<InputFile> decompressed(InputFile input) {
  std::string_view kind = compression_of(input.bytes().substr(0, 8));
  if (kind.empty()) return input;
  const std::string path = input.path();
  std::size_t cap =
      kMaxSlack + (input.bytes().size() > (SIZE_MAX - kMaxSlack) / kMaxRatio ? SIZE_MAX - kMaxSlack
                                                                             : input.bytes().size() * kMaxRatio);
  Expected<std::string> bytes = kind == "gzip"    ? gunzip(input.bytes(), path, cap)
                                : kind == "bzip2" ? bunzip2(input.bytes(), path, cap)
                                : kind == "xz"    ? unxz(input.bytes(), path, cap)
                                                  : unzstd(input.bytes(), path, cap);
  if (!bytes) return bytes.error();
  return InputFile::from_bytes(path, std::move(bytes).value());
}

}  // namespace graphgen::formats
