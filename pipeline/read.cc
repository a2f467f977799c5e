// Reading and merging: each input opened, its format found, read by two
// threads ahead of the merge, folded in merge order (pipeline.h's
// input_format_of, read_share, combine_shares, finish_share,
// read_and_merge).
#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "common/decompress.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/io.h"
#include "graphgen/thread.h"
#include "phases.h"
#include "stats/writer.h"

namespace graphgen::pipeline {

using namespace formats;

namespace {

// One input's place in the merge: what reading it gave.
struct Slot {
  std::optional<Expected<Profile>> result;
  Diagnostics diag;
  std::size_t bytes = 0;
};

// Worker threads read ahead, at most kWindow profiles, while the caller
// folds them in merge order (and reads the next ones itself when none is
// ready), so the result never depends on the threads' timing and memory
// stays bounded however many files there are. One input is read by the
// caller itself.
//
// Small files are taken a run at a time: a reader takes up to kRun
// consecutive inputs and hands them over together, and each side wakes the
// other only when it waits. Handing over each of 10 000 rank files of 2 KB
// apart cost a sleep and a wake-up per file (5 000 context switches, a third
// of the process's CPU time).
class ReadAhead {
 public:
  using Read = std::function<Expected<Profile>(std::size_t pos, Slot& slot)>;

  ReadAhead(std::size_t begin, std::size_t end, Read read)
      : ring_(kWindow), next_(begin), folded_(begin), end_(end), read_(std::move(read)) {
    // (No thread at all: the caller reads each input as it takes it.) The
    // caller reads too when it has nothing to fold, so one reader a core
    // beside it, at most two: on two cores a second worker only took turns
    // with the other two threads.
    const unsigned cores = std::thread::hardware_concurrency();
    const unsigned workers = std::clamp(cores > 1 ? cores - 1 : 1u, 1u, 2u);
    if (end - begin > 1)
      for (unsigned t = 0; t < workers; ++t)
        if (BesideThread worker = BesideThread::try_start([this] { work(); }); worker.joinable())
          workers_.push_back(std::move(worker));
  }

  ~ReadAhead() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    room_.notify_all();
    for (BesideThread& t : workers_) t.join();
  }

  // The profile at `pos`, its warnings into `diag` and its size into `bytes`.
  Expected<Profile> take(std::size_t pos, Diagnostics& diag, std::size_t& bytes) {
    std::optional<Expected<Profile>> result;
    if (workers_.empty()) {
      result = read_(pos, slot(pos));
    } else {
      std::unique_lock lock(mutex_);
      while (!slot(pos).result) {
        // Nothing to fold yet: read the next run here rather than sleep,
        // when there is one and room for it.
        if (!stop_ && next_ < end_ && next_ < folded_ + kWindow) {
          read_run(lock, caller_run_);
          continue;
        }
        caller_waits_ = true;
        ready_.wait(lock, [&] { return slot(pos).result.has_value(); });
        caller_waits_ = false;
      }
      result = std::move(slot(pos).result);
      slot(pos).result.reset();
    }
    for (const std::string& w : slot(pos).diag.warnings()) diag.warn(w);
    slot(pos).diag.clear();
    bytes += slot(pos).bytes;
    slot(pos).bytes = 0;
    return std::move(*result);
  }

  // The profile taken last is folded: its place in the window is free.
  void folded() {
    bool wake;
    {
      std::lock_guard lock(mutex_);
      ++folded_;
      // (A waiting worker is woken once a run's room is free, not at each
      // fold: it would find room for one file and wait again.)
      wake = workers_waiting_ > 0 && (folded_ + kWindow - next_ >= kRun || folded_ + kWindow >= end_);
    }
    if (wake) room_.notify_all();
  }

 private:
  static constexpr std::size_t kWindow = 16;
  // At most this many inputs read in a run, each below kSmall bytes.
  static constexpr std::size_t kRun = 8;
  static constexpr std::size_t kSmall = 64 * 1024;

  // At most kWindow positions are in flight: a ring of slots.
  Slot& slot(std::size_t pos) { return ring_[pos % kWindow]; }

  // Claims the next run of at most `run` inputs (the lock held), reads
  // them (the lock let go) and hands them over (held again). `run` becomes
  // kRun after small files, else 1.
  void read_run(std::unique_lock<std::mutex>& lock, std::size_t& run) {
    const std::size_t first = next_;
    const std::size_t count = std::min({run, folded_ + kWindow - next_, end_ - next_});
    next_ += count;
    lock.unlock();
    std::vector<Expected<Profile>> results;
    results.reserve(count);
    bool small = true;
    for (std::size_t pos = first; pos < first + count; ++pos) {
      results.push_back(read_(pos, slot(pos)));
      small = small && slot(pos).bytes < kSmall;
    }
    run = small ? kRun : 1;
    lock.lock();
    for (std::size_t i = 0; i < count; ++i) slot(first + i).result = std::move(results[i]);
  }

  void work() {
    std::size_t run = 1;  // one file at first, and after a file that was not small
    std::unique_lock lock(mutex_);
    for (;;) {
      ++workers_waiting_;
      room_.wait(lock, [&] { return stop_ || next_ >= end_ || next_ < folded_ + kWindow; });
      --workers_waiting_;
      if (stop_ || next_ >= end_) return;
      read_run(lock, run);
      if (caller_waits_) ready_.notify_one();
    }
  }

  std::vector<Slot> ring_;
  std::mutex mutex_;
  std::condition_variable ready_;  // the caller waits here for its position
  std::condition_variable room_;   // workers wait here for room in the window
  bool caller_waits_ = false;
  std::size_t caller_run_ = 1;
  int workers_waiting_ = 0;
  std::size_t next_, folded_, end_;
  bool stop_ = false;
  Read read_;
  std::vector<BesideThread> workers_;
};

Expected<const InputFormat*> format_of(const InputFile& file, const Request& r) {
  if (!r.input_format.empty()) {
    const InputFormat* f = find_input_format(r.input_format);
    if (!f)
      return bad_usage(fmt::format("--format {}: not a known input format (known: {})", quote_input(r.input_format),
                                   join(input_format_names())));
    return f;
  }
  return detect_input_format(file);
}

// Opens an input, decompressed when it is gzip, bzip2, xz or zstd: within
// --max-memory, and, when the format is to be detected, only past a head
// that is a profile.
Expected<InputFile> open_input(const std::string& path, const Request& r) {
  // A head that is a profile, or an error saying it is not.
  auto profile_head = [](const InputFile& head) -> Expected<bool> {
    if (auto f = detect_input_format(head); !f) return f.error();
    return true;
  };
  // (Standard input, a pipe or a device is read whole as it comes: within
  // --max-memory, and only past a head that is a profile, or compressed.)
  InputFile::StreamLimits stream;
  stream.max_bytes = r.max_memory;
  if (r.input_format.empty())
    stream.check_head = [&](const InputFile& head) -> Expected<bool> {
      if (!compression_of(head.bytes()).empty()) return true;
      // (UTF-16 text is looked at as the UTF-8 it becomes; a head cut
      // inside a character, by the whole read.)
      auto text = as_utf8(InputFile::from_bytes(head.path(), std::string(head.bytes())));
      return text ? profile_head(*text) : true;
    };
  // (A lone input from a pipe counts its bytes as they come, its size
  // unknown: `perf script | graphgen -` waits on perf.)
  std::optional<ReadWatch> piped;
  if (r.inputs.size() == 1) piped.emplace("reading", path, 0);
  auto file = InputFile::open(path, stream);
  piped.reset();
  if (!file) return file.error();
  InflateLimits limits;
  limits.max_bytes = r.max_memory;
  if (r.input_format.empty()) limits.check_head = profile_head;
  // A lone compressed input's inflating is watched as its read is.
  std::optional<ReadWatch> watch;
  if (r.inputs.size() == 1 && !compression_of(file->bytes().substr(0, 8)).empty())
    watch.emplace("decompressing", file->path(), file->bytes().size());
  return prepared(std::move(file).value(), limits);
}

// Reads one input: opens it, checks its format, parses it.
Expected<Profile> read_input(const std::string& path, const InputFormat* format, const Request& r,
                             std::optional<InputFile>& opened, Diagnostics& diag, std::size_t& bytes) {
  if (!opened) {
    auto file = open_input(path, r);
    if (!file) return file.error();
    opened = std::move(file).value();
  }
  // A later input the first one's format is sure of is of that format;
  // only the others go through detection, which tries every format (0.8 µs,
  // a twentieth of the CPU time of reading a 2 KB rank file).
  if (r.input_format.empty() && format->sniff(sniffed_head(*opened)) != Confidence::kStrong) {
    auto detected = detect_input_format(*opened);
    if (!detected) return detected.error();
    if (*detected != format)
      return bad_usage(fmt::format("inputs mix formats: {} is {} but {} is {}; give one format at a time",
                                   r.inputs.front(), format->name, path, (*detected)->name));
  }
  bytes = opened->bytes().size();
  ReadOptions options = r.read;
  options.memory_budget = r.max_memory ? r.max_memory : default_budget(bytes);
  try {
    // A lone input's read counts its bytes for a terminal's progress line
    // (set_read_progress); a merge counts its inputs instead.
    std::optional<ReadWatch> watch;
    if (r.inputs.size() == 1) watch.emplace("reading", opened->path(), bytes);
    auto profile = format->read(*opened, options, diag);
    opened.reset();  // unmapped as soon as it is read
    return profile;
  } catch (const std::bad_alloc&) {
    return bad_input(
        fmt::format("{}: out of memory while reading it (the machine has less than it needs; a hostile "
                    "file? --max-memory sets a smaller limit that fails earlier)",
                    path));
  }
}

// A location's number as a rank: its rank where those are unique in the
// file, else its thread where those are (the threads of one process), else
// none (numbered by position).
std::vector<std::int64_t> location_numbers(const Profile& p) {
  std::set<std::int64_t> ranks, threads;
  for (const Location& l : p.locations) {
    ranks.insert(l.rank);
    threads.insert(l.thread);
  }
  std::vector<std::int64_t> out;
  for (const Location& l : p.locations)
    out.push_back(ranks.size() == p.locations.size() ? l.rank : threads.size() == p.locations.size() ? l.thread : -1);
  return out;
}

// Files that may hold several ranks each (TAU's packed files, CUBE4): every
// file is read before the statistics start, since they need the number of
// ranks, then each location of each file is a rank (a file without
// locations is one).
Expected<MergedShare> read_located(const Request& r, const InputFormat& format, Diagnostics& diag, FirstInput* first) {
  const std::size_t n = r.inputs.size();
  MergedShare share;
  ProfileMerger merger(share.profile);
  std::vector<Profile> profiles;
  std::vector<std::size_t> input_of;
  ReadAhead ahead(0, n, [&](std::size_t pos, Slot& slot) {
    std::optional<InputFile> opened;
    if (first && first->file && pos == first->index) opened = std::move(first->file);
    return read_input(r.inputs[pos], &format, r, opened, slot.diag, slot.bytes);
  });
  for (std::size_t pos = 0; pos < n; ++pos) {
    Expected<Profile> result = ahead.take(pos, diag, share.input_bytes);
    ahead.folded();
    if (r.on_progress) r.on_progress(pos + 1, n);
    if (!result) {
      if (!r.keep_going || result.error().kind == Error::Kind::kBadUsage) return result.error();
      share.skipped.push_back(fmt::format("{} ({})", r.inputs[pos], result.error().message));
      share.skipped_at.push_back(pos);
      continue;
    }
    if (r.on_input)
      if (auto ok = r.on_input(pos, *result); !ok) return ok.error();
    profiles.push_back(std::move(result).value());
    input_of.push_back(pos);
  }
  std::vector<std::int64_t> numbers;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    if (profiles[i].locations.empty()) {
      numbers.push_back(rank_from_path(r.inputs[input_of[i]]));
    } else {
      std::vector<std::int64_t> mine = location_numbers(profiles[i]);
      numbers.insert(numbers.end(), mine.begin(), mine.end());
    }
  }
  share.ranks.emplace(std::move(numbers), false, kHeatmapColumns);
  if (r.output && r.output->per_rank_values) share.ranks->keep_values();
  std::vector<double> self, inclusive;
  std::vector<FuncId> to_merged;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    Profile& p = profiles[i];
    const std::string& path = r.inputs[input_of[i]];
    if (auto ok = merger.add(p, path); !ok) return ok.error();
    if (share.files++ == 0) share.first_input = path;
    const std::vector<FuncId>& map = merger.last_map();
    if (p.locations.empty()) {
      if (auto ok = rank_values(p, format, r, self, inclusive); !ok) return ok.error();
      share.ranks->add(self, inclusive, map);
      continue;
    }
    auto event = pick_event(p, format, r.event);
    if (!event) return event.error();
    const std::size_t ne = p.events.size();
    const Event& ev = p.events[*event];
    for (const Location& l : p.locations) {
      self.clear();
      inclusive.clear();
      to_merged.clear();
      for (std::uint32_t row = l.begin; row < l.end; ++row) {
        to_merged.push_back(map[p.location_functions[row]]);
        self.push_back(event_value(ev, p.location_self[row * ne + *event]));
        inclusive.push_back(event_value(ev, p.location_total[row * ne + *event]));
      }
      share.ranks->add(self, inclusive, to_merged);
    }
    p = Profile();  // freed once folded
  }
  share.exact = merger.take_exact();
  share.ranks->close(share.ranks->size());
  return share;
}

}  // namespace

// The order files merge in: as given, or pstats.Stats(a, b, c)'s a, c, b.
std::vector<std::size_t> merge_order(MergeOrder order, std::size_t n) {
  std::vector<std::size_t> out;
  if (n == 0) return out;
  if (order == MergeOrder::kPstats) {
    out.push_back(0);
    for (std::size_t i = n; i-- > 1;) out.push_back(i);
    return out;
  }
  for (std::size_t i = 0; i < n; ++i) out.push_back(i);
  return out;
}

Expected<const InputFormat*> input_format_of(const Request& r, FirstInput* first) {
  const std::size_t n = r.inputs.size();
  if (n == 0) return bad_usage("expected at least one input file, found none");
  // The first input decides (with --keep-going, the first readable one).
  std::optional<Error> first_error;
  for (std::size_t i = 0; i < n; ++i) {
    auto file = open_input(r.inputs[i], r);
    Expected<const InputFormat*> f = file ? format_of(*file, r) : Expected<const InputFormat*>(file.error());
    if (f) {
      if (first) {  // standard input cannot be opened twice
        first->index = i;
        first->file = std::move(file).value();
      }
      return f;
    }
    if (!r.keep_going || n == 1 || f.error().kind == Error::Kind::kBadUsage) return f.error();
    if (!first_error) first_error = f.error();
  }
  return bad_input(
      fmt::format("none of the {} inputs could be read; {} ({})", n, r.inputs.front(), first_error->message));
}

Expected<MergedShare> read_share(const Request& r, const InputFormat& format, std::size_t begin, std::size_t end,
                                 bool want_ranks, Diagnostics& diag, FirstInput* first) {
  const std::size_t n = r.inputs.size();
  end = std::min(end, n);
  begin = std::min(begin, end);
  // Files of several ranks each: their locations are the ranks (one process
  // reads them all; graphgen-mpi's shares count files).
  if (want_ranks && (format.provides & kLocations) && begin == 0 && end == n)
    return read_located(r, format, diag, first);
  const InputFormat* fmt_ptr = &format;
  std::vector<std::size_t> order = merge_order(format.merge_order, n);
  MergedShare share;
  ProfileMerger merger(share.profile);
  if (want_ranks) {
    share.ranks.emplace(r.inputs, format.merge_order == MergeOrder::kPstats, kHeatmapColumns, begin);
    if (r.output && r.output->per_rank_values) share.ranks->keep_values();
  }
  std::vector<double> self_values, inclusive_values;
  // One file of a reader keyed as the merge is the merged profile itself
  // (pstats, perf, callgrind for a graph): no copy through the merger.
  const bool solo = end - begin == 1 && !want_ranks && format.lone_file_is_merged && format.lone_file_is_merged(r.read);
  ReadAhead ahead(begin, end, [&](std::size_t pos, Slot& slot) {
    std::optional<InputFile> opened;
    if (first && first->file && order[pos] == first->index) opened = std::move(first->file);
    return read_input(r.inputs[order[pos]], fmt_ptr, r, opened, slot.diag, slot.bytes);
  });
  bool warned_locations = false;
  // One input into the share; the profile is freed when it returns, before
  // the window moves on.
  auto fold = [&](Expected<Profile> result, std::size_t input) -> Expected<bool> {
    if (!result) {
      if (!r.keep_going || result.error().kind == Error::Kind::kBadUsage) return result.error();
      share.skipped.push_back(fmt::format("{} ({})", r.inputs[input], result.error().message));
      share.skipped_at.push_back(input);
      if (share.ranks) share.ranks->skip();  // not a rank: no statistic counts it
      return true;
    }
    if (r.on_input)
      if (auto ok = r.on_input(input, *result); !ok) return ok;
    if (solo) {
      share.profile = std::move(*result);  // (its keys are unique: the merge would copy it as it is)
      // Nor would the merge keep its locations (TAU's threads): a share's
      // ranks are read apart (read_located) or kept in share.ranks.
      share.profile.locations = std::vector<Location>();
      share.profile.location_functions = std::vector<FuncId>();
      share.profile.location_self = std::vector<Cost>();
      share.profile.location_total = std::vector<Cost>();
    } else if (auto ok = merger.add(*result, r.inputs[input]); !ok) {
      return ok;
    }
    if (share.files++ == 0) share.first_input = r.inputs[input];
    if (share.ranks) {
      if (auto ok = rank_values(*result, format, r, self_values, inclusive_values); !ok) return ok;
      share.ranks->add(self_values, inclusive_values, merger.last_map());
      // (Only a share of the inputs comes here with a file of several
      // ranks: graphgen-mpi's processes.)
      if (!result->locations.empty() && !warned_locations) {
        warned_locations = true;
        diag.warn(
            fmt::format("{} holds {} ranks or threads, but graphgen-mpi counts each input file as one rank; "
                        "graphgen (one process) counts each of them",
                        r.inputs[input], result->locations.size()));
      }
    }
    return true;
  };
  for (std::size_t pos = begin; pos < end; ++pos) {
    Expected<bool> ok = fold(ahead.take(pos, diag, share.input_bytes), order[pos]);
    ahead.folded();
    if (r.on_progress) r.on_progress(pos + 1 - begin, end - begin);
    if (!ok) return ok.error();
  }
  share.exact = merger.take_exact();
  if (share.ranks) share.ranks->close(end);
  return share;
}

Expected<bool> combine_shares(MergedShare& into, MergedShare next) {
  std::vector<FuncId> map;
  if (next.files > 0) {  // (a share whose inputs were all skipped adds no profile)
    ProfileMerger merger(into.profile, std::move(into.exact), into.files, into.first_input);
    if (auto ok = merger.add(next.profile, next.first_input, &next.exact); !ok) return ok;
    into.exact = merger.take_exact();
    map = merger.last_map();
    if (into.files == 0) into.first_input = next.first_input;
  }
  into.files += next.files;
  if (into.ranks && next.ranks) into.ranks->combine(*next.ranks, map);
  into.skipped.insert(into.skipped.end(), std::make_move_iterator(next.skipped.begin()),
                      std::make_move_iterator(next.skipped.end()));
  into.skipped_at.insert(into.skipped_at.end(), next.skipped_at.begin(), next.skipped_at.end());
  into.input_bytes += next.input_bytes;
  return true;
}

Expected<Profile> finish_share(MergedShare share, const Request& r, Diagnostics& diag, RankTable* ranks) {
  const std::size_t n = r.inputs.size();
  if (share.files == 0)
    return bad_input(fmt::format("none of the {} inputs could be read; {}", n,
                                 share.skipped.empty() ? std::string("no input") : share.skipped.front()));
  share.exact = {};
  std::vector<FuncId> renumbered = order_as_gprof2dot(share.profile);
  if (ranks && share.ranks) *ranks = share.ranks->finish(share.profile.functions.size(), renumbered);
  if (!share.skipped.empty()) {
    std::string list;
    for (std::size_t i = 0; i < share.skipped.size() && i < 10; ++i) list += (i ? "; " : "") + share.skipped[i];
    if (share.skipped.size() > 10) list += fmt::format("; and {} more", share.skipped.size() - 10);
    diag.warn(
        fmt::format("--keep-going: skipped {} of {} inputs that could not be read: {}", share.skipped.size(), n, list));
  }
  return std::move(share.profile);
}

Expected<Profile> read_and_merge(const Request& r, const InputFormat*& format, Diagnostics& diag,
                                 std::size_t* input_bytes, RankTable* ranks, RankTable* located_ranks,
                                 std::vector<std::size_t>* skipped) {
  FirstInput first;
  auto detected = input_format_of(r, &first);
  if (!detected) return detected.error();
  format = *detected;
  if (!ranks && located_ranks && (format->provides & kLocations)) ranks = located_ranks;
  if (r.output && r.list_functions.empty())
    if (auto ok = check_pair(*format, *r.output); !ok) return ok.error();
  auto share = read_share(r, *format, 0, r.inputs.size(), ranks != nullptr, diag, &first);
  if (!share) return share.error();
  if (input_bytes) *input_bytes += share->input_bytes;
  if (skipped) *skipped = share->skipped_at;
  return finish_share(std::move(share).value(), r, diag, ranks);
}

std::optional<Request> name_merged_files(const Request& request, const InputFormat& format,
                                         const std::vector<std::size_t>& skipped) {
  if (!request.output || request.output->needs != Needs::kTotals || !request.write.stats.files.empty())
    return std::nullopt;
  std::optional<Request> named = request;
  Request& r = *named;
  std::vector<bool> left_out(r.inputs.size(), false);
  for (std::size_t k : skipped)
    if (k < left_out.size()) left_out[k] = true;
  std::vector<std::size_t> read;
  for (std::size_t k = 0; k < r.inputs.size(); ++k)
    if (!left_out[k]) read.push_back(k);
  for (std::size_t k : merge_order(format.merge_order, read.size()))
    r.write.stats.files.push_back(stats::file_line(r.inputs[read[k]]));
  return named;
}

}  // namespace graphgen::pipeline
