#include "common/archive_lib.h"

#include <fmt/format.h>

#include <string>

namespace graphgen::formats {

std::string ArchiveReader::why(std::string_view otherwise) const {
  const char* message = lib.error_string(a);
  return one_line(message ? std::string_view(message) : otherwise);
}

Expected<const ArchiveApi*> archive_api(const std::string& path) {
  std::string why;
  const ArchiveApi* api = load_api<ArchiveApi>(GRAPHGEN_LIBARCHIVE_SONAME, "reads archives", "libarchive", why);
  if (!api) return bad_input(fmt::format("{}: {}", path, why));
  return api;
}

}  // namespace graphgen::formats
