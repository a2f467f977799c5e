#include "bridge.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "pstats/stats_builder.h"

namespace graphgen::python {

namespace {

// (Only CPython's stable ABI here: the module is built with Py_LIMITED_API,
// one build for every CPython from 3.8; `graphgen run` with the full API.)

// A borrowed item of a tuple.
PyObject* item(PyObject* tuple, Py_ssize_t i) { return PyTuple_GetItem(tuple, i); }

}  // namespace

std::string type_name(PyObject* o) {
  Ref name(PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(o)), "__name__"));
  Ref bytes(name.o && PyUnicode_Check(name.o) ? PyUnicode_AsUTF8String(name.o) : nullptr);
  if (!bytes.o) {
    PyErr_Clear();
    return "object";
  }
  return std::string(PyBytes_AsString(bytes.o), static_cast<std::size_t>(PyBytes_Size(bytes.o)));
}

namespace {

class Converter {
 public:
  Converter(Profile& p, std::string_view what) : p_(p), what_(what), builder_(p) {}

  Expected<bool> run(PyObject* stats) {
    if (!PyDict_Check(stats))
      return fail(fmt::format("expected a stats dict {{(file, line, name): (cc, nc, tt, ct, callers)}}, found {}",
                              type_name(stats)));
    if (PyDict_Size(stats) == 0)
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
    if (!PyUnicode_Check(s)) return fail(fmt::format("expected a {} string, found {}", what, type_name(s)));
    Ref bytes(PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass"));
    if (!bytes.o) {
      PyErr_Clear();
      return fail(fmt::format("cannot encode a {} as UTF-8", what));
    }
    return p_.strings.intern(
        std::string_view(PyBytes_AsString(bytes.o), static_cast<std::size_t>(PyBytes_Size(bytes.o))));
  }

  Expected<std::int64_t> integer(PyObject* o, std::string_view what) {
    if (!PyLong_Check(o)) return fail(fmt::format("expected {} (an int), found {}", what, type_name(o)));
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) return overflow > 0 ? INT64_MAX : INT64_MIN;
    return static_cast<std::int64_t>(v);
  }

  Expected<double> number(PyObject* o, std::string_view what) {
    if (PyFloat_Check(o)) return PyFloat_AsDouble(o);
    if (PyLong_Check(o)) {
      double v = PyLong_AsDouble(o);
      if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return fail(fmt::format("expected {} (a number), found an int too large", what));
      }
      return v;
    }
    return fail(fmt::format("expected {} (a number), found {}", what, type_name(o)));
  }

  Expected<std::uint32_t> read_key(PyObject* k) {
    if (!PyTuple_Check(k) || PyTuple_Size(k) != 3)
      return fail(fmt::format("expected a function key (filename, line, name), found {}", type_name(k)));
    pstats::Key key;
    auto file = text(item(k, 0), "filename");
    if (!file) return file.error();
    key.file = *file;
    auto line = integer(item(k, 1), "a line number");
    if (!line) return line.error();
    key.line = *line;
    PyObject* name = item(k, 2);
    if (type_name(name) == "code") {
      // The pure-Python profiler's keys: labelled as the pstats reader
      // labels them, the code object kept (marshalled) for the pstats writer.
      Ref co_name_o(PyObject_GetAttrString(name, "co_name")), co_file_o(PyObject_GetAttrString(name, "co_filename")),
          co_line_o(PyObject_GetAttrString(name, "co_firstlineno"));
      if (!co_name_o.o || !co_file_o.o || !co_line_o.o) {
        PyErr_Clear();
        return fail("expected a code object with co_name, co_filename and co_firstlineno");
      }
      auto co_name = text(co_name_o.o, "code name");
      auto co_file = text(co_file_o.o, "code filename");
      auto co_line = integer(co_line_o.o, "a code line number");
      if (!co_name || !co_file || !co_line)
        return !co_name ? co_name.error() : !co_file ? co_file.error() : co_line.error();
      key.name = p_.strings.intern(pstats::code_object_label(p_.str(*co_name), p_.str(*co_file), *co_line));
      Ref marshal(PyImport_ImportModule("marshal"));
      Ref blob(marshal.o ? PyObject_CallMethod(marshal.o, "dumps", "Oi", name, 2) : nullptr);
      if (blob.o && PyBytes_Check(blob.o))
        key.code = p_.strings.intern(
            std::string_view(PyBytes_AsString(blob.o), static_cast<std::size_t>(PyBytes_Size(blob.o))));
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
    if (!PyTuple_Check(v) || PyTuple_Size(v) != 5)
      return fail(fmt::format("expected function stats (cc, nc, tt, ct, callers), found {}", type_name(v)));
    auto cc = integer(item(v, 0), "a primitive call count");
    auto nc = integer(item(v, 1), "a call count");
    auto tt = number(item(v, 2), "an internal time");
    auto ct = number(item(v, 3), "a cumulative time");
    if (!cc) return cc.error();
    if (!nc) return nc.error();
    if (!tt) return tt.error();
    if (!ct) return ct.error();
    PyObject* callers = item(v, 4);
    if (!PyDict_Check(callers)) return fail(fmt::format("expected a callers dict, found {}", type_name(callers)));
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
      if (!PyTuple_Check(cv) || PyTuple_Size(cv) == 0 || PyTuple_Size(cv) % 4 != 0)
        return fail(fmt::format("expected caller stats (nc, cc, tt, ct), found {}", type_name(cv)));
      for (Py_ssize_t i = 0; i < PyTuple_Size(cv); ++i) {
        PyObject* x = item(cv, i);
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
