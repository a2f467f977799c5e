#include "graphgen/utf8.h"

namespace graphgen {

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

bool is_del_or_c1(std::string_view piece) {
  return piece == "\x7F" || (piece.size() == 2 && piece[0] == '\xC2' && static_cast<unsigned char>(piece[1]) < 0xA0);
}

namespace {

// Each valid piece of s, or U+FFFD for each byte that is not.
template <typename Emit>
void each_piece(std::string_view s, Emit emit) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    emit(n == 0 ? kReplacementCharacter : s.substr(i, n));
    i += n == 0 ? 1 : n;
  }
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  each_piece(s, [&](std::string_view piece) { out += piece; });
  return out;
}

std::string printable_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  each_piece(s, [&](std::string_view piece) {
    const auto u = static_cast<unsigned char>(piece[0]);
    const bool control = piece.size() == 1 && u < 0x20 && piece[0] != '\t' && piece[0] != '\n';
    out += control || is_del_or_c1(piece) ? kReplacementCharacter : piece;
  });
  return out;
}

void append_visible(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t plain = 0;  // the common case: printable ASCII, copied as a run
  while (plain < s.size() && s[plain] >= 0x20 && s[plain] < 0x7f) ++plain;
  out.append(s.data(), plain);
  for (std::size_t i = plain; i < s.size();) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u < 0x7f) {
      out += s[i++];
      continue;
    }
    if (u < 0x80) {  // C0 or DEL
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
      ++i;
      continue;
    }
    std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += kReplacementCharacter;
      ++i;
    } else if (n == 2 && u == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {  // C1
      out += "\\u00";
      out += kHex[static_cast<unsigned char>(s[i + 1]) >> 4];
      out += kHex[static_cast<unsigned char>(s[i + 1]) & 15];
      i += 2;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
}

std::string visible_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_visible(out, s);
  return out;
}

}  // namespace graphgen
