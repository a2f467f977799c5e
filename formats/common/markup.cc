#include "common/markup.h"

#include <fmt/format.h>

#include <cmath>

#include "graphgen/utf8.h"

namespace graphgen::formats {
namespace {

constexpr std::string_view kReplacement = kReplacementCharacter;

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

std::string xml_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  each_valid(s, [&](std::string_view piece) {
    if (is_del_or_c1(piece)) {
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
  std::string out;
  out.reserve(s.size() + 2);
  append_json_text(out, s, in_html);
  return out;
}

void append_json_text(std::string& out, std::string_view s, bool in_html) {
  out += '"';
  each_valid(s, [&](std::string_view piece) {
    if (in_html && is_del_or_c1(piece)) {
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
  out += '"';
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt::format("{}", v);
}

// A text field: the visible text of the name (controls as escapes, no
// line breaks, valid UTF-8), and a name that a spreadsheet would run as a
// formula (= + - @ first) starts with ' as OWASP advises; quoted when it
// holds , or ".
std::string csv_field(std::string_view s) {
  std::string text = visible_text(s);
  if (!text.empty() && std::string_view("=+-@").find(text[0]) != std::string_view::npos) text.insert(0, "'");
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace graphgen::formats
