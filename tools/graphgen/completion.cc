#include "completion.h"

#include <fmt/format.h>

#include <vector>

#include "options.h"

namespace graphgen::cli {

namespace {

using pipeline::FrontEnd;
using pipeline::OptionKind;
using pipeline::OptionSpec;

// Options whose value is a file or folder.
bool takes_a_path(const OptionSpec& s) { return s.key == "output" || s.key == "source-root"; }

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The options of a front end, as words; run's own (-m, --memory) added.
std::string option_words(FrontEnd f) {
  std::vector<std::string> words = {"--help", "--help-all"};
  if (f == pipeline::kGraphgen) words.insert(words.end(), {"--version", "--completion"});
  if (f == pipeline::kRun) words.insert(words.end(), {"-m", "--module", "--memory"});
  for (const OptionSpec& s : pipeline::option_specs())
    if (s.key != "input" && (s.front_ends & f))
      for (const std::string& n : s.name_list(f)) words.push_back(n);
  return joined(words);
}

std::string bash() {
  std::string cases;
  for (const OptionSpec& s : pipeline::option_specs()) {
    if (s.key == "input" || s.kind == OptionKind::kFlag) continue;
    std::vector<std::string> names = s.name_list(pipeline::kGraphgen);
    if (s.key == "sort") names.push_back("-s");  // (graphgen run's)
    std::string pattern;
    for (const std::string& n : names) pattern += (pattern.empty() ? "" : "|") + n;
    if (!s.choices.empty())
      cases +=
          fmt::format("    {}) COMPREPLY=($(compgen -W '{}' -- \"$cur\")); return ;;\n", pattern, joined(s.choices));
    else if (takes_a_path(s))
      cases += fmt::format("    {}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", pattern);
    else
      cases += fmt::format("    {}) return ;;\n", pattern);  // a number, a glob, a name: nothing to offer
  }
  return fmt::format(
      "# bash completion for graphgen (made by graphgen --completion bash)\n"
      "_graphgen() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}\n"
      "  COMPREPLY=()\n"
      "  case $prev in\n"
      "{}"
      "    --completion) COMPREPLY=($(compgen -W 'bash zsh' -- \"$cur\")); return ;;\n"
      "    -m|--module) return ;;\n"
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    if [[ ${{COMP_WORDS[1]}} == run ]]; then\n"
      "      COMPREPLY=($(compgen -W '{}' -- \"$cur\"))\n"
      "    else\n"
      "      COMPREPLY=($(compgen -W '{}' -- \"$cur\"))\n"
      "    fi\n"
      "    return\n"
      "  fi\n"
      "  [[ $COMP_CWORD == 1 ]] && COMPREPLY=($(compgen -W run -- \"$cur\"))\n"
      "  COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
      "}}\n"
      "complete -o filenames -o bashdefault -F _graphgen graphgen\n",
      cases, option_words(pipeline::kRun), option_words(pipeline::kGraphgen));
}

// Help as a zsh _arguments description: its first clause, without the
// characters that spec syntax gives a meaning.
std::string zsh_help(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == ';' || c == '(' || out.size() >= 60) break;
    if (c == '[' || c == ']' || c == ':' || c == '\'' || c == '\\' || c == '`') continue;
    out += c;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  return out;
}

std::string zsh_specs(FrontEnd f) {
  std::string out;
  for (const OptionSpec& s : pipeline::option_specs()) {
    if (s.key == "input" || !(s.front_ends & f)) continue;
    std::string value;
    if (s.kind != OptionKind::kFlag)
      value = !s.choices.empty() ? fmt::format(":{}:({})", s.key, joined(s.choices))
              : takes_a_path(s)  ? fmt::format(":{}:_files", s.key)
                                 : fmt::format(":{}: ", s.key);
    const std::string repeat = s.kind == OptionKind::kList ? "*" : "";
    for (const std::string& n : s.name_list(f))
      out += fmt::format("    '{}{}[{}]{}' \\\n", repeat, n, zsh_help(s.help), value);
  }
  return out;
}

std::string zsh() {
  return fmt::format(
      "#compdef graphgen\n"
      "# zsh completion for graphgen (made by graphgen --completion zsh)\n"
      "_graphgen() {{\n"
      "  if [[ $words[2] == run ]]; then\n"
      "    shift words; (( CURRENT-- ))\n"
      "    _arguments -S \\\n"
      "{}"
      "    '(-m --module)'{{-m,--module}}'[run this module as a script]:module: ' \\\n"
      "    '--memory=-[profile memory with tracemalloc]::frames: ' \\\n"
      "    '*::script and its arguments:_files'\n"
      "    return\n"
      "  fi\n"
      "  _arguments -S \\\n"
      "{}"
      "    '--completion[print this completion script]:shell:(bash zsh)' \\\n"
      "    '*:profile:_files'\n"
      "}}\n"
      "_graphgen \"$@\"\n",
      zsh_specs(pipeline::kRun), zsh_specs(pipeline::kGraphgen));
}

}  // namespace

std::optional<std::string> completion_script(std::string_view shell) {
  if (shell == "bash") return bash();
  if (shell == "zsh") return zsh();
  return std::nullopt;
}

}  // namespace graphgen::cli
