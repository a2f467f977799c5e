// Shell completion for graphgen (`graphgen --completion bash|zsh`, which
// the build writes and cmake --install puts where bash-completion and zsh
// look): option names, the values of options with a fixed set (-T and -f's
// formats, -c's colour maps, --sort's keys ...), files for files, and
// `run`'s own options after `graphgen run`. Made from pipeline/options.h,
// so it never disagrees with --help-all.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace graphgen::cli {

/// The script for `shell` ("bash" or "zsh"), or nothing for another shell.
std::optional<std::string> completion_script(std::string_view shell);

}  // namespace graphgen::cli
