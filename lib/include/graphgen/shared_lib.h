// A library loaded the first time a run needs it, not at every start of
// graphgen: each one a start loads costs it 50 µs to 0.8 ms and some of its
// memory, used or not (docs/speed.md). libarchive (archives) and Graphviz
// (pictures) are loaded so, by the soname CMake reads from the library the
// build compiled against (`objdump -p`, cmake/Soname.cmake).
#pragma once

#include <string>
#include <string_view>

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

}  // namespace graphgen
