#include "common/xml.h"

#include <fmt/format.h>

#include <cstring>

#include "graphgen/text.h"

namespace graphgen::formats {

const ExpatApi* expat_api(std::string& error) {
  return load_api<ExpatApi>(GRAPHGEN_EXPAT_SONAME, "reads XML (sysprof files, CUBE4's anchor.xml)",
                            "expat (Debian: libexpat1)", error);
}

std::string at_xml_element(std::string_view path, std::string_view xml, std::string_view tag, std::int64_t id,
                           std::string_view message, std::size_t skip) {
  std::size_t found = std::string_view::npos;
  for (std::size_t at = xml.find(tag); at != std::string_view::npos && found == std::string_view::npos;
       at = xml.find(tag, at + 1)) {
    const std::size_t after = at + tag.size();  // ("<location" is not "<locationgroup")
    if (after >= xml.size() || xml[after] == '\0' || std::strchr(" \t\r\n>/", xml[after]) == nullptr) continue;
    const std::size_t end = xml.find('>', at);
    const std::string_view element = xml.substr(at, end == std::string_view::npos ? end : end - at);
    bool named = false;
    for (const char* key : {"id=", "Id=", "ID="})
      for (const char quote : {'"', '\''}) {
        const std::string want = fmt::format("{}{}{}{}", key, quote, id, quote);
        for (std::size_t k = element.find(want); k != std::string_view::npos && !named; k = element.find(want, k + 1))
          named = k > 0 && element[k - 1] != '\0' && std::strchr(" \t\r\n", element[k - 1]) != nullptr;
      }
    if (named && skip-- == 0) found = at;
  }
  return at_offset(path, xml, found == std::string_view::npos ? 0 : found, message);
}

}  // namespace graphgen::formats
