// Reading inputs in one piece and writing outputs atomically.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"

namespace graphgen {

/// A whole input file in memory: mmap for regular files, one buffer for
/// pipes and standard input ("-").
class InputFile {
 public:
  /// For what is read whole into memory as it comes (standard input, a
  /// pipe, a device), which has no size to check beforehand.
  struct StreamLimits {
    /// More bytes than this is an error (0: no limit).
    std::size_t max_bytes = 0;
    /// Called once on the first `head_bytes` (or all, if fewer): an error
    /// stops the reading there (what is not a profile is not read to its
    /// end: `yes | graphgen -`).
    std::function<Expected<bool>(const InputFile& head)> check_head;
    std::size_t head_bytes = std::size_t{1} << 16;
  };
  static Expected<InputFile> open(const std::string& path, const StreamLimits& limits);
  static Expected<InputFile> open(const std::string& path) { return open(path, StreamLimits()); }
  /// An input held in memory (e.g. decompressed), named `path`.
  static InputFile from_bytes(const std::string& path, std::string bytes);

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  std::string_view bytes() const { return {data_, size_}; }
  /// Lets the kernel drop mapped pages before `offset`, which a one-pass
  /// reader will not read again (keeps resident memory small).
  void release_before(std::size_t offset) const { release_range(0, offset); }
  /// The same for the pages wholly inside [begin, end) (give_back_pages()).
  /// Gives where those pages end (or `begin`, when none lies inside): the
  /// next range of a reader going on from there starts on a page's edge.
  std::size_t release_range(std::size_t begin, std::size_t end) const;
  const std::string& path() const { return path_; }
  /// How many bytes after bytes() may be read (not written): the rest of a
  /// mapped file's last page, a buffer's spare capacity. simdjson reads
  /// its padding there instead of in a copy of the input.
  std::size_t readable_after_end() const;

 private:
  static Expected<InputFile> read_rest(int fd, InputFile& f, const StreamLimits& limits);
  InputFile() = default;
  void release();

  std::string path_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::string buffer_;                 // inflated bytes (from_bytes)
  std::unique_ptr<char, Free> owned_;  // a small file's or a stream's bytes (malloc'd: a stream grows by realloc)
  std::size_t owned_room_ = 0;         // owned_'s bytes after the file's
};

/// A big input is read for seconds with nothing said (8 GB of perf script
/// take about 5 s, a gigabyte of Very Sleepy capture some 40 s): with a
/// function set, the readers' PassedPages tell it, inside a ReadWatch, from
/// `after` on and every half second, the seconds the read has taken, what
/// is being done ("reading", "decompressing"), the input's path, the bytes
/// passed (a megabyte at a time, at most `size`) and its size (0 while a
/// pipe is read: unknown, and every read counted); once more
/// with seconds < 0 when the read ends (only if it was called). `after` of
/// 0 reports the first megabyte (tests). Process-wide, as the layout's
/// (render::set_layout_progress): a front end sets it once, before any work.
using ReadProgress = std::function<void(double seconds, std::string_view doing, std::string_view path,
                                        std::size_t passed, std::size_t size)>;
void set_read_progress(ReadProgress f, std::chrono::milliseconds after);

/// The read of one input while it lives: what PassedPages passes meanwhile
/// is counted for set_read_progress(). One at a time (a second one while
/// the first lives counts nothing: a merge says how many inputs it has read
/// instead).
class ReadWatch {
 public:
  ReadWatch(std::string_view doing, std::string_view path, std::size_t size);
  ReadWatch(const ReadWatch&) = delete;
  ReadWatch& operator=(const ReadWatch&) = delete;
  ~ReadWatch();

 private:
  bool active_ = false;
};

namespace detail {
/// `bytes` more of the watched input passed (PassedPages, each megabyte).
void count_passed(std::size_t bytes);
/// Bytes of mapped inputs given back so far, counted once for each time
/// they were given (what the tests see of release_range()).
std::size_t given_back();
}  // namespace detail

/// Gives back the pages of a mapped input that a one-pass reader has
/// passed, a megabyte at a time, so a large input does not stay resident
/// beside what is read from it (pages come back from the page cache if
/// read again), and counts them for the read's progress. Does nothing
/// without an input; an input held in memory is only counted.
class PassedPages {
 public:
  PassedPages() = default;
  /// `base`: where the reader's positions start in the input.
  explicit PassedPages(const InputFile* input, std::size_t base = 0) : input_(input), base_(base) {}
  /// The reader is at `pos`: what lies before it is not read again.
  void at(std::size_t pos) {
    if (input_ && pos - released_ > kEvery) {
      // From where the last call's pages ended, not from `base_` again:
      // each call walked the page tables of everything passed so far, a
      // megabyte more each time, so an input of n megabytes cost n^2/2
      // megabytes of walking (a 1.4 GB file: a million megabytes). The page
      // at `base_` is the other part's too, when a part begins inside it:
      // release_range() keeps it.
      given_ = input_->release_range(std::max(base_, given_), base_ + pos);
      detail::count_passed(pos - released_);
      released_ = pos;
    }
  }

 private:
  static constexpr std::size_t kEvery = std::size_t{1} << 20;
  const InputFile* input_ = nullptr;
  std::size_t base_ = 0, released_ = 0;
  std::size_t given_ = 0;  // where the pages given back end, in the input
};

/// Writes `data` where the user named:
/// - "-", /dev/stdout, /dev/stderr, /dev/fd/N: that descriptor;
/// - a character device or FIFO (/dev/null, a named pipe): written through;
/// - a symbolic link: opened by the kernel, with its rules (another user's
///   link in a sticky folder is refused, fs.protected_symlinks, as the
///   shell's > is), then its target is written as below (the link stays);
/// - a file with several hard links: rewritten in place (space reserved
///   first), so every name sees the new content;
/// - a regular file or a new name: a temporary file in the same folder
///   (mkstemp: unpredictable, O_EXCL, never following a planted link),
///   fsync'ed, then renamed over it, so a failure (or SIGINT/SIGTERM, which
///   remove the temporary file) never leaves a half-written file; a replaced
///   file keeps its mode.
Expected<bool> write_output(const std::string& path, std::string_view data);

/// Where an output's bytes go as a writer makes them, a piece at a time,
/// so that an output larger than the profile (a trace: 1.6 times its perf
/// script) is never held whole.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  /// The bytes after those already given; false once writing failed
  /// (the error is the write_output's; a writer stops there).
  virtual bool put(std::string_view bytes) = 0;
  /// How many bytes the output will have in all, when the writer knows
  /// (a sink that keeps them makes room once).
  virtual void expect(std::size_t /*total*/) {}
};

/// A writer's text on its way to a sink: made in `text()`, given a piece
/// (a megabyte) at a time, so the writer holds one piece, not the output.
class SinkBuffer {
 public:
  explicit SinkBuffer(OutputSink& sink) : sink_(sink) { text_.reserve(kPiece + kPiece / 4); }
  std::string& text() { return text_; }
  /// Gives the text once it holds a piece; false once the sink failed
  /// (its error is the write's: the writer stops).
  bool maybe_give() { return text_.size() < kPiece || give(); }
  /// Gives what the text holds.
  bool give() {
    ok_ = ok_ && sink_.put(text_);
    text_.clear();
    return ok_;
  }

 private:
  static constexpr std::size_t kPiece = std::size_t{1} << 20;
  OutputSink& sink_;
  std::string text_;
  bool ok_ = true;
};

/// The bytes `produce` gives its sink, kept whole: for a caller that wants
/// them as a string.
Expected<std::string> produce_whole(const std::function<Expected<bool>(OutputSink&)>& produce);

/// The bytes `produce` gives its sink, written where `path` names by
/// write_output()'s rules: a new or single-named file still only appears
/// (renamed over) once `produce` has returned and every byte is on the
/// disk; an error from `produce` (its own, before or after some bytes)
/// leaves no file and the old one as it was. Standard output, devices and
/// FIFOs get the bytes as they come; a file of several names is made
/// whole in memory first (it is rewritten in place, its size reserved).
Expected<bool> write_output(const std::string& path, const std::function<Expected<bool>(OutputSink&)>& produce);

/// Refuses an output that is one of the inputs (the same file, by device
/// and inode, through any name or link): writing it would read the profile
/// and replace it with itself merged again.
Expected<bool> check_output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace graphgen
