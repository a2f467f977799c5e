// The mixed Python/C view of perf samples (python -X perf, -X perf_jit).
//
// Python 3.12+ names each Python function's trampoline `py::NAME:FILE` in
// the perf map (or the jitdump), so `perf script` prints Python functions
// between the interpreter's own frames:
//
//   deflate (libz) <- zlib_compress <- _PyEval_EvalFrameDefault
//     <- py::compress:work.py <- py_trampoline_evaluator <- PyObject_Vectorcall
//     <- _PyEval_EvalFrameDefault <- py::main:work.py <- ... <- Py_BytesMain
//
// In a sample that holds a Python frame, the view drops the interpreter
// frames below (kInterpreterFrames, anywhere in the stack) and unresolved
// addresses above its innermost Python frame, so their cost goes to the
// Python frame above: a Python function's children are the Python functions
// and the C functions it really called (Arm MAP's view).
#pragma once

#include <string_view>

namespace graphgen::perf {

/// Frames of CPython's evaluation loop, call machinery and start-up, by
/// exact name; a name ending in '*' is a prefix.
inline constexpr std::string_view kInterpreterFrames[] = {
    // The evaluation loop and the perf trampoline.
    "_PyEval_*",
    "PyEval_EvalCode",
    "PyEval_EvalCodeEx",
    "PyEval_EvalFrame",
    "PyEval_EvalFrameEx",
    "py_trampoline_evaluator",
    // Calling: vectorcall and tp_call glue between a caller and a callee.
    "PyObject_Vectorcall",
    "PyObject_VectorcallDict",
    "PyObject_VectorcallMethod",
    "_PyObject_Vectorcall*",
    "_PyFunction_Vectorcall",
    "PyVectorcall_Call",
    "_PyVectorcall_Call",
    "PyObject_Call",
    "_PyObject_Call",
    "_PyObject_Call_Prepend",
    "PyObject_CallObject",
    "PyObject_CallOneArg",
    "_PyObject_CallNoArgs*",
    "PyObject_CallMethod*",
    "_PyObject_CallMethod*",
    "_PyObject_MakeTpCall",
    "PyCFunction_Call",
    "cfunction_call",
    "cfunction_vectorcall_*",
    "method_vectorcall*",
    "vectorcall_method",
    "vectorcall_unbound",
    "slot_tp_call",
    "slot_tp_init",
    "slot_tp_new",
    "type_call",
    "builtin_exec",
    "builtin_exec_impl",
    // Start-up: running the main module.
    "Py_BytesMain",
    "Py_RunMain",
    "pymain_*",
    "_PyRun_*",
    "PyRun_*",
    "pyrun_*",
    "run_mod",
    "run_eval_code_obj",
};

/// Whether `name` is one of kInterpreterFrames.
inline bool is_interpreter_frame(std::string_view name) {
  for (std::string_view f : kInterpreterFrames) {
    if (f.back() == '*' ? name.starts_with(f.substr(0, f.size() - 1)) : name == f) return true;
  }
  return false;
}

}  // namespace graphgen::perf
