#include "graphgen/text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>

#include "graphgen/flat_index.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GRAPHGEN_X86 1
#endif

namespace graphgen {

namespace {

// hash_block's state: four independent lanes of 8 bytes (the
// multiplications of one lane do not wait for another's), fed 32 bytes at
// a time, the last under 32 bytes by finish().
struct BlockHash {
  std::uint64_t h[4] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull};
  void chunk(const char* p) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      h[k] = (h[k] ^ w) * 0xFF51AFD7ED558CCDull;
      h[k] ^= h[k] >> 29;
    }
  }
  std::uint64_t finish(std::string_view tail, std::size_t total) const {
    auto rotl = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
    return FlatIndex::mix(h[0] + rotl(h[1], 17), h[2] + rotl(h[3], 31), FlatIndex::hash_bytes(tail, total));
  }
};

// hash_block(s.substr(begin, end - begin)) where the bytes from begin to
// `hashed` went through `h` already.
std::uint64_t finish_block(std::string_view s, std::size_t begin, std::size_t hashed, std::size_t end, BlockHash h) {
  for (; hashed + 32 <= end; hashed += 32) h.chunk(s.data() + hashed);
  return h.finish(s.substr(hashed, end - hashed), end - begin);
}

// The first i >= from with s[i] == s[i + 1] == '\n', one character at a
// time after the vector loops, and on machines without them.
std::size_t blank_line_scalar(std::string_view s, std::size_t from) {
  for (std::size_t i = from; i + 1 < s.size(); ++i)
    if (s[i] == '\n' && s[i + 1] == '\n') return i;
  return std::string_view::npos;
}

#ifdef GRAPHGEN_X86
// 16 bytes at a time (SSE2 is part of x86-64): compare the bytes at i and
// at i + 1 with '\n' and keep the places where both are.
std::size_t blank_line_sse2(std::string_view s, std::size_t from) {
  const char* p = s.data();
  const __m128i nl = _mm_set1_epi8('\n');
  std::size_t i = from;
  for (; i + 17 <= s.size(); i += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 1));
    int mask = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, nl), _mm_cmpeq_epi8(b, nl)));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
  return blank_line_scalar(s, i);
}

// Bit k set where p[k] == p[k + 1] == '\n', for k in 0..31 (reads 33 bytes).
__attribute__((target("avx2"))) inline unsigned newline_pairs_avx2(const char* p) {
  const __m256i nl = _mm256_set1_epi8('\n');
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
  return static_cast<unsigned>(
      _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, nl), _mm256_cmpeq_epi8(b, nl))));
}

__attribute__((target("avx2"))) std::size_t blank_line_avx2(std::string_view s, std::size_t from) {
  std::size_t i = from;
  for (; i + 33 <= s.size(); i += 32)
    if (unsigned mask = newline_pairs_avx2(s.data() + i); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
  return blank_line_sse2(s, i);
}

// find_block(): the window of 32 pairs (j, j + 1) searched, then, when it
// held no blank line, the 32 bytes after j hashed while they are loaded.
__attribute__((target("avx2"))) std::size_t block_avx2(std::string_view s, std::size_t begin, std::uint64_t& hash) {
  const char* p = s.data();
  BlockHash h;
  std::size_t j = begin - 1;
  for (; j + 33 <= s.size(); j += 32) {
    if (unsigned mask = newline_pairs_avx2(p + j); mask != 0) {
      std::size_t blank = j + static_cast<std::size_t>(__builtin_ctz(mask));
      if (blank >= begin) hash = finish_block(s, begin, j + 1, blank + 1, h);
      return blank;
    }
    h.chunk(p + j + 1);
  }
  std::size_t blank = blank_line_sse2(s, j);
  if (blank != std::string_view::npos && blank >= begin) hash = finish_block(s, begin, j + 1, blank + 1, h);
  return blank;
}

using BlankLineFinder = std::size_t (*)(std::string_view, std::size_t);

// Chosen once, by what the processor running graphgen has.
BlankLineFinder blank_line_finder() {
  static const BlankLineFinder finder = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? &blank_line_avx2 : &blank_line_sse2;
  }();
  return finder;
}
#endif

}  // namespace

std::uint64_t hash_block(std::string_view s) { return finish_block(s, 0, 0, s.size(), BlockHash{}); }

std::size_t find_block(std::string_view s, std::size_t begin, std::uint64_t& hash) {
#ifdef GRAPHGEN_X86
  if (blank_line_finder() == &blank_line_avx2) return block_avx2(s, begin, hash);  // (chosen once, as there)
#endif
  std::size_t blank = find_blank_line(s, begin - 1);
  if (blank != std::string_view::npos && blank >= begin) hash = hash_block(s.substr(begin, blank + 1 - begin));
  return blank;
}

std::size_t find_blank_line(std::string_view s, std::size_t from) {
#ifdef GRAPHGEN_X86
  return blank_line_finder()(s, from);
#else
  return blank_line_scalar(s, from);
#endif
}

void append_fixed1(std::string& out, double value, std::size_t width) {
  if (!(std::fabs(value) < 9007199254740992.0)) {  // (2^53; NaN too)
    fmt::format_to(std::back_inserter(out), "{:{}.1f}", value, width);
    return;
  }
  const double a = std::fabs(value), ip = std::floor(a), frac = a - ip;  // (both exact)
  auto whole = static_cast<std::uint64_t>(ip);
  std::uint64_t digit = 0;
  if (frac != 0) {
    // frac = m / 2^shift, m an integer below 2^53: 10 frac = 10 m / 2^shift.
    int e = 0;
    const auto m = static_cast<std::uint64_t>(std::ldexp(std::frexp(frac, &e), 53));
    const int shift = 53 - e;  // (frac < 1: e <= 0)
    if (shift < 64) {
      const std::uint64_t tens = 10 * m, half = std::uint64_t{1} << (shift - 1);
      digit = tens >> shift;
      const std::uint64_t rest = tens & ((half << 1) - 1);
      if (rest > half || (rest == half && (digit & 1))) ++digit;
      if (digit == 10) {
        digit = 0;
        ++whole;
      }
    }  // (else 10 frac < 2^-8: the decimal is 0)
  }
  char buf[32];
  char* end = buf;
  if (std::signbit(value)) *end++ = '-';
  end = std::to_chars(end, buf + sizeof buf, whole).ptr;
  *end++ = '.';
  *end++ = static_cast<char>('0' + digit);
  const auto n = static_cast<std::size_t>(end - buf);
  if (n < width) out.append(width - n, ' ');
  out.append(buf, n);
}

void append_printf_fixed(std::string& out, double value, int precision, std::size_t width) {
  char buf[320];
  std::to_chars_result r{buf, std::errc::value_too_large};  // (printf's unless to_chars writes it)
  if (std::isfinite(value) && precision >= 0)
    r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, precision);
  if (r.ec != std::errc()) {
    out += printf_double(fmt::format("%{}.{}f", width, precision).c_str(), value);
    return;
  }
  const auto n = static_cast<std::size_t>(r.ptr - buf);
  if (n < width) out.append(width - n, ' ');
  out.append(buf, n);
}

void append_printf_general(std::string& out, double value, int precision) {
  char buf[64];                                             // (at most 17 significant digits matter, then the exponent)
  std::to_chars_result r{buf, std::errc::value_too_large};  // (printf's unless to_chars writes it)
  if (std::isfinite(value) && precision >= 1 && precision <= 17)
    r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, precision);
  if (r.ec != std::errc()) {
    out += printf_double(fmt::format("%.{}g", precision).c_str(), value);
    return;
  }
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
}

}  // namespace graphgen
