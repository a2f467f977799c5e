#include "common/json_scan.h"

#include <array>
#include <charconv>
#include <cmath>
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

bool JsonCursor::member_name(std::string_view& key) {
  space();
  if (!eat('"')) return false;
  const std::size_t begin = pos_;
  while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\\' &&
         static_cast<unsigned char>(text_[pos_]) >= 0x20)
    ++pos_;
  key = text_.substr(begin, pos_ - begin);
  if (!eat('"')) return false;
  space();
  if (!eat(':')) return false;
  space();
  return true;
}

bool JsonCursor::number_token(bool& fractional) {
  eat('-');
  const std::size_t int_begin = pos_;
  while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
  const std::size_t int_digits = pos_ - int_begin;
  if (int_digits == 0 || (int_digits > 1 && text_[int_begin] == '0')) return false;
  fractional = false;
  if (eat('.')) {
    const std::size_t f = pos_;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ == f) return false;
    fractional = true;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (!eat('+')) eat('-');
    const std::size_t e = pos_;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ == e) return false;
    fractional = true;
  }
  return pos_ >= text_.size() || is_end_of_scalar(text_[pos_]);
}

bool JsonCursor::json_number(double& out, bool& fractional) {
  const std::size_t begin = pos_;
  if (!number_token(fractional)) return false;
  if (!fractional) {
    const bool negative = text_[begin] == '-';
    if (pos_ - begin - negative > 18) return false;
    std::int64_t i = 0;
    for (std::size_t k = begin + negative; k < pos_; ++k) i = i * 10 + (text_[k] - '0');
    out = static_cast<double>(negative ? -i : i);
    return true;
  }
  auto [end, ec] = std::from_chars(text_.data() + begin, text_.data() + pos_, out);
  return ec == std::errc() && end == text_.data() + pos_ && std::isfinite(out);
}

}  // namespace graphgen::formats
