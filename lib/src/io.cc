#include "graphgen/io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace graphgen {

std::string quote_input(std::string_view text) {
  // Valid UTF-8 passes through; every other byte is shown as \xNN, so the
  // message stays one line of valid text whatever the input held.
  std::string out = "'";
  std::size_t shown = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (shown >= 60) {
      out += "...";
      break;
    }
    auto c = static_cast<unsigned char>(text[i]);
    // Strict UTF-8: no overlongs (C0, C1, E0 80.., F0 80..), nothing past U+10FFFF.
    std::size_t len = c < 0x80                   ? 1
                      : (c >= 0xC2 && c <= 0xDF) ? 2
                      : (c >= 0xE0 && c <= 0xEF) ? 3
                      : (c >= 0xF0 && c <= 0xF4) ? 4
                                                 : 0;
    bool valid = len > 1 && i + len <= text.size();
    if (valid) {
      auto c1 = static_cast<unsigned char>(text[i + 1]);
      unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
      unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
      valid = c1 >= lo && c1 <= hi;
    }
    for (std::size_t k = 2; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (c >= 0x80 && !valid) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
      ++shown;
      continue;
    }
    if (len > 1) {
      out.append(text.substr(i, len));
      i += len;
      shown += len;
      continue;
    }
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
    ++i;
    ++shown;
  }
  out += "'";
  return out;
}

std::string one_line(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (char c : message) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

std::string format_size(std::size_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0 || v >= 10 || v == static_cast<double>(static_cast<std::size_t>(v)))
    return fmt::format("{} {}", static_cast<std::size_t>(v + 0.5), kUnits[u]);
  return fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::optional<std::size_t> address_space_left() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  // The address space in use: /proc/self/statm's first number, in pages.
  std::size_t pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%zu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const std::size_t used = pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return limit.rlim_cur > used ? static_cast<std::size_t>(limit.rlim_cur) - used : 0;
}

namespace {

// Whether AddressSanitizer watches this build's memory. It writes the
// shadow of all the room an allocation takes (an eighth of it, each page a
// fault) when it is made and again when it is freed, so room that may
// never be written is not reserved there: the sanitized fuzz replay of
// the front door spent four fifths of its time on the shadow of the
// writers' 256 MiB output reservations, past 900 s (281 s without them;
// 31 s without sanitizers).
#ifdef GRAPHGEN_SANITIZE
constexpr bool kShadowed = true;
#else
constexpr bool kShadowed = false;
#endif

}  // namespace

std::size_t reservable(std::size_t bytes) {
  const std::optional<std::size_t> left = address_space_left();
  return left ? std::min(bytes, *left / 8) : bytes;
}

std::size_t bounded_rows(std::size_t bound, std::size_t row_bytes) {
  if (kShadowed || row_bytes == 0 || address_space_left()) return 0;
  constexpr std::size_t kMostBytes = std::size_t{64} << 20;
  return std::min(bound, kMostBytes / row_bytes);
}

void tune_malloc_for_this_run(bool hosts_a_program) {
#ifdef __GLIBC__
  if (address_space_left()) {
    ::mallopt(M_ARENA_MAX, 1);
    return;  // (and memory given back at once, for the mappings to come)
  }
  if (hosts_a_program) return;
  // Fixed thresholds also end glibc's own adjustment of them, which moved
  // the mmap threshold up but trimmed each thread's arena every time.
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 32 << 20);
#endif
}

std::size_t output_reservation(std::size_t max_bytes, std::size_t estimate) {
  constexpr std::size_t kMostReserved = std::size_t{256} << 20;
  if (!max_bytes) return estimate;
  const std::size_t most = std::min(max_bytes + 4096, kMostReserved);
  if (kShadowed) return std::min(estimate, most);
  return std::max(std::min(estimate, most), reservable(most));
}

const char* give_back_pages(const char* begin, const char* end, std::size_t* given) {
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(end) / page * page;
  if (last <= first) return begin;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  if (given) *given = last - first;
  return reinterpret_cast<const char*>(last);
}

void prefer_huge_pages(const void* begin, const void* end) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(begin) + kHuge - 1) / kHuge * kHuge;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(end) / kHuge * kHuge;
  if (last <= first) return;
#ifdef MADV_HUGEPAGE
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

void release_freed_memory(std::size_t worth_it) {
#ifdef __GLIBC__
  // Between phases, below 16 MiB the pages given back are mostly taken
  // again by the next phase and faulted in anew. Measured over 19 formats'
  // 20 MB inputs (-T dot and html) and the bench's: every read that left
  // 8-10 MiB free peaked the same (within 0.5 MiB) with or without giving
  // it back, and pydoc-sep3 -> dot paid 450 page faults, 0.6-1.2 ms
  // (2-4 %), for it; the one lower peak came from 23.5 MiB free
  // (pydoc-sep3 -> -T callgrind, whose 33 MB output is allocated beside
  // it: 142.7 -> 122.1 MiB).
  if (::mallinfo2().fordblks >= worth_it) ::malloc_trim(0);
#endif
}

Error output_too_large(std::string_view format, std::size_t limit) {
  return bad_input(
      fmt::format("the {} output would be larger than {}, far more than these inputs should give (a "
                  "hostile profile?); if it is real, raise the limit with --max-memory",
                  format, format_size(limit)));
}

namespace {
std::string errno_text() { return std::strerror(errno); }
}  // namespace

// The rest of `fd` after f's first size_ bytes (in owned_, if any), then
// closed: f holds the whole file; within `limits` (the head checked once,
// the size bounded). The bytes are read straight into a malloc'd buffer
// that grows by realloc, which moves a large block's pages (mremap) rather
// than copying them: a 139 MB pipe held 139 MB, where a string doubled to
// 256 MB beside its 128 MB copy.
Expected<InputFile> InputFile::read_rest(int fd, InputFile& f, const StreamLimits& limits) {
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  constexpr std::size_t kPadding = 64;  // (zeroed after the end, as for a small file)
  std::size_t size = f.owned_ ? f.size_ : 0;
  std::size_t capacity = f.owned_ ? f.size_ + f.owned_room_ : 0;
  auto grow = [&](std::size_t at_least) -> bool {
    std::size_t next = std::max<std::size_t>({capacity + capacity / 2, at_least, std::size_t{1} << 16});
    char* p = static_cast<char*>(std::realloc(f.owned_.get(), next));
    if (p == nullptr) return false;
    f.owned_.release();
    f.owned_.reset(p);
    capacity = next;
    return true;
  };
  auto no_room = [&] {
    return io_error(fmt::format("{}: cannot read: no memory for {} bytes", f.path_, format_size(capacity)));
  };
  bool checked = !limits.check_head;
  auto check = [&]() -> Expected<bool> {
    checked = true;
    InputFile head = from_bytes(f.path_, std::string(f.owned_.get(), std::min(size, limits.head_bytes)));
    return limits.check_head(head);
  };
  for (;;) {
    if (capacity - size < (std::size_t{1} << 16) && !grow(size + (std::size_t{1} << 16))) return no_room();
    ssize_t n = ::read(fd, f.owned_.get() + size, capacity - size);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(fmt::format("{}: cannot read: {}", f.path_, errno_text()));
    }
    size += static_cast<std::size_t>(n);
    detail::count_passed(static_cast<std::size_t>(n));
    if (!checked && size >= limits.head_bytes)
      if (auto ok = check(); !ok) return ok.error();
    if (limits.max_bytes && size > limits.max_bytes)
      return bad_input(
          fmt::format("{}: more than {} read from a pipe or device, the memory limit (--max-memory "
                      "raises it)",
                      f.path_, format_size(limits.max_bytes)));
  }
  if (!checked && size > 0)
    if (auto ok = check(); !ok) return ok.error();
  if (capacity - size < kPadding && !grow(size + kPadding)) return no_room();
  std::memset(f.owned_.get() + size, 0, kPadding);
  f.data_ = f.owned_.get();
  f.size_ = size;
  f.owned_room_ = capacity - size;
  return std::move(f);
}

Expected<InputFile> InputFile::open(const std::string& path, const StreamLimits& limits) {
  InputFile f;
  f.path_ = path;
  if (path == "-") return read_rest(::dup(0), f, limits);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(fmt::format("{}: cannot open: {}", path, errno_text()));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = errno_text();
    ::close(fd);
    return io_error(fmt::format("{}: cannot stat: {}", path, why));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return io_error(fmt::format("{}: is a directory, expected a profile file", path));
  }
  // Small files are read into memory: mapping and unmapping each of a
  // thousand rank files costs more (page faults, and TLB shootdowns on every
  // core once reader threads run) than copying it.
  constexpr off_t kMapAbove = off_t{1} << 20;
  if (S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= kMapAbove) {
    // (With room for simdjson's padding after the end: JSON readers then
    // parse in place. Not zeroed first: a thousand rank files were 133 MB
    // of memset before the read wrote the same bytes.)
    const auto size = static_cast<std::size_t>(st.st_size);
    constexpr std::size_t kPadding = 64;
    f.owned_.reset(static_cast<char*>(std::malloc(size + kPadding)));
    if (!f.owned_) {
      ::close(fd);
      return io_error(fmt::format("{}: cannot read: no memory for {} bytes", path, format_size(size)));
    }
    std::size_t done = 0;
    auto read_error = [&] {
      std::string why = errno_text();
      ::close(fd);
      return io_error(fmt::format("{}: cannot read: {}", path, why));
    };
    while (done < size) {
      ssize_t n = ::read(fd, f.owned_.get() + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return read_error();
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == size) {  // grown since fstat? the rest too
      char more[1 << 12];
      ssize_t n;
      do n = ::read(fd, more, sizeof more);
      while (n < 0 && errno == EINTR);
      if (n < 0) return read_error();
      if (n > 0) {
        // (The small buffer goes on as a stream's, `more` first.)
        char* p = static_cast<char*>(std::realloc(f.owned_.get(), size + kPadding + static_cast<std::size_t>(n)));
        if (p == nullptr) return read_error();
        f.owned_.release();
        f.owned_.reset(p);
        std::memcpy(p + size, more, static_cast<std::size_t>(n));
        f.size_ = size + static_cast<std::size_t>(n);
        f.owned_room_ = kPadding;
        return read_rest(fd, f, StreamLimits());
      }
    }
    ::close(fd);
    std::memset(f.owned_.get() + done, 0, size + kPadding - done);  // a NUL after the end, as a string has
    f.data_ = f.owned_.get();
    f.size_ = done;  // (shrunk since fstat: what was there)
    f.owned_room_ = size + kPadding - done;
    return f;
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::close(fd);
      f.data_ = static_cast<const char*>(p);
      f.size_ = static_cast<std::size_t>(st.st_size);
      f.mapped_ = true;
      return f;
    }
  }
  return read_rest(fd, f, S_ISREG(st.st_mode) ? StreamLimits{} : limits);
}

InputFile InputFile::from_bytes(const std::string& path, std::string bytes) {
  InputFile f;
  f.path_ = path;
  f.buffer_ = std::move(bytes);
  f.data_ = f.buffer_.data();
  f.size_ = f.buffer_.size();
  return f;
}

InputFile::InputFile(InputFile&& other) noexcept { *this = std::move(other); }

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this == &other) return *this;
  release();
  path_ = std::move(other.path_);
  mapped_ = other.mapped_;
  buffer_ = std::move(other.buffer_);
  owned_ = std::move(other.owned_);
  owned_room_ = other.owned_room_;
  size_ = other.size_;
  data_ = mapped_ ? other.data_ : owned_ ? owned_.get() : buffer_.data();
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapped_ = false;
  return *this;
}

InputFile::~InputFile() { release(); }

std::size_t InputFile::readable_after_end() const {
  if (data_ == nullptr) return 0;
  if (!mapped_) {
    if (owned_ && data_ == owned_.get()) return owned_room_;
    return data_ == buffer_.data() ? buffer_.capacity() - buffer_.size() : 0;
  }
  auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (page - size_ % page) % page;
}

namespace {
std::atomic<std::size_t> g_given_back{0};
}  // namespace

std::size_t detail::given_back() { return g_given_back.load(std::memory_order_relaxed); }

std::size_t InputFile::release_range(std::size_t begin, std::size_t end) const {
  end = std::min(end, size_);
  if (!mapped_ || begin >= end) return begin;
  std::size_t given = 0;
  const char* done = give_back_pages(data_ + begin, data_ + end, &given);
  g_given_back.fetch_add(given, std::memory_order_relaxed);
  return static_cast<std::size_t>(done - data_);
}

namespace {

ReadProgress g_read_progress;
std::chrono::milliseconds g_read_progress_after{2000};

// The input being read inside a ReadWatch. `active` says whether the rest
// may be looked at; the readers' threads add to `passed` and the one that
// finds the clock past `next` (under the mutex) reports.
struct Watch {
  std::atomic<bool> active{false};
  std::mutex mutex;  // reporting, and the end of the watch
  std::string doing, path;
  std::size_t size = 0;
  std::chrono::steady_clock::time_point start;
  std::atomic<std::chrono::steady_clock::rep> next{0};
  std::atomic<std::size_t> passed{0};
  bool reported = false;
};
Watch g_watch;

}  // namespace

void set_read_progress(ReadProgress f, std::chrono::milliseconds after) {
  g_read_progress = std::move(f);
  g_read_progress_after = after;
}

ReadWatch::ReadWatch(std::string_view doing, std::string_view path, std::size_t size) {
  if (!g_read_progress) return;
  std::lock_guard lock(g_watch.mutex);
  if (g_watch.active.load(std::memory_order_relaxed)) return;
  g_watch.doing = doing;
  g_watch.path = path;
  g_watch.size = size;
  g_watch.start = std::chrono::steady_clock::now();
  g_watch.next.store((g_watch.start + g_read_progress_after).time_since_epoch().count(), std::memory_order_relaxed);
  g_watch.passed.store(0, std::memory_order_relaxed);
  g_watch.reported = false;
  g_watch.active.store(true, std::memory_order_release);
  active_ = true;
}

ReadWatch::~ReadWatch() {
  if (!active_) return;
  std::lock_guard lock(g_watch.mutex);
  g_watch.active.store(false, std::memory_order_relaxed);
  if (g_watch.reported) g_read_progress(-1, g_watch.doing, g_watch.path, g_watch.size, g_watch.size);
}

void detail::count_passed(std::size_t bytes) {
  if (!g_watch.active.load(std::memory_order_acquire)) return;
  const std::size_t passed = g_watch.passed.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  const auto now = std::chrono::steady_clock::now();
  if (now.time_since_epoch().count() < g_watch.next.load(std::memory_order_relaxed)) return;
  // (Two parts read at once: one reports, the other goes on.)
  std::unique_lock lock(g_watch.mutex, std::try_to_lock);
  if (!lock.owns_lock() || !g_watch.active.load(std::memory_order_relaxed)) return;
  if (now.time_since_epoch().count() < g_watch.next.load(std::memory_order_relaxed)) return;
  g_watch.next.store((now + std::chrono::milliseconds(500)).time_since_epoch().count(), std::memory_order_relaxed);
  g_watch.reported = true;
  // (A part read again, or a tail taken over, counts its bytes twice.)
  g_read_progress(std::chrono::duration<double>(now - g_watch.start).count(), g_watch.doing, g_watch.path,
                  g_watch.size ? std::min(passed, g_watch.size) : passed, g_watch.size);
}

void InputFile::release() {
  if (mapped_ && data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
}

namespace {

// The temporary file being written, for the signal handler. One at a time.
char g_temporary[4096];
volatile std::sig_atomic_t g_have_temporary = 0;

extern "C" void remove_temporary_and_reraise(int sig) {
  if (g_have_temporary) ::unlink(g_temporary);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_cleanup() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction sa {};
    sa.sa_handler = remove_temporary_and_reraise;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

// Blocks the cleanup signals while the temporary's name changes hands.
class SignalGuard {
 public:
  SignalGuard() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalGuard() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

void set_temporary(const std::string& path) {
  SignalGuard guard;
  std::size_t n = std::min(path.size(), sizeof g_temporary - 1);
  std::memcpy(g_temporary, path.data(), n);
  g_temporary[n] = '\0';
  g_have_temporary = path.size() < sizeof g_temporary;
}

void clear_temporary() {
  SignalGuard guard;
  g_have_temporary = 0;
}

bool write_all(int fd, std::string_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor, or -1.
int standard_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  if (path == "/dev/stdin") return 0;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!std::string_view(path).starts_with(prefix)) continue;
    std::string_view rest = std::string_view(path).substr(prefix.size());
    if (rest.empty() || rest.size() > 9) return -1;
    int fd = 0;
    for (char c : rest) {
      if (c < '0' || c > '9') return -1;
      fd = fd * 10 + (c - '0');
    }
    return fd;
  }
  return -1;
}

// The final target of a chain of symbolic links (the path itself when it
// is none); relative targets resolve against the link's folder.
Expected<std::string> follow_links(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char buf[4096];
    ssize_t n = ::readlink(current.c_str(), buf, sizeof buf - 1);
    if (n < 0) return io_error(fmt::format("{}: cannot read the link: {}", path, errno_text()));
    std::string target(buf, static_cast<std::size_t>(n));
    if (target.empty() || target[0] != '/') {
      auto slash = current.rfind('/');
      if (slash != std::string::npos) target = current.substr(0, slash + 1) + target;
    }
    current = target;
  }
  return io_error(fmt::format("{}: cannot write: too many levels of symbolic links", path));
}

Error cannot_write(const std::string& path, const std::string& why) {
  return io_error(fmt::format("{}: cannot write: {}", path, why));
}

// Writes an output's bytes to a descriptor: `data`, or what a producer
// gives its sink. An error names `path` (the producer's own are its).
using Fill = std::function<Expected<bool>(int fd)>;

// A sink writing to a descriptor; it keeps the first failure's reason.
class DescriptorSink final : public OutputSink {
 public:
  explicit DescriptorSink(int fd) : fd_(fd) {}
  bool put(std::string_view bytes) override {
    if (!why_.empty()) return false;
    if (!write_all(fd_, bytes)) why_ = errno_text();
    return why_.empty();
  }
  const std::string& why() const { return why_; }

 private:
  int fd_;
  std::string why_;
};

Fill fill_with(const std::string& path, std::string_view data) {
  return [&path, data](int fd) -> Expected<bool> {
    if (!write_all(fd, data)) return cannot_write(path, errno_text());
    return true;
  };
}

Fill fill_with(const std::string& path, const std::function<Expected<bool>(OutputSink&)>& produce) {
  return [&path, &produce](int fd) -> Expected<bool> {
    DescriptorSink sink(fd);
    auto made = produce(sink);
    if (!sink.why().empty()) return cannot_write(path, sink.why());
    return made;
  };
}

// Writes through an open descriptor (a device, a FIFO), then closes it.
Expected<bool> write_through(int fd, const std::string& path, const Fill& fill) {
  auto written = fill(fd);
  if (::close(fd) != 0 && written) return cannot_write(path, errno_text());
  return written;
}

// A file with more than one name (hard links): rewritten in place, so every
// name sees the new content. The space is reserved first, so a full disk
// fails before the old content is touched.
Expected<bool> rewrite_in_place(int fd, const std::string& path, std::string_view data) {
  auto fail = [&](std::string why) -> Expected<bool> {
    ::close(fd);
    return cannot_write(path, why + " (rewriting a file of several hard links in place)");
  };
  if (!data.empty() && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(data.size())) != 0 &&
      errno != EOPNOTSUPP && errno != ENOSYS)
    return fail(errno_text());
  for (std::size_t done = 0; done < data.size();) {
    ssize_t n = ::pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(errno_text());
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd, static_cast<off_t>(data.size())) != 0 || ::fsync(fd) != 0) return fail(errno_text());
  if (::close(fd) != 0) return cannot_write(path, errno_text());
  return true;
}

// A file with one name, or a new one: a complete temporary file in the same
// folder (mkstemp: unpredictable, O_EXCL), flushed to the disk, then renamed
// over it, so a failure or a crash never leaves a half-written file.
Expected<bool> replace_file(const std::string& path, const std::string& target, const struct stat* old,
                            const Fill& fill) {
  install_cleanup();
  auto slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? std::string() : target.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string tmp = dir + "." + base + ".XXXXXX";
  int fd;
  {
    SignalGuard guard;
    fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd >= 0) set_temporary(tmp);
  }
  if (fd < 0) return cannot_write(path, errno_text());
  auto fail_with = [&](Error error, bool open) -> Expected<bool> {
    if (open) ::close(fd);
    ::unlink(tmp.c_str());
    clear_temporary();
    return error;
  };
  auto fail = [&](std::string why, bool open) { return fail_with(cannot_write(path, why), open); };
  // mkstemp makes 0600; a new file gets 0666 less the umask, a replaced one
  // keeps its mode.
  mode_t mode;
  if (old) {
    mode = old->st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  if (::fchmod(fd, mode) != 0) return fail(errno_text(), true);
  if (auto written = fill(fd); !written) return fail_with(written.error(), true);
  // For the test of the signal cleanup only: hold the temporary file open
  // long enough for the test to interrupt the write.
  if (const char* hold = std::getenv("GRAPHGEN_TEST_HOLD_OUTPUT_MS"))
    ::usleep(static_cast<useconds_t>(std::min(std::atoi(hold), 10000)) * 1000);
  if (::fsync(fd) != 0) return fail(errno_text(), true);
  if (::close(fd) != 0) return fail(errno_text(), false);
  if (std::rename(tmp.c_str(), target.c_str()) != 0) return fail(errno_text(), false);
  clear_temporary();
  return true;
}

// A symbolic link is opened by the kernel, with its rules: in a sticky
// world-writable folder it does not follow another user's link
// (fs.protected_symlinks), where the shell's > is refused too. A dangling
// link makes its target, as > does. The link's target (found again and
// checked to be the file opened) is what is then written.
Expected<int> open_link(const std::string& path, std::string& target, bool& created) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_CREAT, 0666);
    created = fd >= 0;
  }
  if (fd < 0)
    return cannot_write(path, errno == EACCES ? errno_text() +
                                                    " (through a symbolic link: the kernel follows another user's "
                                                    "link in a sticky folder for nobody, fs.protected_symlinks)"
                                              : errno_text());
  auto resolved = follow_links(path);
  struct stat opened {
  }, named{};
  if (!resolved || ::fstat(fd, &opened) != 0 || ::stat(resolved->c_str(), &named) != 0 ||
      opened.st_dev != named.st_dev || opened.st_ino != named.st_ino) {
    ::close(fd);
    return cannot_write(path, "the symbolic link changed while it was opened");
  }
  target = *resolved;
  return fd;
}

}  // namespace

namespace {

// write_output()'s rules, for `data` or for a producer's bytes (one of
// the two): `whole` gives the output in one piece, for a file of several
// names, which is rewritten in place at its size.
Expected<bool> write_to(const std::string& path, const Fill& fill,
                        const std::function<Expected<std::string_view>()>& whole) {
  if (path == "-" || standard_descriptor(path) >= 0) {
    int fd = path == "-" ? 1 : standard_descriptor(path);
    if (fd == 1) std::fflush(stdout);
    return fill(fd);
  }
  std::string target = path;
  int fd = -1;
  bool created = false;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    auto opened = open_link(path, target, created);
    if (!opened) return opened.error();
    fd = *opened;
  }
  bool exists = fd >= 0 ? ::fstat(fd, &st) == 0 : ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return io_error(fmt::format("{}: is a directory, expected a file name", path));
  }
  if (exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) {
    // A device or FIFO: written through, never replaced; a file of several
    // names: rewritten in place, keeping them.
    if (fd < 0) fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) return cannot_write(path, errno_text());
    if (!S_ISREG(st.st_mode)) return write_through(fd, path, fill);
    auto data = whole();
    if (!data) {
      ::close(fd);
      return data.error();
    }
    return rewrite_in_place(fd, path, *data);
  }
  if (fd >= 0) ::close(fd);
  auto done = replace_file(path, target, exists && !created ? &st : nullptr, fill);
  if (!done && created) ::unlink(target.c_str());  // (the empty file the dangling link made)
  return done;
}

}  // namespace

Expected<bool> write_output(const std::string& path, std::string_view data) {
  const std::string shown = path == "-" ? "<stdout>" : path;
  return write_to(path, fill_with(shown, data), [data]() -> Expected<std::string_view> { return data; });
}

namespace {

// An OutputSink that keeps the bytes, room made once when told the total.
class StringSink final : public OutputSink {
 public:
  bool put(std::string_view bytes) override {
    bytes_ += bytes;
    return true;
  }
  void expect(std::size_t total) override { bytes_.reserve(total); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace

Expected<std::string> produce_whole(const std::function<Expected<bool>(OutputSink&)>& produce) {
  StringSink sink;
  if (auto made = produce(sink); !made) return made.error();
  return std::move(sink.bytes());
}

Expected<bool> write_output(const std::string& path, const std::function<Expected<bool>(OutputSink&)>& produce) {
  const std::string shown = path == "-" ? "<stdout>" : path;
  std::string kept;
  return write_to(path, fill_with(shown, produce), [&]() -> Expected<std::string_view> {
    auto made = produce_whole(produce);
    if (!made) return made.error();
    kept = std::move(made).value();
    return std::string_view(kept);
  });
}

Expected<bool> check_output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs) {
  if (output == "-" || standard_descriptor(output) >= 0) return true;
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return true;
  for (const std::string& in : inputs) {
    struct stat st {};
    if (in == "-" || ::stat(in.c_str(), &st) != 0) continue;
    if (st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      return bad_usage(
          fmt::format("the output {} is also an input; write it to another name (merging into one "
                      "of the inputs would count it twice)",
                      quote_input(output)));
  }
  return true;
}

}  // namespace graphgen
