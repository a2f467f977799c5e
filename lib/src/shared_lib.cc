#include "graphgen/shared_lib.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace graphgen {

SharedLibrary::SharedLibrary(const char* soname, std::string_view purpose, std::string_view package)
    : soname_(soname), handle_(::dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
  if (handle_) return;
  const char* why = ::dlerror();
  error_ = fmt::format("cannot load {} ({}), which {}: install {}", soname, why ? why : "not found", purpose, package);
}

void* SharedLibrary::symbol(const char* name) {
  if (!handle_) return nullptr;
  // (A handle's lookup also searches the libraries it loaded: Graphviz's
  // cgraph functions are found through libgvc.)
  void* f = ::dlsym(handle_, name);
  if (!f && error_.empty()) error_ = fmt::format("{} has no {}", soname_, name);
  return f;
}

}  // namespace graphgen
