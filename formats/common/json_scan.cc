#include "common/json_scan.h"

#include <array>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace graphgen::formats {

namespace {

// Bytes that matter outside strings: 1 a quote, 2 an opening bracket, 3 a
// closing one, 4 what ends a scalar at depth 0 (comma, space).
constexpr std::array<std::uint8_t, 256> kOutside = [] {
  std::array<std::uint8_t, 256> t{};
  t['"'] = 1;
  t['['] = t['{'] = 2;
  t[']'] = t['}'] = 3;
  t[','] = t[' '] = t['\t'] = t['\n'] = t['\r'] = 4;
  return t;
}();

// Past a string's text to its closing quote (at `p`), 16 bytes at a time
// where SSE2 is: most of a trace's bytes are in strings.
const char* string_end(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int found = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)));
    if (found == 0) {
      p += 16;
      continue;
    }
    p += __builtin_ctz(static_cast<unsigned>(found));
    if (*p == '"') return p;
    p += 2;  // an escape and the byte it escapes
  }
#endif
  while (p < end && *p != '"') p += *p == '\\' ? 2 : 1;
  return p < end ? p : end;
}

}  // namespace

bool skip_json_value(std::string_view text, std::size_t& pos) {
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin + pos;
  std::size_t depth = 0;
  while (p < end) {
    const std::uint8_t kind = kOutside[static_cast<unsigned char>(*p)];
    if (kind == 0 || (kind == 4 && depth > 0)) {
      ++p;
    } else if (kind == 1) {
      p = string_end(p + 1, end);
      if (p >= end) return false;  // (an unclosed string)
      ++p;
      if (depth == 0) {
        pos = static_cast<std::size_t>(p - begin);
        return true;
      }
    } else if (kind == 2) {
      ++depth;
      ++p;
    } else if (kind == 3) {
      if (depth > 0) {
        ++p;
        --depth;
      }
      if (depth == 0) {
        pos = static_cast<std::size_t>(p - begin);
        return true;
      }
    } else {  // a comma or space at depth 0: the end of a scalar
      pos = static_cast<std::size_t>(p - begin);
      return true;
    }
  }
  pos = text.size();
  return depth == 0;
}

}  // namespace graphgen::formats
