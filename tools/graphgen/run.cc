#include "run.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "bridge.h"
#include "graphgen/io.h"
#include "interpreter.h"
#include "pipeline.h"
#include "regex.h"
#include "registry.h"

namespace graphgen::cli {

namespace {

using python::Ref;

// What `python3 -m cProfile script.py` runs (Lib/cProfile.py's main), with
// what `python3 script.py` does besides: __main__ is a real module (so
// multiprocessing's spawn finds the script's functions), sys.path[0] is the
// script's folder (the working folder for -m), -m runs as `python3 -m`
// does (alter_sys), the exit status of SystemExit is kept and an uncaught
// exception is printed as Python prints it, without these frames.
constexpr const char* kBootstrap = R"PY(
def _graphgen_run(module, argv, memory):
    import cProfile, os, runpy, sys, types
    sys.argv[:] = argv
    if module:
        sys.path.insert(0, os.getcwd())
        # As python3 -m: the module is found before it runs (its packages
        # imported), and a missing one is one line, not a traceback.
        import importlib.util
        try:
            spec = importlib.util.find_spec(module)
            if spec is not None and spec.submodule_search_locations is not None:
                if importlib.util.find_spec(module + '.__main__') is None:
                    sys.stderr.write("graphgen run: No module named %s.__main__; %r is a package and cannot be "
                                     "directly executed\n" % (module, module))
                    return None, 1
        except (ImportError, ValueError) as e:
            sys.stderr.write("graphgen run: Error while finding module specification for %r (%s: %s)\n"
                             % (module, type(e).__name__, e))
            return None, 1
        if spec is None:
            sys.stderr.write("graphgen run: No module named %s\n" % module)
            return None, 1
        code = "run_module(modname, run_name='__main__', alter_sys=True)"
        globs = {'run_module': runpy.run_module, 'modname': module}
    else:
        progname = argv[0]
        sys.path.insert(0, os.path.dirname(os.path.abspath(progname)))
        try:
            with open(progname, 'rb') as fp:
                source = fp.read()
        except OSError as e:
            sys.stderr.write("graphgen run: can't open file %r: [Errno %d] %s\n" % (progname, e.errno, e.strerror))
            return None, 2
        try:
            code = compile(source, progname, 'exec')
        except SyntaxError:
            sys.excepthook(*_graphgen_trimmed(sys.exc_info()))
            return None, 1
        main = types.ModuleType('__main__')
        main.__dict__.update({'__file__': progname, '__package__': None, '__cached__': None})
        sys.modules['__main__'] = main
        globs = main.__dict__
    prof = None if memory else cProfile.Profile()
    status = 0
    failure = None
    try:
        if memory:
            import tracemalloc
            tracemalloc.start(memory)
            exec(code, globs)
        else:
            prof.runctx(code, globs, None)
    except SystemExit as e:
        if e.code is None:
            status = 0
        elif isinstance(e.code, int):
            status = e.code
        else:
            sys.stderr.write('%s\n' % (e.code,))
            status = 1
    except BaseException:
        failure = sys.exc_info()
        status = 130 if isinstance(failure[1], KeyboardInterrupt) else 1
    if memory:
        result = _graphgen_snapshot()
    else:
        prof.create_stats()
        result = prof.stats
    if failure is not None:
        sys.excepthook(*_graphgen_trimmed(failure))
    try:
        sys.stdout.flush()
    except Exception:
        pass
    return result, status

def _graphgen_snapshot():
    # What is allocated at the program's end, as Snapshot.dump() would
    # write it, without this file's frames (the program's own start from
    # its first line, as under python3).
    import pickle, tracemalloc
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    traces = []
    for trace in snapshot.traces._traces:
        frames = tuple(f for f in trace[2] if f[0] != '<graphgen run>')
        if frames:
            # (total_nframe, from 3.9, counts the frames left out too)
            rest = (trace[3] - (len(trace[2]) - len(frames)),) if len(trace) > 3 else ()
            traces.append(trace[:2] + (frames,) + rest)
    return pickle.dumps(tracemalloc.Snapshot(traces, snapshot.traceback_limit), pickle.HIGHEST_PROTOCOL)

def _graphgen_trimmed(info):
    import cProfile
    kind, value, tb = info
    ours = ('<graphgen run>', cProfile.__file__)
    while tb is not None and tb.tb_frame.f_code.co_filename in ours:
        tb = tb.tb_next
    if value is not None:
        value = value.with_traceback(tb)
    return kind, value, tb
)PY";

// The status of a Python error that escaped the bootstrap (a bug of ours).
int python_failed(const char* what) {
  std::fprintf(stderr, "graphgen run: %s\n", what);
  if (PyErr_Occurred()) PyErr_Print();
  return kExitBadInput;
}

// Runs the program through the bootstrap: its exit status, and its
// profile (cProfile's stats converted) or --memory's pickled snapshot.
// Returns -1, or graphgen's status when the bootstrap itself failed.
int call_bootstrap(const RunTarget& target, int& exit_status, std::optional<Profile>& profile,
                   std::optional<std::string>& snapshot, std::string& snapshot_name) {
  Ref globals(PyDict_New());
  PyDict_SetItemString(globals.o, "__builtins__", PyEval_GetBuiltins());
  Ref code(Py_CompileString(kBootstrap, "<graphgen run>", Py_file_input));
  Ref done(code.o ? PyEval_EvalCode(code.o, globals.o, globals.o) : nullptr);
  PyObject* run = done.o ? PyDict_GetItemString(globals.o, "_graphgen_run") : nullptr;
  if (!run) return python_failed("cannot set up the profiler");
  // sys.argv as cProfile sets it: the script and its arguments, or the
  // module's name and its arguments (runpy then puts the module's file).
  std::vector<std::string> sys_argv = target.argv;
  if (!target.module.empty()) sys_argv.insert(sys_argv.begin(), target.module);
  Ref args(PyList_New(0));
  for (const std::string& s : sys_argv) {
    Ref item(PyUnicode_DecodeFSDefault(s.c_str()));
    PyList_Append(args.o, item.o);
  }
  Ref module(target.module.empty() ? Py_NewRef(Py_None) : PyUnicode_DecodeFSDefault(target.module.c_str()));
  Ref memory(PyLong_FromLong(target.memory_frames));
  Ref result(PyObject_CallFunctionObjArgs(run, module.o, args.o, memory.o, nullptr));
  if (!result.o || !PyTuple_Check(result.o) || PyTuple_GET_SIZE(result.o) != 2)
    return python_failed("the profiler failed");
  exit_status = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(result.o, 1)));
  PyObject* stats = PyTuple_GET_ITEM(result.o, 0);
  const std::string what = target.module.empty() ? target.argv.front() : "-m " + target.module;
  if (stats != Py_None && target.memory_frames > 0) {
    char* bytes = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(stats, &bytes, &size) != 0) return python_failed("the snapshot failed");
    snapshot = std::string(bytes, static_cast<std::size_t>(size));
    snapshot_name = "the memory of " + what;
  } else if (stats != Py_None) {
    auto converted = python::profile_from_stats(stats, "the profile of " + what);
    if (!converted) {
      Py_FinalizeEx();
      return fail(converted.error());
    }
    profile = std::move(converted).value();
  }
  return -1;
}

}  // namespace

int run_python(const pipeline::Settings& settings, const RunTarget& target) {
  name_usage_errors("graphgen run");  // (this is the loaded library's copy of cli.cc, named apart)
  Diagnostics diag;
  auto options = pipeline::make_options(settings, diag);
  report(diag, quiet(settings));
  diag.clear();
  if (!options) return fail(options.error());
  const pipeline::Options& a = *options;
  const pipeline::Request* request = &a.request;
  if (auto checked = check_output_is_not_an_input(a.output, target.argv); !checked) return fail(checked.error());

  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.parse_argv = 0;
  config.install_signal_handlers = 1;
  // The user's Python where it is this version (its venv's packages; see
  // interpreter.h), else the one graphgen was built with. sys.executable is
  // it, so multiprocessing's spawn starts it, and the standard library is
  // found beside it.
  const Interpreter python = choose_interpreter(
      GRAPHGEN_PYTHON_EXECUTABLE, std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION));
  if (!python.note.empty() && !a.quiet) std::fprintf(stderr, "%s\n", python.note.c_str());
#if PY_VERSION_HEX >= 0x030B0000
  // Another installation of this version (pyenv's, a self-built one): its
  // own standard library, not the modules frozen into graphgen's libpython.
  // Debian's frozen `site` looks for dist-packages under that prefix and
  // left its site-packages off sys.path.
  {
    std::error_code ec;
    if (!std::filesystem::equivalent(python.program, GRAPHGEN_PYTHON_EXECUTABLE, ec)) config.use_frozen_modules = 0;
  }
#endif
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, python.program.c_str());
  std::vector<char*> argv;
  for (const std::string& s : target.argv) argv.push_back(const_cast<char*>(s.c_str()));
  std::string module_arg = target.module;
  if (!PyStatus_Exception(status) && !target.module.empty() && argv.empty()) argv.push_back(module_arg.data());
  if (!PyStatus_Exception(status))
    status = PyConfig_SetBytesArgv(&config, static_cast<Py_ssize_t>(argv.size()), argv.data());
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    std::fprintf(stderr, "graphgen run: cannot start Python %s: %s\n", python.program.c_str(),
                 status.err_msg ? status.err_msg : "unknown error");
    return kExitBadInput;
  }

  int exit_status = 0;
  std::optional<Profile> profile;
  std::optional<std::string> snapshot;  // --memory: the pickled tracemalloc snapshot
  std::string snapshot_name;
  if (int failed = call_bootstrap(target, exit_status, profile, snapshot, snapshot_name); failed >= 0) return failed;
  // Waits for the program's other threads and runs its atexit handlers, as
  // Python does on exit; 120 is Python's status when flushing fails there.
  if (Py_FinalizeEx() < 0 && exit_status == 0) exit_status = 120;
  const formats::InputFormat* format = &formats::cprofile_format();
  if (snapshot) {
    // Read as a snapshot file is: the same reader, the same views.
    format = formats::find_input_format("tracemalloc");
    auto read = format->read(InputFile::from_bytes(snapshot_name, std::move(*snapshot)), request->read, diag);
    if (!read) return exit_status ? exit_status : fail(read.error());
    profile = std::move(read).value();
  }
  if (!profile) return exit_status;  // nothing ran: the program's message said why

  pipeline::Output out;
  auto ok = pipeline::convert_profile(std::move(*profile), *format, *request, diag, out);
  report(diag, a.quiet);
  if (!ok) {
    int code = fail(ok.error());
    return exit_status ? exit_status : code;
  }
  std::string path = a.output;
  if (a.kcachegrind) {
    auto temporary = kcachegrind_path(a);
    if (!temporary) return exit_status ? exit_status : fail(temporary.error());
    path = *temporary;
  }
  auto written = write_output(path, out.bytes);
  if (!written) {
    int code = fail(written.error());
    return exit_status ? exit_status : code;
  }
  if (a.kcachegrind) {
    int viewer = open_in_kcachegrind(path, a.output == "-");
    return exit_status ? exit_status : viewer;
  }
  if (!target.chosen_output.empty() && !a.quiet)
    std::fprintf(stderr, "graphgen run: wrote %s (-o FILE for another name, -o - for standard output)%s\n",
                 target.chosen_output.c_str(),
                 target.chosen_output.ends_with(".pstats")
                     ? fmt::format("; graphgen {} -o {}.png draws it", target.chosen_output,
                                   target.chosen_output.substr(0, target.chosen_output.size() - 7))
                           .c_str()
                     : "");
  return exit_status;
}

}  // namespace graphgen::cli
