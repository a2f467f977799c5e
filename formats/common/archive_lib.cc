#include "common/archive_lib.h"

#include <fmt/format.h>

#include <string>

#include "graphgen/shared_lib.h"

namespace graphgen::formats {

namespace {

struct Loaded {
  ArchiveApi api{};
  std::string error;  // empty: loaded
};

Loaded load() {
  SharedLibrary lib(GRAPHGEN_LIBARCHIVE_SONAME, "reads archives", "libarchive");
  Loaded l;
#define GRAPHGEN_ARCHIVE_RESOLVE(member, name) lib.resolve(#name, l.api.member);
  GRAPHGEN_ARCHIVE_FUNCTIONS(GRAPHGEN_ARCHIVE_RESOLVE)
#undef GRAPHGEN_ARCHIVE_RESOLVE
  l.error = lib.error();
  return l;
}

}  // namespace

std::string ArchiveReader::why(std::string_view otherwise) const {
  const char* message = lib.error_string(a);
  return one_line(message ? std::string_view(message) : otherwise);
}

Expected<const ArchiveApi*> archive_api(const std::string& path) {
  static const Loaded loaded = load();  // (thread-safe: C++11 statics)
  if (!loaded.error.empty()) return bad_input(fmt::format("{}: {}", path, loaded.error));
  return &loaded.api;
}

}  // namespace graphgen::formats
