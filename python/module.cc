// graphgen._graphgen, the extension of the `graphgen` Python package
// (python/graphgen/: the package re-exports it, and holds the IPython magic
// and `python3 -m graphgen`): graphgen's library through CPython's stable
// ABI (no binding generator: the surface is five functions and one type).
//
//   graphgen.render(source, path=None, format=None, **options) -> bytes | None
//   graphgen.graph(source, **options) -> Graph   (_repr_svg_/_repr_png_ for notebooks)
//   graphgen.merge(paths) -> bytes               (a pstats file, as pstats.Stats merges)
//   graphgen.to_callgrind(source, **options) -> bytes
//
// `source` is a cProfile.Profile (or profile.Profile), a pstats.Stats, a
// path or a list of paths (several files merge). Options are the command
// line's long options with '_' for '-': node_thres=1, colormap="gray",
// root="app:*:main", node_label=["self-time"], paths=[...] for -p, and
// input_format="callgrind" for -f. Errors raise ValueError (the input or
// the options) or OSError (files) with graphgen's one-line message; the
// GIL is released while graphgen works.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bridge.h"
#include "options.h"
#include "pipeline.h"
#include "regex.h"
#include "registry.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif

namespace {

using namespace graphgen;

struct Ref {
  PyObject* o;
  explicit Ref(PyObject* x = nullptr) : o(x) {}
  ~Ref() { Py_XDECREF(o); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* release() {
    PyObject* x = o;
    o = nullptr;
    return x;
  }
};

// Sets the Python exception for a graphgen error; returns null.
PyObject* raise(const Error& e) {
  PyErr_SetString(e.kind == Error::Kind::kIo ? PyExc_OSError : PyExc_ValueError, one_line(e.message).c_str());
  return nullptr;
}

// A str as UTF-8 (the stable ABI has PyUnicode_AsUTF8 only from 3.10);
// nothing, with the exception set, for what is not a str or not encodable.
std::optional<std::string> utf8(PyObject* s) {
  Ref bytes(PyUnicode_AsUTF8String(s));
  if (!bytes.o) return std::nullopt;
  return std::string(PyBytes_AsString(bytes.o), static_cast<std::size_t>(PyBytes_Size(bytes.o)));
}

// --- sources ------------------------------------------------------------------

// What a source is: paths to read, or a stats dict already in memory.
struct Source {
  std::vector<std::string> paths;
  std::optional<Profile> profile;  // from a live profiler or a pstats.Stats
};

bool path_of(PyObject* o, std::string& out) {
  Ref fspath(PyOS_FSPath(o));
  if (!fspath.o) {
    PyErr_Clear();
    return false;
  }
  Ref bytes;
  if (PyUnicode_Check(fspath.o)) {
    bytes.o = PyUnicode_EncodeFSDefault(fspath.o);
  } else if (PyBytes_Check(fspath.o)) {
    Py_INCREF(fspath.o);
    bytes.o = fspath.o;
  }
  if (!bytes.o) {
    PyErr_Clear();
    return false;
  }
  out.assign(PyBytes_AsString(bytes.o), static_cast<std::size_t>(PyBytes_Size(bytes.o)));
  return true;
}

// False with a Python exception set when the source is none of the kinds.
bool read_source(PyObject* source, Source& out) {
  std::string path;
  if (path_of(source, path)) {
    out.paths.push_back(path);
    return true;
  }
  if (PyList_Check(source) || PyTuple_Check(source)) {
    for (Py_ssize_t i = 0; i < PySequence_Size(source); ++i) {
      Ref one(PySequence_GetItem(source, i));
      if (!one.o) return false;
      if (!path_of(one.o, path)) {
        PyErr_Format(PyExc_TypeError, "expected paths in the list of sources, found %s",
                     python::type_name(one.o).c_str());
        return false;
      }
      out.paths.push_back(path);
    }
    if (out.paths.empty()) {
      PyErr_SetString(PyExc_ValueError, "expected at least one path, found an empty list");
      return false;
    }
    return true;
  }
  // A live profiler: its stats as pstats.Stats(profile) takes them.
  if (PyObject_HasAttrString(source, "create_stats") && PyObject_HasAttrString(source, "enable")) {
    Ref done(PyObject_CallMethod(source, "create_stats", nullptr));
    if (!done.o) return false;
  }
  Ref stats(PyObject_GetAttrString(source, "stats"));
  if (!stats.o || !PyDict_Check(stats.o)) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "expected a cProfile.Profile, a pstats.Stats, a path or a list of paths, found %s",
                 python::type_name(source).c_str());
    return false;
  }
  auto profile = python::profile_from_stats(stats.o, "the " + python::type_name(source));
  if (!profile) {
    raise(profile.error());
    return false;
  }
  out.profile = std::move(profile).value();
  return true;
}

// --- options --------------------------------------------------------------------

// The keyword options as settings, checked by make_options() as the
// CLI's are, so names, checks and messages are the same. A keyword is an
// option's long name with '_' for '-' (paths and input_format are the
// names of -p and -f); True gives a flag, a list repeats an option.
std::optional<pipeline::Request> request_of(PyObject* kwargs, const Source& source, const std::string& output,
                                            const std::string& format) {
  pipeline::Settings settings;
  if (kwargs) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      const std::optional<std::string> name = utf8(key);
      if (!name) return std::nullopt;
      std::string option = *name == "paths" ? "path" : *name == "input_format" ? "format" : *name;
      for (char& c : option)
        if (c == '_') c = '-';
      const pipeline::OptionSpec* spec = pipeline::find_option(option);
      if (spec && !(spec->front_ends & pipeline::kPython)) {
        PyErr_Format(PyExc_TypeError, "%s is not an option of graphgen's Python functions", name->c_str());
        return std::nullopt;
      }
      auto push = [&](PyObject* v) -> bool {
        if (v == Py_None || v == Py_False) return true;
        if (v == Py_True || (spec && spec->kind == pipeline::OptionKind::kFlag)) {
          int on = PyObject_IsTrue(v);
          if (on < 0) return false;
          if (on) settings.emplace_back(option, "true");
          return true;
        }
        Ref text(PyObject_Str(v));
        const std::optional<std::string> value_text = text.o ? utf8(text.o) : std::nullopt;
        if (!value_text) return false;
        settings.emplace_back(option, *value_text);
        return true;
      };
      if (PyList_Check(value) || PyTuple_Check(value)) {
        for (Py_ssize_t i = 0; i < PySequence_Size(value); ++i) {
          Ref one(PySequence_GetItem(value, i));
          if (!one.o || !push(one.o)) return std::nullopt;
        }
      } else if (!push(value)) {
        return std::nullopt;
      }
    }
  }
  if (!format.empty()) settings.emplace_back("to", format);
  if (!output.empty()) settings.emplace_back("output", output);
  if (source.paths.empty())
    settings.emplace_back("input", "-");  // a profile in memory: no input is read
  else
    for (const std::string& path : source.paths) settings.emplace_back("input", path);

  Diagnostics diag;
  auto options = pipeline::make_options(settings, diag);
  if (!options) {
    raise(options.error());
    return std::nullopt;
  }
  for (const std::string& w : diag.warnings())
    if (PyErr_WarnEx(PyExc_UserWarning, one_line(w).c_str(), 1) < 0) return std::nullopt;
  pipeline::Request request = std::move(options->request);
  if (source.profile) request.write.title = request.write.cmd = "Python profile";
  return request;
}

// Runs the conversion without the GIL; warnings become Python warnings.
PyObject* convert(Source& source, const pipeline::Request& request, std::string& out) {
  Diagnostics diag;
  std::optional<Error> error;
  Py_BEGIN_ALLOW_THREADS;
  if (source.profile) {
    pipeline::Output o;
    auto ok = pipeline::convert_profile(std::move(*source.profile), formats::cprofile_format(), request, diag, o);
    if (ok)
      out = std::move(o.bytes);
    else
      error = ok.error();
  } else {
    auto o = pipeline::convert(request, diag);
    if (o)
      out = std::move(o->bytes);
    else
      error = o.error();
  }
  Py_END_ALLOW_THREADS;
  for (const std::string& w : diag.warnings())
    if (PyErr_WarnEx(PyExc_UserWarning, one_line(w).c_str(), 1) < 0) return nullptr;
  if (error) return raise(*error);
  Py_RETURN_NONE;
}

// The bytes a source and options give in `format` (empty: from `path`).
PyObject* convert_to(PyObject* source_obj, PyObject* kwargs, const std::string& path, const std::string& format,
                     std::string& out) {
  Source source;
  if (!read_source(source_obj, source)) return nullptr;
  auto request = request_of(kwargs, source, path.empty() ? "" : path, format);
  if (!request) return nullptr;
  return convert(source, *request, out);
}

PyObject* bytes_of(const std::string& s) {
  return PyBytes_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

// Text outputs as str (a notebook showed b'...'); a byte of a name that is
// not UTF-8 (callgrind keeps names as they were) survives as a surrogate.
PyObject* text_of(const std::string& s) {
  return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
}

PyObject* output_of(const std::string& s, const std::string& format) {
  const formats::OutputFormat* f = formats::find_output_format(format);
  return f && formats::is_text(*f) ? text_of(s) : bytes_of(s);
}

// --- functions -------------------------------------------------------------------

PyObject* py_render(PyObject*, PyObject* args, PyObject* kwargs) {
  PyObject *source = nullptr, *path = Py_None, *format = Py_None;
  // source, path and format are positional or keywords; the rest are options.
  Ref options(kwargs ? PyDict_Copy(kwargs) : PyDict_New());
  if (!PyArg_ParseTuple(args, "O|OO:render", &source, &path, &format)) return nullptr;
  // (Borrowed from the copy, the values stay owned by kwargs.)
  for (auto [name, slot] : {std::pair{"path", &path}, std::pair{"format", &format}}) {
    if (PyObject* v = PyDict_GetItemString(options.o, name)) {
      *slot = v;
      PyDict_DelItemString(options.o, name);
    }
  }
  std::string out_path, fmt;
  if (path != Py_None && !path_of(path, out_path)) {
    PyErr_SetString(PyExc_TypeError, "path: expected a path or None");
    return nullptr;
  }
  if (format != Py_None) {
    if (!PyUnicode_Check(format)) {
      PyErr_SetString(PyExc_TypeError, "format: expected a format name such as 'png' or None");
      return nullptr;
    }
    const std::optional<std::string> name = utf8(format);
    if (!name) return nullptr;
    fmt = *name;
  }
  if (out_path.empty() && fmt.empty()) fmt = "dot";
  std::string out;
  Ref done(convert_to(source, options.o, out_path, fmt, out));
  if (!done.o) return nullptr;
  if (out_path.empty()) return output_of(out, fmt);
  auto written = write_output(out_path, out);
  if (!written) return raise(written.error());
  Py_RETURN_NONE;
}

PyObject* py_merge(PyObject*, PyObject* args, PyObject* kwargs) {
  PyObject* paths = nullptr;
  static const char* kw[] = {"paths", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:merge", const_cast<char**>(kw), &paths)) return nullptr;
  std::string out;
  Ref done(convert_to(paths, nullptr, "", "pstats", out));
  return done.o ? bytes_of(out) : nullptr;
}

PyObject* py_to_callgrind(PyObject*, PyObject* args, PyObject* kwargs) {
  PyObject* source = nullptr;
  if (!PyArg_ParseTuple(args, "O:to_callgrind", &source)) return nullptr;
  std::string out;
  Ref done(convert_to(source, kwargs, "", "callgrind", out));
  return done.o ? text_of(out) : nullptr;
}

// --- Graph ------------------------------------------------------------------------

struct GraphObject {
  PyObject_HEAD std::string* dot;
  std::string* title;
  // What has been rendered, by format: Jupyter asks for HTML, SVG and PNG
  // of every graph it shows, and a big graph's layout takes seconds.
  std::map<std::string, std::string>* rendered;
};

PyObject* render_graph(GraphObject* self, const char* format, bool text) {
#ifdef GRAPHGEN_HAVE_RENDER
  auto cached = self->rendered->find(format);
  if (cached == self->rendered->end()) {
    std::string out;
    std::optional<Error> error;
    Py_BEGIN_ALLOW_THREADS;
    auto r = render::render(*self->dot, format, *self->title);
    if (r)
      out = std::move(r).value();
    else
      error = r.error();
    Py_END_ALLOW_THREADS;
    if (error) return raise(*error);
    cached = self->rendered->emplace(format, std::move(out)).first;
  }
  const std::string& out = cached->second;
  return text ? PyUnicode_DecodeUTF8(out.data(), static_cast<Py_ssize_t>(out.size()), "replace") : bytes_of(out);
#else
  (void)self;
  PyErr_Format(PyExc_RuntimeError, "this graphgen was built without Graphviz: no %s; use .dot", format);
  return nullptr;
#endif
}

PyObject* graph_svg(PyObject* self, PyObject*) {
  return render_graph(reinterpret_cast<GraphObject*>(self), "svg", true);
}
// The SVG element alone, for Jupyter: an XML declaration inside the
// notebook's HTML broke jupyter nbconvert --to html (lxml refuses text
// with an encoding declaration).
PyObject* graph_inline_svg(PyObject* self, PyObject*) {
  Ref svg(render_graph(reinterpret_cast<GraphObject*>(self), "svg", true));
  if (!svg.o) return nullptr;
  Ref at(PyObject_CallMethod(svg.o, "find", "s", "<svg"));
  if (!at.o) return nullptr;
  const Py_ssize_t from = PyLong_AsSsize_t(at.o);
  if (from <= 0) return svg.release();
  return PyUnicode_Substring(svg.o, from, PyUnicode_GetLength(svg.o));
}

PyObject* graph_png(PyObject* self, PyObject*) {
  return render_graph(reinterpret_cast<GraphObject*>(self), "png", false);
}

PyObject* graph_save(PyObject* self, PyObject* args) {
  PyObject* path_obj;
  if (!PyArg_ParseTuple(args, "O:save", &path_obj)) return nullptr;
  std::string path;
  if (!path_of(path_obj, path)) {
    PyErr_SetString(PyExc_TypeError, "save: expected a path");
    return nullptr;
  }
  Diagnostics diag;
  auto format = pipeline::resolve_output_format("", path, diag);
  if (!format) return raise(format.error());
  auto* g = reinterpret_cast<GraphObject*>(self);
  std::string bytes;
  if ((*format)->rendered) {
    Ref image(render_graph(g, std::string((*format)->name).c_str(), false));
    if (!image.o) return nullptr;
    bytes.assign(PyBytes_AsString(image.o), static_cast<std::size_t>(PyBytes_Size(image.o)));
  } else if ((*format)->name == "dot") {
    bytes = *g->dot;
  } else {
    PyErr_Format(PyExc_ValueError, "save: a graph is written as dot or an image, not %s",
                 std::string((*format)->name).c_str());
    return nullptr;
  }
  auto written = write_output(path, bytes);
  if (!written) return raise(written.error());
  Py_RETURN_NONE;
}

PyObject* graph_get_dot(PyObject* self, void*) {
  const std::string& dot = *reinterpret_cast<GraphObject*>(self)->dot;
  return PyUnicode_DecodeUTF8(dot.data(), static_cast<Py_ssize_t>(dot.size()), "replace");
}

PyObject* graph_repr(PyObject* self) {
  return PyUnicode_FromFormat("<graphgen.Graph of %s>", reinterpret_cast<GraphObject*>(self)->title->c_str());
}

void graph_dealloc(PyObject* self) {
  auto* g = reinterpret_cast<GraphObject*>(self);
  delete g->dot;
  delete g->title;
  delete g->rendered;
  PyTypeObject* type = Py_TYPE(self);
  reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free))(self);
  Py_DECREF(type);
}

PyMethodDef kGraphMethods[] = {
    {"svg", graph_svg, METH_NOARGS, "The graph as SVG text (with tooltips)."},
    {"png", graph_png, METH_NOARGS, "The graph as PNG bytes."},
    {"save", graph_save, METH_VARARGS,
     "save(path): write the graph, as the name's extension says (.dot, .svg, .png ...)."},
    {"_repr_svg_", graph_inline_svg, METH_NOARGS, "The SVG element, without the XML declaration, for Jupyter."},
    {"_repr_html_", graph_inline_svg, METH_NOARGS,
     "The SVG element as HTML: nbconvert's HTML keeps it whole (its image/svg+xml "
     "cleaning drops every element but <svg> and <a>)."},
    {"_repr_png_", graph_png, METH_NOARGS, "PNG for Jupyter."},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef kGraphGetSet[] = {
    {"dot", graph_get_dot, nullptr, "The graph in Graphviz dot, as gprof2dot writes it.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot kGraphSlots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(graph_dealloc)},
                             {Py_tp_repr, reinterpret_cast<void*>(graph_repr)},
                             {Py_tp_methods, kGraphMethods},
                             {Py_tp_getset, kGraphGetSet},
                             {Py_tp_doc, const_cast<char*>("A call graph: .dot, .svg(), .png(), .save(path); shown "
                                                           "inline by Jupyter.")},
                             {0, nullptr}};

PyType_Spec kGraphSpec = {"graphgen.Graph", sizeof(GraphObject), 0, Py_TPFLAGS_DEFAULT, kGraphSlots};

PyObject* graph_type = nullptr;

PyObject* py_graph(PyObject*, PyObject* args, PyObject* kwargs) {
  PyObject* source = nullptr;
  if (!PyArg_ParseTuple(args, "O:graph", &source)) return nullptr;
  std::string out;
  Ref done(convert_to(source, kwargs, "", "dot", out));
  if (!done.o) return nullptr;
  auto* g = PyObject_New(GraphObject, reinterpret_cast<PyTypeObject*>(graph_type));
  if (!g) return nullptr;
  g->dot = new std::string(std::move(out));
  g->rendered = new std::map<std::string, std::string>;
  std::string title = "a profile";
  if (PyUnicode_Check(source)) {
    if (auto name = utf8(source)) title = *name;
    PyErr_Clear();
  }
  g->title = new std::string(title);
  return reinterpret_cast<PyObject*>(g);
}

// An option's Python keyword: its long name with '_' for '-', paths for -p
// and input_format for -f (request_of() maps them back).
std::string keyword_of(const pipeline::OptionSpec& spec) {
  std::string key = spec.key == "path" ? "paths" : spec.key == "format" ? "input_format" : spec.key;
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

// For %graphgen: every option the magic takes, by each of its names:
// {"-n": ("node_thres", kind), "--node-thres": ...}, kind 0 a flag, 1 a
// value, 2 repeatable; -T and -o as "to" and "output".
PyObject* py_option_specs(PyObject*, PyObject*) {
  Ref out(PyDict_New());
  if (!out.o) return nullptr;
  for (const pipeline::OptionSpec& spec : pipeline::option_specs()) {
    const bool magic_only = spec.key == "to" || spec.key == "output";
    if (spec.key == "input" || (!(spec.front_ends & pipeline::kPython) && !magic_only)) continue;
    const std::string key = keyword_of(spec);
    const int kind = spec.kind == pipeline::OptionKind::kFlag ? 0 : spec.kind == pipeline::OptionKind::kList ? 2 : 1;
    for (const std::string& name : spec.name_list(pipeline::kPython)) {
      Ref value(Py_BuildValue("(si)", key.c_str(), kind));
      if (!value.o || PyDict_SetItemString(out.o, name.c_str(), value.o) < 0) return nullptr;
    }
  }
  return out.release();
}

// For python3 -m graphgen run: the file ending of an output format
// ("pstats": ".pstats"), named after the script when -o is not given.
PyObject* py_output_extension(PyObject*, PyObject* args) {
  const char* name = nullptr;
  if (!PyArg_ParseTuple(args, "s:_output_extension", &name)) return nullptr;
  const formats::OutputFormat* f = formats::find_output_format(name);
  if (!f || f->extensions.empty()) {
    PyErr_Format(PyExc_ValueError, "no output format %s", name);
    return nullptr;
  }
  const std::string ending(f->extensions[0]);
  return PyUnicode_FromStringAndSize(ending.data(), static_cast<Py_ssize_t>(ending.size()));
}

// The keyword options, for the functions' docstrings: each with its
// command-line names and help.
std::string options_doc() {
  std::string doc = "\n\nOptions (graphgen's long options, '_' for '-'; True for a flag, a list to repeat one):\n";
  for (const pipeline::OptionSpec& spec : pipeline::option_specs()) {
    if (spec.key == "input" || !(spec.front_ends & pipeline::kPython)) continue;
    doc += "  " + keyword_of(spec) + " (" + spec.names + "): " + spec.help + "\n";
  }
  return doc;
}

PyMethodDef kMethods[] = {
    {"render", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_render)), METH_VARARGS | METH_KEYWORDS,
     "render($module, source, /, path=None, format=None, **options)\n--\n\n"
     "The call graph (or any graphgen output) of a cProfile.Profile, pstats.Stats, path or list of paths. "
     "Without a path: the output, str for text formats (dot, svg, html, stats, callgrind, folded ...) and bytes "
     "for the others (png, pdf, pstats, pprof); with one, it is written there (its name gives the format unless "
     "format= does) and None returned."},
    {"graph", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_graph)), METH_VARARGS | METH_KEYWORDS,
     "graph($module, source, /, **options)\n--\n\n"
     "The call graph of a source, as a Graph: .dot, .svg(), .png(), .save(path); shown inline in Jupyter."},
    {"merge", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_merge)), METH_VARARGS | METH_KEYWORDS,
     "merge($module, /, paths)\n--\n\nOne pstats file (bytes) of several, as pstats.Stats merges them."},
    {"to_callgrind", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_to_callgrind)),
     METH_VARARGS | METH_KEYWORDS,
     "to_callgrind($module, source, /, **options)\n--\n\nThe source as callgrind text, for KCacheGrind."},
    {"_option_specs", py_option_specs, METH_NOARGS, "_option_specs($module, /)\n--\n\nOptions by name, for %graphgen."},
    {"_output_extension", py_output_extension, METH_VARARGS,
     "_output_extension($module, format, /)\n--\n\nThe file ending of an output format."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT,
                       "graphgen._graphgen",
                       "graphgen: call graphs and reports of profiles, from Python (see help(graphgen.render)).",
                       -1,
                       kMethods,
                       nullptr,
                       nullptr,
                       nullptr,
                       nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__graphgen() {
  python::install_python_regex();
  // The options' help in the docstrings (help(graphgen.render)).
  // (render, graph and to_callgrind take options; once per process.)
  static const bool documented = [] {
    static std::string docs[3];
    const std::string options = options_doc();
    int k = 0;
    for (int i : {0, 1, 3}) {
      docs[k] = std::string(kMethods[i].ml_doc) + options;
      kMethods[i].ml_doc = docs[k++].c_str();
    }
    return true;
  }();
  (void)documented;
  Ref module(PyModule_Create(&kModule));
  if (!module.o) return nullptr;
  graph_type = PyType_FromSpec(&kGraphSpec);
  if (!graph_type) return nullptr;
  Py_INCREF(graph_type);
  if (PyModule_AddObject(module.o, "Graph", graph_type) < 0) return nullptr;
  if (PyModule_AddStringConstant(module.o, "__version__", GRAPHGEN_VERSION) < 0) return nullptr;
  return module.release();
}
