#include "common/markup.h"

#include <fmt/format.h>

#include <cmath>

namespace graphgen::formats {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// DEL and the C1 controls (U+0080-U+009F): valid UTF-8, but HTML5 parsers
// report them as invalid code points.
bool del_or_c1(std::string_view piece) {
  return piece == "\x7F" || (piece.size() == 2 && piece[0] == '\xC2' && static_cast<unsigned char>(piece[1]) < 0xA0);
}

// Calls emit(piece) for each valid piece of s, kReplacement for bad bytes.
template <typename Emit>
void each_valid(std::string_view s, Emit emit) {
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) {
      emit(kReplacement);
      ++i;
    } else {
      emit(s.substr(i, n));
      i += n;
    }
  }
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  each_valid(s, [&](std::string_view piece) { out += piece; });
  return out;
}

std::string xml_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  each_valid(s, [&](std::string_view piece) {
    if (del_or_c1(piece)) {
      out += kReplacement;
      return;
    }
    if (piece.size() > 1) {
      out += piece;
      return;
    }
    char c = piece[0];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
          out += kReplacement;
        else
          out += c;
    }
  });
  return out;
}

std::string json_text(std::string_view s, bool in_html) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  each_valid(s, [&](std::string_view piece) {
    if (in_html && del_or_c1(piece)) {
      out += fmt::format("\\u{:04x}", piece.size() == 1 ? 0x7F : static_cast<unsigned char>(piece[1]));
      return;
    }
    if (piece.size() > 1) {
      out += piece;
      return;
    }
    char c = piece[0];
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20 || (in_html && (c == '<' || c == '>' || c == '&')))
          out += fmt::format("\\u{:04x}", u);
        else
          out += c;
    }
  });
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt::format("{}", v);
}

}  // namespace graphgen::formats
