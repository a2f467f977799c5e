// The one explicit table of formats: names, extensions, sniffers, readers
// and writers. No self-registration: adding a format means adding a row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::formats {

/// What readers of sampling formats need to know.
struct ReadOptions {
  /// perf: keep only samples of this event (empty: all, as gprof2dot).
  std::string event;
  /// perf: weigh each sample by its period instead of counting it once.
  bool weight_by_period = false;
  /// callgrind: identify functions by name alone, as gprof2dot does (merges
  /// same-named functions of different objects).
  bool merge_by_name = false;
};

/// How sure a sniffer is that the bytes are its format.
enum class Confidence { kNo = 0, kWeak = 1, kStrong = 2 };

struct InputFormat {
  std::string_view name;
  std::string_view description;
  std::vector<std::string_view> extensions;  // with the dot, e.g. ".pstats"
  Confidence (*sniff)(std::string_view head);
  /// Reads one or more files of this format into one merged profile.
  Expected<Profile> (*read)(const std::vector<InputFile>& inputs, const ReadOptions& options, Diagnostics& diag);
  /// Formats that can be written back exactly (pstats) convert directly,
  /// without the model's rounding; null for the others.
  Expected<std::string> (*to_pstats)(const std::vector<InputFile>& inputs, Diagnostics& diag) = nullptr;
  /// Formats with a text report of their own (line_profiler); null for the others.
  Expected<std::string> (*to_text)(const std::vector<InputFile>& inputs, double output_unit, bool skip_zero) = nullptr;
};

const std::vector<InputFormat>& input_formats();
const InputFormat* find_input_format(std::string_view name);
std::vector<std::string_view> input_format_names();

/// Picks the format from the bytes (strongest sniffer wins; the extension
/// only breaks ties). Error when nothing recognises the file.
Expected<const InputFormat*> detect_input_format(const InputFile& input);

struct OutputFormat {
  enum class Kind { kDot, kImage, kCallgrind, kPstats, kText };
  std::string_view name;
  std::string_view description;
  std::vector<std::string_view> extensions;
  Kind kind;
  bool rendered() const { return kind == Kind::kImage; }
  bool graph() const { return kind == Kind::kDot || kind == Kind::kImage; }
};

const std::vector<OutputFormat>& output_formats();
const OutputFormat* find_output_format(std::string_view name);
/// The output format an output path implies, or null.
const OutputFormat* output_format_for_path(std::string_view path);
std::vector<std::string_view> output_format_names();

}  // namespace graphgen::formats
