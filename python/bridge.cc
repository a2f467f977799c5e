#include "bridge.h"

#include <fmt/format.h>
#include <marshal.h>

#include <string>
#include <vector>

#include "graphgen/flat_index.h"

namespace graphgen::python {

namespace {

constexpr std::uint32_t kUnset = UINT32_MAX;

struct Key {
  StringId file = kNoString, name = kNoString, code = kNoString;
  std::int64_t line = 0;
  friend bool operator==(const Key&, const Key&) = default;
};

class Converter {
 public:
  Converter(Profile& p, std::string_view what) : p_(p), what_(what) {}

  Expected<bool> run(PyObject* stats) {
    if (!PyDict_Check(stats))
      return fail(fmt::format("expected a stats dict {{(file, line, name): (cc, nc, tt, ct, callers)}}, found {}",
                              Py_TYPE(stats)->tp_name));
    if (PyDict_GET_SIZE(stats) == 0)
      return fail("expected at least one function, found an empty stats dict (was the profiler ever enabled?)");
    p_.events.push_back({p_.strings.intern("time"), p_.strings.intern("s"), 1.0, true, kNoString});
    p_.label_style = LabelStyle::kPython;
    p_.reports_totals = true;
    p_.keeps_call_self = true;
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
    Key key;
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
      key.name = p_.strings.intern(fmt::format("<code object {}, file \"{}\", line {}>", p_.str(*co_name),
                                               p_.str(*co_file), code->co_firstlineno));
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
    return index_.find_or_add(
        FlatIndex::mix(FlatIndex::mix(key.file, key.name, key.code), static_cast<std::uint64_t>(key.line)),
        [&](std::uint32_t i) { return keys_[i] == key; },
        [&] {
          keys_.push_back(key);
          function_of_.push_back(kUnset);
          return static_cast<std::uint32_t>(keys_.size() - 1);
        });
  }

  // gprof2dot's numbering: a key's function is made when first met.
  FuncId function(std::uint32_t key) {
    FuncId& f = function_of_[key];
    if (f != kUnset) return f;
    const Key& k = keys_[key];
    Function fn;
    fn.name = k.name;
    fn.file = k.file;
    fn.line = k.line;
    fn.code = k.code;
    f = p_.add_function(fn);
    return f;
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
    FuncId callee = function(*key);
    p_.listed.push_back(callee);
    Function& fn = p_.functions[callee];
    fn.calls = *nc;
    fn.primitive_calls = *cc;
    p_.self(callee, 0) = float_cost(*tt);
    p_.total(callee, 0) = float_cost(*ct);
    Py_ssize_t pos = 0;
    PyObject *ck, *cv;
    while (PyDict_Next(callers, &pos, &ck, &cv)) {
      auto caller_key = read_key(ck);
      if (!caller_key) return caller_key.error();
      FuncId caller = function(*caller_key);
      if (PyLong_Check(cv)) {  // the pure-Python profiler: a call count
        auto n = integer(cv, "a caller call count");
        if (!n) return n.error();
        CallId c = p_.add_call({caller, callee, *n, kUnknownCount});
        p_.call_costs_from_counts = true;
        p_.inclusive(c, 0) = p_.along(c, 0) = float_cost(0.0);
        continue;
      }
      if (!PyTuple_Check(cv) || PyTuple_GET_SIZE(cv) == 0 || PyTuple_GET_SIZE(cv) % 4 != 0)
        return fail(fmt::format("expected caller stats (nc, cc, tt, ct), found {}", Py_TYPE(cv)->tp_name));
      std::int64_t count = 0, primitive = 0;
      double along = 0, inclusive = 0;
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cv); ++i) {
        PyObject* x = PyTuple_GET_ITEM(cv, i);
        if (i % 4 < 2) {
          auto n = integer(x, "a caller call count");
          if (!n) return n.error();
          (i % 4 == 0 ? count : primitive) = saturating_add(i % 4 == 0 ? count : primitive, *n);
        } else {
          auto t = number(x, "a caller time");
          if (!t) return t.error();
          double& into = i % 4 == 2 ? along : inclusive;
          into = i < 4 ? *t : into + *t;
        }
      }
      CallId c = p_.add_call({caller, callee, count, primitive});
      p_.along(c, 0) = float_cost(along);
      p_.inclusive(c, 0) = float_cost(inclusive);
    }
    return true;
  }

  Profile& p_;
  std::string_view what_;
  std::vector<Key> keys_;
  std::vector<FuncId> function_of_;
  FlatIndex index_;
};

}  // namespace

Expected<Profile> profile_from_stats(PyObject* stats, std::string_view what) {
  Profile p;
  Converter converter(p, what);
  if (auto ok = converter.run(stats); !ok) return ok.error();
  return p;
}

}  // namespace graphgen::python
