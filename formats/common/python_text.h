// Python's text as marshal and pickle files hold it, shared by the pstats
// and line_profiler decoders: UTF-8 with lone surrogates (what CPython's
// surrogatepass writes), Latin-1 (marshal's 'a'/'z' strings, and Python 2
// str in a file-system encoding that is not UTF-8), and the names of
// Python types in messages.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace graphgen::formats {

/// True when `s` is UTF-8 as CPython's surrogatepass decoder accepts it.
bool valid_utf8_surrogatepass(std::string_view s);

/// Appends Latin-1 bytes to `out` as UTF-8.
void append_latin1_as_utf8(std::string_view latin1, std::string& out);
/// Whether every byte is below 0x80 (Latin-1 and UTF-8 text alike).
bool is_ascii(std::string_view s);

/// "a tuple", "an int": a type's name with its article, for messages.
std::string with_article(std::string_view name);

/// The lines of a source file a profile names (each with its '\n'): a
/// regular file only (never a device, FIFO or directory), at most 16 MiB,
/// under `root` when one is given. False when it cannot or may not be read.
bool read_source(const std::string& path, const std::string& root, std::vector<std::string>& lines);

/// A source file as one text and where each line starts: what read_source()
/// gives as lines (each with its '\n', the last one given one), without a
/// string per line.
struct SourceText {
  std::string text;
  std::vector<std::size_t> starts;  // each line's start, then the text's end
  std::size_t lines() const { return starts.empty() ? 0 : starts.size() - 1; }
  /// Line i, 0-based.
  std::string_view line(std::size_t i) const {
    return std::string_view(text).substr(starts[i], starts[i + 1] - starts[i]);
  }
};
bool read_source(const std::string& path, const std::string& root, SourceText& source);

/// A byte of a Python identifier (ASCII letters, digits, '_', and any byte
/// of a UTF-8 sequence).
inline bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

/// Python source joined into logical lines as the tokenizer joins them, a
/// physical line at a time: triple-quoted strings, quoted ones continued by
/// a backslash at their line's end, brackets, and backslash continuations.
/// What the line_profiler report's blocks (inspect.getblock) and the
/// naming of tracemalloc's frames (the def a statement is in) both need.
class LogicalLines {
 public:
  struct Line {
    bool ends = false;         // the logical line ends with this physical line
    std::size_t code_end = 0;  // where its comment starts (outside strings), else its size
  };
  /// Whether the next physical line starts inside a logical line.
  bool inside() const { return in_triple_ || open_quote_ || depth_ > 0 || backslash_; }
  /// Reads physical line `s`; `word(begin, end)` is called with each
  /// identifier outside strings and comments, in order.
  template <class Word>
  Line next(std::string_view s, Word&& word) {
    Line out{false, s.size()};
    backslash_ = false;
    std::size_t k = open_quote_ ? quoted(s, 0, open_quote_) + 1 : 0;
    for (; k < s.size(); ++k) {
      const char c = s[k];
      if (in_triple_) {
        if (c == '\\') {
          ++k;
        } else if (c == triple_ && k + 2 < s.size() && s[k + 1] == c && s[k + 2] == c) {
          in_triple_ = false;
          k += 2;
        }
        continue;
      }
      if (c == '#') {
        out.code_end = k;
        break;
      }
      if (c == '"' || c == '\'') {
        if (k + 2 < s.size() && s[k + 1] == c && s[k + 2] == c) {
          in_triple_ = true;
          triple_ = c;
          k += 2;
        } else {
          k = quoted(s, k + 1, c);
        }
        continue;
      }
      if (identifier_char(c) && (k == 0 || !identifier_char(s[k - 1]))) {
        std::size_t end = k;
        while (end < s.size() && identifier_char(s[end])) ++end;
        word(k, end);
        k = end - 1;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth_;
      if (c == ')' || c == ']' || c == '}') depth_ = std::max(0, depth_ - 1);
      if (c == '\\' && (k + 1 == s.size() || s[k + 1] == '\n' || s[k + 1] == '\r')) backslash_ = true;
    }
    out.ends = !inside();
    return out;
  }
  Line next(std::string_view s) {
    return next(s, [](std::size_t, std::size_t) {});
  }

 private:
  // The rest of a quoted string from `from`: where its quote closes it, or
  // s.size() with open_quote_ set when an odd run of backslashes before the
  // line's end continues it on the next line.
  std::size_t quoted(std::string_view s, std::size_t from, char quote) {
    std::size_t k = from;
    for (; k < s.size() && s[k] != quote; ++k)
      if (s[k] == '\\') ++k;
    if (k < s.size()) {
      open_quote_ = 0;
      return k;
    }
    std::string_view tail = s.substr(from);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.remove_suffix(1);
    std::size_t run = 0;
    while (run < tail.size() && tail[tail.size() - 1 - run] == '\\') ++run;
    open_quote_ = run % 2 == 1 ? quote : 0;
    return s.size();
  }

  int depth_ = 0;
  bool in_triple_ = false, backslash_ = false;
  char triple_ = 0, open_quote_ = 0;
};

}  // namespace graphgen::formats
