// Python's text as marshal and pickle files hold it, shared by the pstats
// and line_profiler decoders: UTF-8 with lone surrogates (what CPython's
// surrogatepass writes), Latin-1 (marshal's 'a'/'z' strings, and Python 2
// str in a file-system encoding that is not UTF-8), and the names of
// Python types in messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace graphgen::formats {

/// True when `s` is UTF-8 as CPython's surrogatepass decoder accepts it.
bool valid_utf8_surrogatepass(std::string_view s);

/// Appends Latin-1 bytes to `out` as UTF-8.
void append_latin1_as_utf8(std::string_view latin1, std::string& out);

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

}  // namespace graphgen::formats
