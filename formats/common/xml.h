// expat over a whole buffer: XML_Parse takes an int length, so files over
// 2 GiB go in chunks.
#pragma once

#include <expat.h>

#include <algorithm>
#include <string_view>

namespace graphgen::formats {

/// Feeds every byte to `xml`; false when expat stops with an error (the
/// parser's handlers may have stopped it on purpose).
inline bool parse_xml(XML_Parser xml, std::string_view bytes) {
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  std::size_t at = 0;
  do {
    std::size_t n = std::min(kChunk, bytes.size() - at);
    if (XML_Parse(xml, bytes.data() + at, static_cast<int>(n), at + n == bytes.size()) == XML_STATUS_ERROR)
      return false;
    at += n;
  } while (at < bytes.size());
  return true;
}

}  // namespace graphgen::formats
