// `perf script` text output (docs/formats.md §5.1-5.4).
//
// Grammar:
//   sample  := header '\n' frame* ('\n' | next header)
//   header  := comm [pid | pid/tid] ['[' cpu ']'] [time ':'] [[period] event ':'] [rest]
//              (anchored at the time, else at the event after pid/cpu, else
//               at the last pid/cpu column the rest can follow: comm may hold
//               spaces or be one character; without -g, `rest` is one frame:
//               ip sym (dso); older perf and -F selections print no time,
//               `-F comm,tid,ip,sym,dso` neither time nor event)
//   frame   := '\t' hex-address ' ' symbol['+0x'offset] ' (' dso ')'
//   srcline := two spaces, then text (perf script -F +srcline), ignored
//   comment := '#' ...
// Frames are innermost first. Function identity is (symbol, dso), as in
// gprof2dot; `[unknown]` symbols are named by their address.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::perf {

/// Files larger than this are split at a sample boundary and read on two
/// cores; the result is the same as reading them whole. (4 MiB, as
/// callgrind's: from 6 MB up, two parts took 0.63-0.83x the time of one,
/// the files of many distinct stacks gaining most; at 32 MiB, files of
/// 4-32 MiB were read on one core while the other waited.)
inline constexpr std::size_t kSplitAbove = std::size_t{4} << 20;

/// True when the head looks like perf script output.
bool sniff(std::string_view head);

/// Reads one perf script file: samples of `options.event` (when empty, of
/// the first sample's event, as stackcollapse-perf.pl keeps them),
/// of the processes `options.pids` / commands `options.comms` (all when
/// empty), each weighing 1 or its period. The thread done first takes the
/// tail of the other's part when that ends them sooner (the other core
/// busy elsewhere). For tests: `split_above`, and `tail_at`, where the
/// second part's tail is taken from (the first sample at or after it;
/// 0: by the threads' speeds).
Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag,
                       std::size_t split_above = kSplitAbove, std::size_t tail_at = 0);

}  // namespace graphgen::perf
