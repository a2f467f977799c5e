// Line-oriented reading of text profiles: one pass with memchr over a whole
// input, line numbers for error messages, and the number parsing the text
// readers share. Pages already read are handed back to the kernel so a
// large mmapped input does not stay resident.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "graphgen/error.h"
#include "graphgen/io.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace graphgen {

/// The first '\n' of the `n` bytes at `p`, or null: memchr, but a line of
/// up to 64 bytes (most of a profile's) found without a call (SSE2 is
/// part of x86-64), 16 bytes at a time.
inline const char* find_newline(const char* p, std::size_t n) {
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  std::size_t at = 0;
  for (; at < 64 && n - at >= 16; at += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at));
    const int found = _mm_movemask_epi8(_mm_cmpeq_epi8(bytes, newline));
    if (found != 0) return p + at + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(found)));
  }
  return static_cast<const char*>(std::memchr(p + at, '\n', n - at));  // (the rest, from where the loads ended)
#else
  return static_cast<const char*>(std::memchr(p, '\n', n));
#endif
}

/// Whether the `n` bytes at `a` and at `b` are the same: memcmp's answer,
/// but from 4 to 32 bytes (the columns of a perf header, an event's name,
/// a command) compared without a call, in two loads that may overlap.
inline bool same_bytes(const char* a, const char* b, std::size_t n) {
  auto load8 = [](const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
#if defined(__SSE2__)
  if (n >= 16 && n <= 32) {
    auto at = [](const char* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
    const __m128i head = _mm_cmpeq_epi8(at(a), at(b)), tail = _mm_cmpeq_epi8(at(a + n - 16), at(b + n - 16));
    return _mm_movemask_epi8(_mm_and_si128(head, tail)) == 0xFFFF;
  }
#endif
  if (n >= 8 && n <= 16) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
  if (n >= 4 && n < 8) {
    auto load4 = [](const char* p) {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    };
    return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
  }
  return n == 0 || std::memcmp(a, b, n) == 0;  // (an empty string_view's data may be null: not memcmp's)
}

class LineScanner {
 public:
  /// `input` may be null (then nothing is released). `data` may be a part
  /// of the input starting at byte `base`.
  LineScanner(std::string_view data, const InputFile* input = nullptr, std::size_t base = 0)
      : data_(data), passed_(input, base) {}

  /// The next line without its '\n' (and a trailing '\r'); false at the end.
  bool next(std::string_view& line) {
    if (pos_ >= data_.size()) return false;
    const char* begin = data_.data() + pos_;
    const char* nl = find_newline(begin, data_.size() - pos_);
    std::size_t len = nl ? static_cast<std::size_t>(nl - begin) : data_.size() - pos_;
    line_start_ = pos_;
    pos_ += len + (nl ? 1 : 0);
    if (len > 0 && begin[len - 1] == '\r') --len;
    line = {begin, len};
    ++line_no_;
    passed_.at(pos_);
    return true;
  }

  /// Looks at the next line without consuming it.
  bool peek(std::string_view& line) const {
    LineScanner copy = *this;
    copy.passed_ = {};
    return copy.next(line);
  }

  std::size_t line_number() const { return line_no_; }
  /// Where the next line starts.
  std::size_t position() const { return pos_; }
  /// Moves on to `pos` (the start of a line, at or after position()),
  /// passing `lines` lines the caller has accounted for.
  void skip_to(std::size_t pos, std::size_t lines) {
    pos_ = pos;
    line_no_ += lines;
  }
  std::size_t line_offset() const { return line_start_; }
  /// The bytes from position() on.
  std::string_view rest() const { return data_.substr(pos_); }
  bool at_end() const { return pos_ >= data_.size(); }

 private:
  std::string_view data_;
  PassedPages passed_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  std::size_t line_no_ = 0;
};

/// The first i >= from where s[i] and s[i + 1] are both '\n' (a line
/// ending followed by an empty line), or npos: a vector at a time
/// (SSE2, or AVX2 when the processor has it).
std::size_t find_blank_line(std::string_view s, std::size_t from);

/// A well-mixed hash of a block of bytes (kilobytes of stack frames), four
/// words at a time.
std::uint64_t hash_block(std::string_view s);

/// Both at once, for a block of lines starting at `begin` (>= 1, after a
/// line's '\n'): find_blank_line(s, begin - 1), and when that is at or
/// after `begin`, `hash` = hash_block() of the bytes from `begin` up to
/// and with the '\n' ending its last line. One pass where there were two.
std::size_t find_block(std::string_view s, std::size_t begin, std::uint64_t& hash);

/// `path:line:col: message`, col counted from 1 in bytes.
inline std::string at_line(std::string_view path, std::size_t line, std::size_t col, std::string_view message) {
  std::string s(path);
  s += ':';
  s += std::to_string(line);
  s += ':';
  s += std::to_string(col);
  s += ": ";
  s += message;
  return s;
}

/// `path:line:col: message` at byte `offset` of `text` (at most its size),
/// counting its lines: for an error found after the reading, which kept
/// no positions.
inline std::string at_offset(std::string_view path, std::string_view text, std::size_t offset,
                             std::string_view message) {
  const std::string_view before = text.substr(0, offset);
  const auto line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const std::size_t nl = before.rfind('\n');
  return at_line(path, line, before.size() - (nl == std::string_view::npos ? 0 : nl + 1) + 1, message);
}

/// at_offset() at the end of `text` (the line and column after its last
/// byte): where something a text file lacks was still expected ("found
/// none").
inline std::string at_end(std::string_view path, std::string_view text, std::string_view message) {
  return at_offset(path, text, text.size(), message);
}

/// The warning for a text file's last line `text` (line `line`), left out
/// because no newline follows it: the writer killed, a full disk, head -c.
inline std::string cut_last_line(std::string_view path, std::size_t line, std::string_view text) {
  return at_line(
      path, line, text.size() + 1,
      "the last line is cut short (no newline at the end of the file) and was left out: " + quote_input(text));
}

/// Parses an unsigned decimal integer that fills `s`; false on anything
/// else or overflow.
inline bool parse_u64(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    // (The processor's carry says whether it overflowed: no division a digit.)
    if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, static_cast<std::uint64_t>(c - '0'), &v))
      return false;
  }
  out = v;
  return true;
}

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_blank(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// The text after the last '/' of a path.
inline std::string_view basename_of(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// printf's formatting of one double (`%8.3f`, `%.2f`: the exact binary
/// value rounded half to even, as Python's %-formatting), never trusting a
/// would-be length past the buffer: 1e300 is 300 digits.
inline std::string printf_double(const char* format, double value) {
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, format, value);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < sizeof buf) return std::string(buf, static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), format, value);
  big.resize(static_cast<std::size_t>(n));
  return big;
}

/// Appends `value` as printf's `%W.Pf` writes it (`width` W, `precision`
/// P): the exact binary value rounded half to even, right-aligned. By
/// std::to_chars, which the standard defines as printf's conversion in the
/// C locale, without a format parsed and a string made per number (the
/// stats report of 208 000 functions: a seventh of its time in snprintf);
/// NaN, infinities and numbers longer than 320 characters by printf.
void append_printf_fixed(std::string& out, double value, int precision, std::size_t width);

/// Appends `value` as printf's `%.Pg` writes it (which is fmt's `{:.Pg}`),
/// `precision` P from 1: std::to_chars' general form, where fmt takes
/// Dragon4's bignum arithmetic for a fixed precision (the report's 600 000
/// numbers: a seventh of its time). NaN and infinities by printf.
void append_printf_general(std::string& out, double value, int precision);

/// Appends `value` as fmt's `{:W.1f}` (printf's `%W.1f`) writes it: the
/// exact binary value rounded to one decimal, ties to even, right-aligned
/// in `width` columns. Below 2^53 by integer arithmetic on the fraction's
/// mantissa, where fmt divides big numbers (an eighth of a big
/// line_profiler report's time); fmt's own beyond, and for NaN and
/// infinities.
void append_fixed1(std::string& out, double value, std::size_t width);

/// Appends an integer in decimal (`base` 16: lowercase hex), as fmt's `{}`
/// (`{:x}`) writes it, without a temporary string: writers that put out
/// millions of numbers.
template <class Int>
void append_integer(std::string& out, Int value, int base = 10) {
  char digits[72];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value, base).ptr);
}

}  // namespace graphgen
