// expat over a whole buffer, a MiB at a time (XML_Parse takes an int
// length; a file's pages are given back as they are parsed). expat is
// loaded the first time an XML file is read (shared_lib.h).
#pragma once

#include <expat.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "graphgen/io.h"
#include "graphgen/shared_lib.h"

namespace graphgen::formats {

// The expat functions called: (member, expat's name).
#define GRAPHGEN_EXPAT_FUNCTIONS(X)                          \
  X(create, XML_ParserCreate)                                \
  X(free, XML_ParserFree)                                    \
  X(set_user_data, XML_SetUserData)                          \
  X(set_element_handler, XML_SetElementHandler)              \
  X(set_character_data_handler, XML_SetCharacterDataHandler) \
  X(parse, XML_Parse)                                        \
  X(stop, XML_StopParser)                                    \
  X(error_code, XML_GetErrorCode)                            \
  X(error_string, XML_ErrorString)                           \
  X(line, XML_GetCurrentLineNumber)                          \
  X(column, XML_GetCurrentColumnNumber)

GRAPHGEN_LIBRARY_API(ExpatApi, GRAPHGEN_EXPAT_FUNCTIONS);

/// expat's functions, loaded once; null, with why in `error`, when they
/// cannot be.
const ExpatApi* expat_api(std::string& error);

/// `path:line:col: message` at the start of the element `tag` (e.g.
/// "<cnode") of `xml` whose id= (or Id=, ID=) attribute is `id`, skipping
/// the first `skip` such elements (1: the second of two); at 1:1 when
/// there is none. Searched for only when an error names the element: the
/// readers keep no positions of what they parse.
std::string at_xml_element(std::string_view path, std::string_view xml, std::string_view tag, std::int64_t id,
                           std::string_view message, std::size_t skip = 0);

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

/// An expat parser whose events go to a handler.
class XmlParser {
 public:
  template <class Handler>
  explicit XmlParser(Handler* handler) : api_(expat_api(missing_)) {
    if (!api_) return;
    xml_ = api_->create(nullptr);
    if (!xml_) {
      missing_ = "expat could not make a parser (out of memory)";
      return;
    }
    api_->set_user_data(xml_, handler);
    api_->set_element_handler(xml_, &XmlCallbacks<Handler>::start, &XmlCallbacks<Handler>::end);
    api_->set_character_data_handler(xml_, &XmlCallbacks<Handler>::text);
  }
  ~XmlParser() {
    if (xml_) api_->free(xml_);
  }
  XmlParser(const XmlParser&) = delete;
  XmlParser& operator=(const XmlParser&) = delete;

  /// Why there is no parser (expat is not installed), or empty.
  const std::string& unavailable() const { return missing_; }

  /// Feeds every byte to the parser; false when expat stops with an error
  /// (the handler may have stopped it on purpose). With `input` (whose
  /// bytes these are), the pages parsed are given back as the parse goes:
  /// expat keeps what it still needs of a chunk once XML_Parse returns,
  /// and the handlers copy what they keep.
  bool parse(std::string_view bytes, const InputFile* input = nullptr) {
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    PassedPages passed(input);
    std::size_t at = 0;
    do {
      std::size_t n = std::min(kChunk, bytes.size() - at);
      if (api_->parse(xml_, bytes.data() + at, static_cast<int>(n), at + n == bytes.size()) == XML_STATUS_ERROR)
        return false;
      at += n;
      passed.at(at);
    } while (at < bytes.size());
    return true;
  }
  /// Stops the parse from a handler: parse() returns false.
  void stop() { api_->stop(xml_, XML_FALSE); }
  /// Where the parser is: line and column from 1.
  std::size_t line() const { return api_->line(xml_); }
  std::size_t column() const { return api_->column(xml_) + 1; }
  /// expat's words for the error it stopped at.
  std::string_view error_text() const {
    const XML_LChar* s = api_->error_string(api_->error_code(xml_));
    return s ? std::string_view(s) : std::string_view("an error");
  }

 private:
  std::string missing_;
  const ExpatApi* api_;
  XML_Parser xml_ = nullptr;
};

}  // namespace graphgen::formats
