// Large line files read on two cores (folded stacks, DTrace aggregations):
// the bytes cut in two where a record begins near the middle, each part
// read into a profile of its own, one on each core, then the second added
// to the first. add_profile() appends what the second has that the first
// has not, in the second's order, and the costs are integers: the profile
// is the one a single pass gives, string for string and call for call.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::formats {

/// Files larger than this are read in two parts (below it the second
/// thread and the merge cost more than they save).
inline constexpr std::size_t kTwoPartsAbove = std::size_t{8} << 20;

/// Where a reader of sample stacks reads in two parts by default: above
/// kTwoPartsAbove for the outputs that need no stack tree (graphs, tables,
/// pstats, callgrind), never for those that draw it (folded, flame, the
/// report...). Merging the second part's tree took what the second core
/// saved: a 53 MB DTrace aggregation of 150 000 stacks `-T folded` 0.282 s
/// on one core, 0.286 s on two (merge 0.093 s), and 1.4 times the memory.
inline std::size_t two_parts_above(const ReadOptions& options) {
  return options.keep_stacks ? SIZE_MAX : kTwoPartsAbove;
}

/// The bytes one reader reads: the whole file, or one of its two parts.
struct FilePart {
  const InputFile* input = nullptr;
  std::size_t begin = 0, end = 0;
  /// The part's memory budget (0: none): half the file's for each of two
  /// parts, which are held together before the merge.
  std::size_t budget = 0;
  /// Set when the other part failed: the reader gives up where it checks
  /// its budget (what it returns then is not used).
  const std::atomic<bool>* stop = nullptr;

  std::string_view bytes() const { return input->bytes().substr(begin, end - begin); }
  /// The file's line number of the part's line `line` (counted from 1):
  /// the lines before the part are counted here, for a warning's position.
  std::size_t file_line(std::size_t line) const;
  bool stopped() const { return stop != nullptr && stop->load(std::memory_order_relaxed); }
  /// The part's memory budget is spent by `p`, or the other part failed:
  /// for the readers' checks every few thousand lines.
  bool give_up(const Profile& p) const { return stopped() || (budget != 0 && p.approximate_bytes() > budget); }
};

/// Where the first record at or after byte `from` of `bytes` begins, or
/// std::string_view::npos when none does.
using FindRecord = std::function<std::size_t(std::string_view bytes, std::size_t from)>;
/// Reads one part (or the whole file) into a profile of its own.
using ReadPart = std::function<Expected<Profile>(const FilePart& part, Diagnostics& diag)>;

/// `in` read by `read`: whole when it is at most `split_above` bytes or
/// `record` finds no cut, else in two parts on two cores. When a part
/// fails (bad input, past half the budget, out of memory), the file is
/// read again whole on this core: errors, their line numbers and the
/// budget's verdict are a single pass's.
Expected<Profile> read_in_two_parts(const InputFile& in, std::size_t budget, std::size_t split_above,
                                    const FindRecord& record, const ReadPart& read, Diagnostics& diag);

/// A FindRecord for formats whose every line is a record: the start of the
/// line after the first newline at or after `from`.
std::size_t next_line(std::string_view bytes, std::size_t from);

}  // namespace graphgen::formats
