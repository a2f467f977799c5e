#include "graphgen/labels.h"

#include <fmt/format.h>

namespace graphgen {

std::string python_module(std::string_view filename) {
  // os.path.splitext, then os.path.basename.
  std::size_t sep = filename.rfind('/');
  std::size_t dot = filename.rfind('.');
  std::string_view root = filename;
  std::size_t name_start = sep == std::string_view::npos ? 0 : sep + 1;
  if (dot != std::string_view::npos && (sep == std::string_view::npos || dot > sep)) {
    for (std::size_t i = name_start; i < dot; ++i) {
      if (filename[i] != '.') {
        root = filename.substr(0, dot);
        break;
      }
    }
  }
  std::size_t slash = root.rfind('/');
  return std::string(slash == std::string_view::npos ? root : root.substr(slash + 1));
}

std::string label_prefix(const Profile& p, FuncId f) {
  const Function& fn = p.functions[f];
  if (p.label_style == LabelStyle::kPython) return fmt::format("{}:{}:", python_module(p.str(fn.file)), fn.line);
  // perf knows a Python function's file, not its first line.
  if (fn.python) return python_module(p.str(fn.file)) + ':';
  return {};
}

std::string function_label(const Profile& p, FuncId f) {
  return label_prefix(p, f) + std::string(p.str(p.functions[f].name));
}

bool module_line(const Profile& p, FuncId f, std::string& out) {
  const Function& fn = p.functions[f];
  if (p.label_style == LabelStyle::kPython || fn.python) return false;
  // JavaScript's functions are their name, file and line (line_in_identity),
  // and many are all named `(anonymous)`: the file's last part and the line
  // tell them apart, as DevTools' links beside each name do.
  if (p.line_in_identity && !fn.has_object) {
    std::string_view file = p.str(fn.file);
    if (file.empty()) return false;
    if (std::size_t slash = file.rfind('/'); slash != std::string_view::npos && slash + 1 < file.size())
      file.remove_prefix(slash + 1);
    out = fn.line > 0 ? fmt::format("{}:{}", file, fn.line) : std::string(file);
    return true;
  }
  if (!fn.has_object) return false;
  std::string_view object = p.str(fn.object);
  if (p.label_style == LabelStyle::kName) {
    std::size_t slash = object.rfind('/');
    if (slash != std::string_view::npos) object.remove_prefix(slash + 1);
  }
  out.assign(object);
  return true;
}

}  // namespace graphgen
