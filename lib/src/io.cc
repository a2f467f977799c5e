#include "graphgen/io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>

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
    std::size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3
                                   : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    bool valid = len > 1 && i + len <= text.size();
    if (valid) {
      auto c1 = static_cast<unsigned char>(text[i + 1]);
      unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
      unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
      valid = c1 >= lo && c1 <= hi;
    }
    for (std::size_t k = 2; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
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

namespace {
std::string errno_text() { return std::strerror(errno); }

bool read_all(int fd, std::string& out) {
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}
}  // namespace

Expected<InputFile> InputFile::open(const std::string& path) {
  InputFile f;
  f.path_ = path;
  if (path == "-") {
    if (!read_all(0, f.buffer_)) return io_error(fmt::format("<stdin>: cannot read: {}", errno_text()));
    f.data_ = f.buffer_.data();
    f.size_ = f.buffer_.size();
    return f;
  }
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
  bool ok = read_all(fd, f.buffer_);
  std::string why = errno_text();
  ::close(fd);
  if (!ok) return io_error(fmt::format("{}: cannot read: {}", path, why));
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
  size_ = other.size_;
  data_ = mapped_ ? other.data_ : buffer_.data();
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapped_ = false;
  return *this;
}

InputFile::~InputFile() { release(); }

void InputFile::release_range(std::size_t begin, std::size_t end) const {
  if (!mapped_) return;
  auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t first = (begin + page - 1) / page * page;
  std::size_t last = std::min(end, size_) / page * page;
  if (last > first) ::madvise(const_cast<char*>(data_) + first, last - first, MADV_DONTNEED);
}

void InputFile::release() {
  if (mapped_ && data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
}

std::string temporary_path_for(const std::string& path) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return fmt::format("{}.{}.tmp{}", dir, base, static_cast<long>(::getpid()));
}

Expected<bool> commit_temporary(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string why = errno_text();
    std::remove(temporary.c_str());
    return io_error(fmt::format("{}: cannot write: {}", path, why));
  }
  return true;
}

Expected<bool> write_file_atomically(const std::string& path, std::string_view data) {
  if (path == "-") {
    if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size() || std::fflush(stdout) != 0)
      return io_error(fmt::format("<stdout>: cannot write: {}", errno_text()));
    return true;
  }
  std::string tmp = temporary_path_for(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return io_error(fmt::format("{}: cannot write: {}", path, errno_text()));
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = errno_text();
      ::close(fd);
      std::remove(tmp.c_str());
      return io_error(fmt::format("{}: cannot write: {}", path, why));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    std::string why = errno_text();
    std::remove(tmp.c_str());
    return io_error(fmt::format("{}: cannot write: {}", path, why));
  }
  return commit_temporary(tmp, path);
}

}  // namespace graphgen
