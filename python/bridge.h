// Python objects to graphgen's model, through the CPython API (the caller
// holds the GIL): a cProfile/profile stats dict walked with PyDict_Next,
// no marshal round trip. Shared by `graphgen run` (the embedded
// interpreter) and the `graphgen` extension module.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::python {

/// A reference released at the end of the scope.
struct Ref {
  PyObject* o;
  explicit Ref(PyObject* x) : o(x) {}
  ~Ref() { Py_XDECREF(o); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
};

/// The profile of a stats dict as cProfile.Profile.create_stats() or
/// pstats.Stats leave it: {(file, line, name): (cc, nc, tt, ct, callers)},
/// callers {key: (nc, cc, tt, ct) | int}. The same model the pstats reader
/// makes of the file the dict would be marshalled to: one function per key
/// in gprof2dot's order, `listed` in the dict's order, exact doubles.
/// `what` names the source in errors.
Expected<Profile> profile_from_stats(PyObject* stats, std::string_view what);

/// The name of an object's type ("dict"), for messages: what tp_name gives,
/// through the stable ABI.
std::string type_name(PyObject* o);

}  // namespace graphgen::python
