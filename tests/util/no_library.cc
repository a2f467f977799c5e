// A library the tests preload (LD_PRELOAD) to run graphgen as on a machine
// without some of the libraries it loads on first use: dlopen() of a name
// that starts with one of GRAPHGEN_TEST_NO_LIBRARY's comma-separated
// prefixes fails as for a file that is not there.
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <string_view>

extern "C" void* dlopen(const char* file, int mode) {
  using Dlopen = void* (*)(const char*, int);
  static const auto real = reinterpret_cast<Dlopen>(::dlsym(RTLD_NEXT, "dlopen"));
  const char* gone = std::getenv("GRAPHGEN_TEST_NO_LIBRARY");
  if (file && gone) {
    std::string_view prefixes(gone), name(file);
    while (!prefixes.empty()) {
      const std::size_t comma = prefixes.find(',');
      const std::string_view prefix = prefixes.substr(0, comma);
      if (!prefix.empty() && name.starts_with(prefix)) {
        const std::string missing = "/nonexistent/" + std::string(name);
        return real(missing.c_str(), mode);
      }
      prefixes = comma == std::string_view::npos ? std::string_view() : prefixes.substr(comma + 1);
    }
  }
  return real(file, mode);
}
