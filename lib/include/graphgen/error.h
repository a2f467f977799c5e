// Errors are values: readers return Expected<T> and never throw or print.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace graphgen {

/// What went wrong and where: a complete one-line message such as
/// `run.prof:+0x4d2: truncated marshal string: need 12 bytes, 4 left`.
struct Error {
  enum class Kind { kBadInput, kBadUsage, kIo };
  Kind kind = Kind::kBadInput;
  std::string message;
};

inline Error bad_input(std::string message) { return {Error::Kind::kBadInput, std::move(message)}; }
inline Error bad_usage(std::string message) { return {Error::Kind::kBadUsage, std::move(message)}; }
inline Error io_error(std::string message) { return {Error::Kind::kIo, std::move(message)}; }

/// A value or the error that prevented it.
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  T&& operator*() && { return std::get<0>(std::move(v_)); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Warnings collected while reading or analysing; the CLI prints them once.
class Diagnostics {
 public:
  void warn(std::string message) {
    if (sink_)
      sink_(message);
    else
      warnings_.push_back(std::move(message));
  }
  const std::vector<std::string>& warnings() const { return warnings_; }
  void clear() { warnings_.clear(); }
  /// Warnings go to `sink` as they come instead of being kept: a terminal
  /// hears that a layout will be long before it starts.
  void print_as_they_come(std::function<void(const std::string&)> sink) { sink_ = std::move(sink); }

 private:
  std::vector<std::string> warnings_;
  std::function<void(const std::string&)> sink_;
};

/// Quotes input text for an error message: at most 60 bytes, escaped.
std::string quote_input(std::string_view text);

/// A message made one line: control characters (newline, escape, NUL...)
/// shown as \xNN, whatever part of it came from where.
std::string one_line(std::string_view message);

/// A size for people: "900 B", "12 KiB", "64 MiB", "2.5 GiB".
std::string format_size(std::size_t bytes);

/// Room to reserve ahead that may never be touched: `bytes`, unless the
/// process's address space is limited (RLIMIT_AS: `ulimit -v`, a batch
/// system's h_vmem), where reserved room counts as used however little of
/// it is touched: then at most an eighth of what the limit leaves. (A
/// 256 MiB reservation for the dot of a 22 MB profile, which needs 22 MiB,
/// failed as "out of memory" under `ulimit -v 250000`.)
std::size_t reservable(std::size_t bytes);
/// What RLIMIT_AS leaves of the address space (nothing when it is unlimited).
std::optional<std::size_t> address_space_left();
/// Sets malloc up for one run of a program. Under an address-space limit,
/// one malloc arena for every thread: glibc gives each thread that
/// allocates an arena of its own, reserving 64 MiB of address space, so
/// Graphviz's font threads (pango's, fontconfig's) and graphgen's own ran
/// out of the limit and fontconfig crashed on an allocation it does not
/// check (`-T svg` of a 1 KB profile under `ulimit -v 200000`: a third of
/// runs). Unlimited (an arena per thread keeps the parallel readers from
/// waiting on each other), freed memory is kept for reuse up to 32 MiB and
/// blocks below 1 MiB come from the heap: merging 1 024 rank files, each
/// reader's arena gave its pages back after every file and faulted them in
/// again for the next (15 000 page faults, a sixth of the CPU time; 1 200
/// now). Called by the programs before any thread starts, not by the
/// library (the Python module leaves its host's malloc alone);
/// `hosts_a_program` (`graphgen run`: the profiled program runs in this
/// process) keeps glibc's own thresholds, as under `python3 -m cProfile`.
void tune_malloc_for_this_run(bool hosts_a_program = false);
/// reservable() in elements of T: how many of `count` to reserve.
template <class T>
std::size_t reservable_count(std::size_t count) {
  return reservable(count * sizeof(T)) / sizeof(T);
}

/// Rows of `row_bytes` each to reserve for a table that a reader bounds
/// by its input at `bound` rows, so that it never moves while it grows:
/// at most 64 MiB of address space (reserved pages never written cost no
/// memory; doubling touched about twice the pages, each a page fault of
/// 10-15 us on some VMs). None under an address-space limit (`ulimit -v`),
/// where the room would stay taken while the table lives, nor under
/// AddressSanitizer, which writes the shadow of all the room.
std::size_t bounded_rows(std::size_t bound, std::size_t row_bytes);

/// Capacity a writer reserves for its output up front, so the string never
/// doubles past its budget (untouched capacity costs no memory, but
/// address space: reservable()); at least the writer's estimate. Only
/// the estimate under AddressSanitizer (bounded_rows()).
std::size_t output_reservation(std::size_t max_bytes, std::size_t estimate);

/// Gives the pages of freed memory back to the system when there are
/// `worth_it` bytes of them. glibc keeps a freed block resident while
/// anything above it in the heap is alive, so a reader's temporaries (the
/// callgrind reader's position rows beside a 33 MB `-T callgrind` output)
/// stay in the peak of the phase after them. Called between phases (16 MiB:
/// below it the next phase mostly takes the pages again), and with less
/// where what comes next is a mapping of its own (a megabyte or more).
void release_freed_memory(std::size_t worth_it = std::size_t{16} << 20);

/// Gives the whole pages inside [begin, end) back to the system: memory of
/// a table whose first rows were consumed and are never read again before
/// the table is freed (they would read as zeros), so that what is made
/// from them takes their place instead of adding to the peak. Returns the
/// end of the pages given back, where the next range starts (`begin`, when
/// no whole page lies inside); `given`, when set, gets how many bytes went.
/// (InputFile::release_range() gives a mapped input's pages the same way.)
const char* give_back_pages(const char* begin, const char* end, std::size_t* given = nullptr);

/// Asks for the 2 MiB pages wholly inside [begin, end) to be huge pages
/// (transparent huge pages, where the system gives them on request): a
/// table of known size that will be written whole then takes one page
/// fault a 2 MiB instead of 512. Only for room that will be filled: a huge
/// page is resident whole once any byte of it is written.
void prefer_huge_pages(const void* begin, const void* end);
template <class T>
void prefer_huge_pages(const std::vector<T>& v, std::size_t rows) {
  if (v.capacity() >= rows) prefer_huge_pages(v.data(), v.data() + rows);
}

/// The error of a writer whose output outgrew its budget.
Error output_too_large(std::string_view format, std::size_t limit);

}  // namespace graphgen
