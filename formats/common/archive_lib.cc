#include "common/archive_lib.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <string>

namespace graphgen::formats {

namespace {

struct Loaded {
  ArchiveApi api{};
  std::string error;  // empty: loaded
};

template <class F>
bool resolve(void* lib, const char* name, F& f, std::string& error) {
  void* symbol = ::dlsym(lib, name);
  if (!symbol) {
    if (error.empty()) error = fmt::format("{} has no {}", GRAPHGEN_LIBARCHIVE_SONAME, name);
    return false;
  }
  f = reinterpret_cast<F>(symbol);
  return true;
}

Loaded load() {
  Loaded l;
  // Never closed: the process keeps what it loaded.
  void* lib = ::dlopen(GRAPHGEN_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    l.error = fmt::format("cannot load {} ({}), which reads archives: install libarchive", GRAPHGEN_LIBARCHIVE_SONAME,
                          why ? why : "not found");
    return l;
  }
#define GRAPHGEN_ARCHIVE_RESOLVE(member, name) resolve(lib, #name, l.api.member, l.error);
  GRAPHGEN_ARCHIVE_FUNCTIONS(GRAPHGEN_ARCHIVE_RESOLVE)
#undef GRAPHGEN_ARCHIVE_RESOLVE
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
