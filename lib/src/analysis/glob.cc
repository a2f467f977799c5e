#include "graphgen/analysis/glob.h"

#include <cstdint>
#include <vector>

namespace graphgen {

namespace {

std::vector<char32_t> decode(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + len > s.size()) len = 1;
    char32_t cp = len == 1 ? c : c & (0x3f >> (len - 1));
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    out.push_back(cp);
    i += len;
  }
  return out;
}

// Matches a bracket expression starting at pat[p] == '['. Returns the index
// after ']' or 0 when the bracket is not closed (then '[' is literal, as in
// fnmatch.translate).
std::size_t match_class(const std::vector<char32_t>& pat, std::size_t p, char32_t c, bool& matched) {
  std::size_t j = p + 1;
  if (j < pat.size() && pat[j] == '!') ++j;
  if (j < pat.size() && pat[j] == ']') ++j;
  while (j < pat.size() && pat[j] != ']') ++j;
  if (j >= pat.size()) return 0;
  std::size_t k = p + 1;
  bool negate = false;
  if (pat[k] == '!') {
    negate = true;
    ++k;
  }
  bool in = false;
  bool first = true;
  while (k < j) {
    char32_t lo = pat[k];
    if (!first && lo == ']') break;
    first = false;
    if (k + 2 < j && pat[k + 1] == '-') {
      char32_t hi = pat[k + 2];
      if (lo <= c && c <= hi) in = true;
      k += 3;
    } else {
      if (c == lo) in = true;
      ++k;
    }
  }
  matched = in != negate;
  return j + 1;
}

}  // namespace

bool glob_match(std::string_view pattern_utf8, std::string_view text_utf8) {
  std::vector<char32_t> pat = decode(pattern_utf8);
  std::vector<char32_t> txt = decode(text_utf8);
  std::size_t p = 0, t = 0;
  std::size_t star_p = SIZE_MAX, star_t = 0;
  while (t < txt.size()) {
    if (p < pat.size()) {
      char32_t pc = pat[p];
      if (pc == '*') {
        star_p = ++p;
        star_t = t;
        continue;
      }
      if (pc == '?') {
        ++p;
        ++t;
        continue;
      }
      if (pc == '[') {
        bool matched = false;
        std::size_t next = match_class(pat, p, txt[t], matched);
        if (next != 0) {
          if (matched) {
            p = next;
            ++t;
            continue;
          }
        } else if (txt[t] == '[') {
          ++p;
          ++t;
          continue;
        }
      } else if (pc == txt[t]) {
        ++p;
        ++t;
        continue;
      }
    }
    if (star_p == SIZE_MAX) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

}  // namespace graphgen
