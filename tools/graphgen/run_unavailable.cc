// `graphgen run` in a build without python3-dev: main.cc says so (the
// profiler needs the embedded interpreter).
#include "run.h"

namespace graphgen::cli {

bool can_run_python() { return false; }

void use_python_regex() {}

int run_python(const pipeline::Settings&, const RunTarget&) { return kExitBadUsage; }

}  // namespace graphgen::cli
