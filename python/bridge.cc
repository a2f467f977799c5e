#include "bridge.h"

#include <fmt/format.h>
#include <marshal.h>

#include <string>
#include <vector>

#include "pstats/stats_builder.h"

namespace graphgen::python {

namespace {

class Converter {
 public:
  Converter(Profile& p, std::string_view what) : p_(p), what_(what), builder_(p) {}

  Expected<bool> run(PyObject* stats) {
    if (!PyDict_Check(stats))
      return fail(fmt::format("expected a stats dict {{(file, line, name): (cc, nc, tt, ct, callers)}}, found {}",
                              Py_TYPE(stats)->tp_name));
    if (PyDict_GET_SIZE(stats) == 0)
      return fail("expected at least one function, found an empty stats dict (was the profiler ever enabled?)");
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(stats, &pos, &key, &value))
      if (auto ok = entry(key, value); !ok) return ok;
    return true;
  }

 private:
  Error fail(std::string message) const { return bad_input(fmt::format("{}: {}", what_, message)); }

  // str -> UTF-8 (lone surrogates kept, as the pstats reader keeps them).
  Expected<StringId> text(PyObject* s, std::string_view what) {
    if (!PyUnicode_Check(s)) return fail(fmt::format("expected a {} string, found {}", what, Py_TYPE(s)->tp_name));
    Ref bytes(PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass"));
    if (!bytes.o) {
      PyErr_Clear();
      return fail(fmt::format("cannot encode a {} as UTF-8", what));
    }
    return p_.strings.intern(std::string_view(PyBytes_AS_STRING(bytes.o), PyBytes_GET_SIZE(bytes.o)));
  }

  Expected<std::int64_t> integer(PyObject* o, std::string_view what) {
    if (!PyLong_Check(o)) return fail(fmt::format("expected {} (an int), found {}", what, Py_TYPE(o)->tp_name));
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) return overflow > 0 ? INT64_MAX : INT64_MIN;
    return static_cast<std::int64_t>(v);
  }

  Expected<double> number(PyObject* o, std::string_view what) {
    if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
    if (PyLong_Check(o)) {
      double v = PyLong_AsDouble(o);
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return fail(fmt::format("expected {} (a number), found an int too large", what));
      }
      return v;
    }
    return fail(fmt::format("expected {} (a number), found {}", what, Py_TYPE(o)->tp_name));
  }

  Expected<std::uint32_t> read_key(PyObject* k) {
    if (!PyTuple_Check(k) || PyTuple_GET_SIZE(k) != 3)
      return fail(fmt::format("expected a function key (filename, line, name), found {}", Py_TYPE(k)->tp_name));
    pstats::Key key;
    auto file = text(PyTuple_GET_ITEM(k, 0), "filename");
    if (!file) return file.error();
    key.file = *file;
    auto line = integer(PyTuple_GET_ITEM(k, 1), "a line number");
    if (!line) return line.error();
    key.line = *line;
    PyObject* name = PyTuple_GET_ITEM(k, 2);
    if (PyCode_Check(name)) {
      // The pure-Python profiler's keys: labelled as the pstats reader
      // labels them, the code object kept for the pstats writer.
      PyCodeObject* code = reinterpret_cast<PyCodeObject*>(name);
      auto co_name = text(code->co_name, "code name");
      auto co_file = text(code->co_filename, "code filename");
      if (!co_name || !co_file) return co_name ? co_file.error() : co_name.error();
      key.name =
          p_.strings.intern(pstats::code_object_label(p_.str(*co_name), p_.str(*co_file), code->co_firstlineno));
      Ref blob(PyMarshal_WriteObjectToString(name, 2));
      if (blob.o)
        key.code = p_.strings.intern(std::string_view(PyBytes_AS_STRING(blob.o), PyBytes_GET_SIZE(blob.o)));
      else
        PyErr_Clear();
    } else {
      auto n = text(name, "function name");
      if (!n) return n.error();
      key.name = *n;
    }
    return builder_.key(key);
  }

  Expected<bool> entry(PyObject* k, PyObject* v) {
    auto key = read_key(k);
    if (!key) return key.error();
    if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 5)
      return fail(fmt::format("expected function stats (cc, nc, tt, ct, callers), found {}", Py_TYPE(v)->tp_name));
    auto cc = integer(PyTuple_GET_ITEM(v, 0), "a primitive call count");
    auto nc = integer(PyTuple_GET_ITEM(v, 1), "a call count");
    auto tt = number(PyTuple_GET_ITEM(v, 2), "an internal time");
    auto ct = number(PyTuple_GET_ITEM(v, 3), "a cumulative time");
    if (!cc) return cc.error();
    if (!nc) return nc.error();
    if (!tt) return tt.error();
    if (!ct) return ct.error();
    PyObject* callers = PyTuple_GET_ITEM(v, 4);
    if (!PyDict_Check(callers))
      return fail(fmt::format("expected a callers dict, found {}", Py_TYPE(callers)->tp_name));
    const FuncId callee = builder_.entry(*key, *cc, *nc, *tt, *ct);
    Py_ssize_t pos = 0;
    PyObject *ck, *cv;
    while (PyDict_Next(callers, &pos, &ck, &cv)) {
      auto caller_key = read_key(ck);
      if (!caller_key) return caller_key.error();
      pstats::CallerStats stats;
      if (PyLong_Check(cv)) {  // the pure-Python profiler: a call count
        auto n = integer(cv, "a caller call count");
        if (!n) return n.error();
        stats.is_int = true;
        stats.count = *n;
        builder_.caller(*caller_key, callee, stats);
        continue;
      }
      if (!PyTuple_Check(cv) || PyTuple_GET_SIZE(cv) == 0 || PyTuple_GET_SIZE(cv) % 4 != 0)
        return fail(fmt::format("expected caller stats (nc, cc, tt, ct), found {}", Py_TYPE(cv)->tp_name));
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cv); ++i) {
        PyObject* x = PyTuple_GET_ITEM(cv, i);
        std::int64_t n = 0;
        double t = 0;
        if (i % 4 < 2) {
          auto count = integer(x, "a caller call count");
          if (!count) return count.error();
          n = *count;
        } else {
          auto time = number(x, "a caller time");
          if (!time) return time.error();
          t = *time;
        }
        stats.add_item(static_cast<std::size_t>(i), n, t);
      }
      builder_.caller(*caller_key, callee, stats);
    }
    return true;
  }

  Profile& p_;
  std::string_view what_;
  pstats::StatsBuilder builder_;
};

}  // namespace

Expected<Profile> profile_from_stats(PyObject* stats, std::string_view what) {
  Profile p;
  Converter converter(p, what);
  if (auto ok = converter.run(stats); !ok) return ok.error();
  return p;
}

}  // namespace graphgen::python
