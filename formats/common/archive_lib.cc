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
  ArchiveApi& a = l.api;
  std::string& e = l.error;
  resolve(lib, "archive_read_new", a.read_new, e);
  resolve(lib, "archive_read_free", a.read_free, e);
  resolve(lib, "archive_read_support_format_tar", a.support_format_tar, e);
  resolve(lib, "archive_read_support_format_zip_seekable", a.support_format_zip_seekable, e);
  resolve(lib, "archive_read_support_filter_none", a.support_filter_none, e);
  resolve(lib, "archive_read_open_memory", a.open_memory, e);
  resolve(lib, "archive_error_string", a.error_string, e);
  resolve(lib, "archive_read_next_header", a.next_header, e);
  resolve(lib, "archive_filter_bytes", a.filter_bytes, e);
  resolve(lib, "archive_entry_pathname", a.entry_pathname, e);
  resolve(lib, "archive_entry_size", a.entry_size, e);
  resolve(lib, "archive_read_data", a.read_data, e);
  return l;
}

}  // namespace

Expected<const ArchiveApi*> archive_api(const std::string& path) {
  static const Loaded loaded = load();  // (thread-safe: C++11 statics)
  if (!loaded.error.empty()) return bad_input(fmt::format("{}: {}", path, loaded.error));
  return &loaded.api;
}

}  // namespace graphgen::formats
