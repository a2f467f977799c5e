// expat over a whole buffer, a MiB at a time (XML_Parse takes an int
// length; a file's pages are given back as they are parsed).
#pragma once

#include <expat.h>

#include <algorithm>
#include <string_view>

#include "graphgen/io.h"

namespace graphgen::formats {

/// expat's callbacks for a handler class with start(name, attrs),
/// end(name) and text(chars, length) (a handler may keep them private and
/// name this struct its friend).
template <class Handler>
struct XmlCallbacks {
  static void start(void* h, const XML_Char* name, const XML_Char** attrs) {
    static_cast<Handler*>(h)->start(name, attrs);
  }
  static void end(void* h, const XML_Char* name) { static_cast<Handler*>(h)->end(name); }
  static void text(void* h, const XML_Char* s, int len) { static_cast<Handler*>(h)->text(s, len); }
};

/// A new expat parser whose events go to `handler`; free it with
/// XML_ParserFree.
template <class Handler>
XML_Parser make_xml_parser(Handler* handler) {
  XML_Parser xml = XML_ParserCreate(nullptr);
  XML_SetUserData(xml, handler);
  XML_SetElementHandler(xml, &XmlCallbacks<Handler>::start, &XmlCallbacks<Handler>::end);
  XML_SetCharacterDataHandler(xml, &XmlCallbacks<Handler>::text);
  return xml;
}

/// Feeds every byte to `xml`; false when expat stops with an error (the
/// parser's handlers may have stopped it on purpose). With `input` (whose
/// bytes these are), the pages parsed are given back as the parse goes:
/// expat keeps what it still needs of a chunk once XML_Parse returns, and
/// the handlers copy what they keep.
inline bool parse_xml(XML_Parser xml, std::string_view bytes, const InputFile* input = nullptr) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  PassedPages passed(input);
  std::size_t at = 0;
  do {
    std::size_t n = std::min(kChunk, bytes.size() - at);
    if (XML_Parse(xml, bytes.data() + at, static_cast<int>(n), at + n == bytes.size()) == XML_STATUS_ERROR)
      return false;
    at += n;
    passed.at(at);
  } while (at < bytes.size());
  return true;
}

}  // namespace graphgen::formats
