// Which Python `graphgen run` starts the program on: the user's, where it
// is the version graphgen embeds, so the program sees the packages
// `python3 script.py` would see.
//
//   1. VIRTUAL_ENV (an activated venv or virtualenv): its bin/python3,
//      its version read from its pyvenv.cfg;
//   2. else the first python3 on PATH, unless it is the embedded one: a
//      venv's (pyvenv.cfg beside its bin/), or any other (pyenv's, a
//      self-built one), asked for its version and real executable (a
//      pyenv shim is a script).
//
// Same major.minor: CPython is started with that executable as its program
// name, so its prefix, standard library and site-packages (a venv's
// pyvenv.cfg included) are that Python's, and sys.executable is it
// (multiprocessing's spawn starts it). Another version cannot run in this
// interpreter: the embedded one is used, and a note says what the program
// will not see and how to profile on the user's Python (python3 -m graphgen
// run, the package built for CPython's stable ABI).
#pragma once

#include <string>
#include <string_view>

namespace graphgen::cli {

struct Interpreter {
  std::string program;  // the executable CPython is started as
  std::string note;     // one line for stderr, or empty
};

/// `embedded`: the executable graphgen was built with; `version`: its
/// "major.minor". Reads VIRTUAL_ENV and PATH.
Interpreter choose_interpreter(std::string_view embedded, std::string_view version);

}  // namespace graphgen::cli
