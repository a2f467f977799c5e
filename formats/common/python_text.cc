#include "python_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace graphgen::formats {

bool valid_utf8_surrogatepass(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlongs; 0xED keeps A0..BF: surrogates pass
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + len > n) return false;
    if (p[i + 1] < lo || p[i + 1] > hi) return false;
    for (int k = 2; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

bool is_ascii(std::string_view s) {
  // Eight bytes at a time: a name is read per function of every rank file.
  std::size_t i = 0;
  std::uint64_t high = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    high |= w;
  }
  for (; i < s.size(); ++i) high |= static_cast<unsigned char>(s[i]);
  return (high & 0x8080808080808080u) == 0;
}

void append_latin1_as_utf8(std::string_view latin1, std::string& out) {
  // Nearly every such string is plain ASCII: copy it in one go.
  if (is_ascii(latin1)) {
    out.append(latin1);
    return;
  }
  for (unsigned char c : latin1) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
}

std::string with_article(std::string_view name) {
  bool vowel = !name.empty() && std::string_view("aeiouAEIOU").find(name[0]) != std::string_view::npos;
  return std::string(vowel ? "an " : "a ") + std::string(name);
}

// The lines of a source file the report may show, since a profile can name
// any path: a regular file (never a device, FIFO or directory, nothing under
// /proc, /sys or /dev), at most kMaxSource bytes, that looks like source
// text (no NUL in its first 4 KiB), readable by the invoking user: as root,
// who may read anything, only a file everyone may read (a hostile .lprof
// cannot print /etc/shadow) unless `root` is given; under `root` when it is.
// Empty when it cannot or may not be read.
constexpr std::size_t kMaxSource = std::size_t{16} << 20;
constexpr std::size_t kSniffSource = 4096;

static bool under(std::string_view real, std::string_view base) {
  return real.starts_with(base) && (real.size() == base.size() || real[base.size()] == '/' || base == "/");
}

static bool source_allowed(const std::string& path, const std::string& root) {
  char real[PATH_MAX];
  if (!::realpath(path.c_str(), real)) return false;
  for (std::string_view system : {"/proc", "/sys", "/dev"})
    if (under(real, system)) return false;
  if (::access(real, R_OK) != 0) return false;
  if (root.empty()) return true;
  char base[PATH_MAX];
  return ::realpath(root.c_str(), base) && under(real, base);
}

bool read_source(const std::string& path, const std::string& root, SourceText& source) {
  source.text.clear();
  source.starts.clear();
  if (!source_allowed(path, root)) return false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > kMaxSource ||
      (::geteuid() == 0 && root.empty() && !(st.st_mode & S_IROTH))) {
    ::close(fd);
    return false;
  }
  std::string& text = source.text;
  text.assign(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  if (text.substr(0, kSniffSource).find('\0') != std::string::npos) {  // not source text
    text.clear();
    return false;
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  for (std::size_t pos = 0; pos < text.size();) {
    source.starts.push_back(pos);
    pos = text.find('\n', pos) + 1;
  }
  source.starts.push_back(text.size());
  return true;
}

bool read_source(const std::string& path, const std::string& root, std::vector<std::string>& lines) {
  lines.clear();
  SourceText source;
  if (!read_source(path, root, source)) return false;
  lines.reserve(source.lines());
  for (std::size_t i = 0; i < source.lines(); ++i) lines.emplace_back(source.line(i));
  return true;
}

}  // namespace graphgen::formats
