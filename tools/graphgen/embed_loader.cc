// graphgen's side of the embedded CPython (embed.h): the module loaded the
// first time `graphgen run` or a Python pattern needs it.
#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "embed.h"
#include "run.h"

namespace graphgen::cli {

namespace {

struct Embed {
  GraphgenEmbedRun* run = nullptr;
  GraphgenEmbedCompile* compile = nullptr;
  std::string error;  // empty: loaded
};

// The module's file, looked for once: beside the binary (the build tree),
// else where it is installed, found from the binary's folder (the
// package's /usr/bin/../lib/graphgen); `path` empty when neither exists.
struct Located {
  std::string path, tried;
};
const Located& located() {
  static const Located l = [] {  // (thread-safe: C++11 statics)
    Located r;
    char self[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return r;
    std::string dir(self, static_cast<std::size_t>(n));
    dir.erase(dir.rfind('/') + 1);
    for (const std::string& path : {dir + kEmbedModule, dir + GRAPHGEN_EMBED_FROM_BIN}) {
      if (::access(path.c_str(), F_OK) == 0) {
        r.path = path;
        break;
      }
      r.tried += (r.tried.empty() ? "" : ", ") + path;
    }
    return r;
  }();
  return l;
}

Embed load() {
  Embed e;
  const Located& l = located();
  if (l.path.empty()) {
    e.error = fmt::format("graphgen's Python module is missing (looked for {})", l.tried);
    return e;
  }
  // Global: the extension modules the embedded Python imports (_lsprof,
  // lib-dynload) take libpython's symbols from the process, as in a
  // linked binary (the module itself exports only its two entry points).
  // Never closed: the patterns compiled there are called until the end.
  void* module = ::dlopen(l.path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!module) {
    const char* why = ::dlerror();
    e.error = fmt::format("cannot load {}: {}", l.path, why ? why : "unknown error");
    return e;
  }
  e.run = reinterpret_cast<GraphgenEmbedRun*>(::dlsym(module, "graphgen_embed_run"));
  e.compile = reinterpret_cast<GraphgenEmbedCompile*>(::dlsym(module, "graphgen_embed_compile"));
  if (!e.run || !e.compile) e.error = fmt::format("{} is not graphgen's Python module", l.path);
  return e;
}

const Embed& embed() {
  static const Embed loaded = load();
  return loaded;
}

}  // namespace

bool can_run_python() { return true; }

void use_python_regex() {
  // Without the module (a binary copied alone), patterns stay ECMAScript,
  // which names the Python-only constructs it refuses, as a build without
  // Python does.
  if (located().path.empty()) return;
  stats::set_python_regex([](const std::string& pattern) -> std::optional<stats::Search> {
    const Embed& e = embed();
    if (!e.error.empty()) return std::nullopt;
    std::optional<stats::Search> out;
    e.compile(&pattern, &out);
    return out;
  });
}

int run_python(const pipeline::Settings& settings, const RunTarget& target) {
  const Embed& e = embed();
  if (!e.error.empty()) {
    std::fprintf(stderr, "graphgen run: %s\n", e.error.c_str());
    return kExitBadUsage;
  }
  return e.run(&settings, &target);
}

}  // namespace graphgen::cli
