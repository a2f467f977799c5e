// A library loaded the first time a run needs it, not at every start of
// graphgen: each library a start loads costs it 50 µs to 0.8 ms and some of
// its memory, used or not (docs/speed.md). libarchive (archives), Graphviz
// (pictures), zlib, bzip2, xz and zstd (compressed inputs, PNG, pprof) and
// expat (XML) are loaded so, by the soname CMake reads from the library the
// build compiled against (`objdump -p`, cmake/Soname.cmake).
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace graphgen {

class SharedLibrary {
 public:
  /// dlopen()s `soname` (never closed: the process keeps what it loaded).
  /// When it cannot, error() says so: "cannot load SONAME (WHY), which
  /// PURPOSE: install PACKAGE".
  SharedLibrary(const char* soname, std::string_view purpose, std::string_view package);

  /// Points `f` at the library's function `name`; when the library or the
  /// function is missing, null, and error() names the first one missing.
  template <class F>
  void resolve(const char* name, F& f) {
    f = reinterpret_cast<F>(symbol(name));
  }

  /// Empty when the library and every function resolved are there.
  const std::string& error() const { return error_; }

 private:
  void* symbol(const char* name);
  const char* soname_;
  void* handle_ = nullptr;
  std::string error_;
};

// GRAPHGEN_LIBRARY_API(Name, FUNCTIONS) declares struct Name: a pointer per
// function of FUNCTIONS(X), a list of X(member, the C function's name), of
// the C function's own type (from the library's header).
#define GRAPHGEN_API_MEMBER(member, name) decltype(&::name) member;
#define GRAPHGEN_API_RESOLVE(member, name) lib.resolve(#name, api.member);
#define GRAPHGEN_LIBRARY_API(Name, FUNCTIONS)                                              \
  struct Name {                                                                            \
    FUNCTIONS(GRAPHGEN_API_MEMBER)                                                         \
    static void resolve(SharedLibrary& lib, Name& api) { FUNCTIONS(GRAPHGEN_API_RESOLVE) } \
  }

/// An API's functions from library `soname`, loaded once (the first call
/// of each API type loads it; thread-safe); null, with why in `error`, when
/// they cannot be.
template <class Api>
const Api* load_api(const char* soname, std::string_view purpose, std::string_view package, std::string& error) {
  static const std::pair<Api, std::string> loaded = [&] {
    SharedLibrary lib(soname, purpose, package);
    Api api{};
    Api::resolve(lib, api);
    return std::pair<Api, std::string>(api, lib.error());
  }();
  error = loaded.second;
  return loaded.second.empty() ? &loaded.first : nullptr;
}

}  // namespace graphgen
