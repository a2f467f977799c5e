#include "regex.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <memory>
#include <mutex>

#include "bridge.h"
#include "stats/writer.h"

namespace graphgen::python {

namespace {

// The GIL for one scope, whichever thread holds it now.
struct Gil {
  PyGILState_STATE state = PyGILState_Ensure();
  ~Gil() { PyGILState_Release(state); }
  Gil() = default;
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;
};

// graphgen's own process has no interpreter (or `graphgen run` has finished
// its own): an isolated one, without site, is enough for `re`.
bool ensure_interpreter() {
  if (Py_IsInitialized()) return true;
#ifdef Py_LIMITED_API
  return false;  // (the module: Python is there, it imported it)
#else
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.site_import = 0;
  config.install_signal_handlers = 0;
  PyStatus status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) return false;
  PyEval_SaveThread();  // the GIL is taken per call, as in the module
  return true;
#endif
}

PyObject* decode(std::string_view s) {
  return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
}

}  // namespace

std::optional<stats::Search> compile_python_regex(const std::string& pattern) {
  if (!ensure_interpreter()) return std::nullopt;
  Gil gil;
  Ref re(PyImport_ImportModule("re"));
  Ref text(decode(pattern));
  PyObject* compiled = re.o && text.o ? PyObject_CallMethod(re.o, "compile", "O", text.o) : nullptr;
  if (!compiled) {
    PyErr_Clear();
    return std::nullopt;
  }
  std::shared_ptr<PyObject> rex(compiled, [](PyObject* o) {
    if (!Py_IsInitialized()) return;
    Gil g;
    Py_DECREF(o);
  });
  return [rex](std::string_view s) {
    Gil g;
    Ref str(decode(s));
    Ref found(str.o ? PyObject_CallMethod(rex.get(), "search", "O", str.o) : nullptr);
    if (!found.o) PyErr_Clear();
    return found.o && found.o != Py_None;
  };
}

void install_python_regex() { stats::set_python_regex(compile_python_regex); }

}  // namespace graphgen::python
